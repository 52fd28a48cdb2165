/* The core clock beside a sample set: a chain of dependent register adds (arch_add_chain, 1 cycle
 * per add) timed on the build's clock right before the set's samples and again right after them,
 * so that a bandwidth in bytes per second becomes bytes per core cycle. The runner takes it for
 * the ops that ask (bench_op.core_clock) and writes into the set's probe record the chain's
 * length in cycles and the shortest, median and longest timing (core_clock=add_chain,
 * core_clock_cycles, core_clock_ticks_lo/med/hi): raw, like the samples, the timer's overhead
 * not taken off; the harness turns them into Hz (docs/protocol.md, docs/methods/core_clock.md).
 *
 * Beside each chain timing it times a throughput reference (arch_load_burst: independent L1 loads,
 * bound by the load ports' rate; core_ref=load_burst, core_ref_ops, core_ref_ticks_lo/med/hi). A
 * dependent chain runs at 1 add per cycle whether or not another hardware thread (a sibling, or
 * another tenant's vCPU) shares the core; the loads lose the ports that thread takes. Loads per
 * chain cycle below the CPU's load count, at a steady chain clock, says the core was shared. */
#ifndef BENCH_CORE_CLOCK_H
#define BENCH_CORE_CLOCK_H

#include <stdint.h>

#include "lib/record.h"

#define CORE_CLOCK_ITERS 2048 /* x 16 adds: ~33k cycles, ~10 us at 3 GHz, 400x the timer's overhead */
#define CORE_CLOCK_REPS 4     /* timings before the set, and as many after */
#define CORE_CLOCK_N (2 * CORE_CLOCK_REPS)
/* x 16 loads: 128k loads, ~33k cycles at 4 loads per cycle, ~65k at 2 (as long as the chain or
 * twice): a rate over as many cycles as the chain's, the timer's overhead as small */
#define CORE_REF_ITERS 8192

struct core_clock {
	uint64_t ticks[CORE_CLOCK_N];     /* one timed chain each, in the build's clock */
	uint64_t ref_ticks[CORE_CLOCK_N]; /* the load reference timed right after each chain */
	unsigned n;
};

/* Time the chain and the load reference CORE_CLOCK_REPS times each, in turn (after one untimed
 * warm-up of each), and append the timings. */
void core_clock_take(struct core_clock *cc);

/* Pure: the shortest, median (lower middle, as median_u64) and longest of the n timings into
 * out[0..2]; sorts ticks. n = 0 gives zeros. */
void core_clock_spread(uint64_t *ticks, unsigned n, uint64_t out[3]);

/* The fields into the set's probe record (see the top of this file). */
void core_clock_emit(struct record *r, struct core_clock *cc);

#endif
