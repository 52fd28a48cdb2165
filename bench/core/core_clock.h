/* The core clock beside a sample set: a chain of dependent register adds (arch_add_chain, 1 cycle
 * per add) timed on the build's clock right before the set's samples and again right after them,
 * so that a bandwidth in bytes per second becomes bytes per core cycle. The runner takes it for
 * the ops that ask (bench_op.core_clock) and writes into the set's probe record the chain's
 * length in cycles and the shortest, median and longest timing (core_clock=add_chain,
 * core_clock_cycles, core_clock_ticks_lo/med/hi): raw, like the samples, the timer's overhead
 * not taken off; the harness turns them into Hz (docs/protocol.md, docs/methods/core_clock.md). */
#ifndef BENCH_CORE_CLOCK_H
#define BENCH_CORE_CLOCK_H

#include <stdint.h>

#include "lib/record.h"

#define CORE_CLOCK_ITERS 2048 /* x 16 adds: ~33k cycles, ~10 us at 3 GHz, 400x the timer's overhead */
#define CORE_CLOCK_REPS 4     /* timings before the set, and as many after */
#define CORE_CLOCK_N (2 * CORE_CLOCK_REPS)

struct core_clock {
	uint64_t ticks[CORE_CLOCK_N]; /* one timed chain each, in the build's clock */
	unsigned n;
};

/* Time the chain CORE_CLOCK_REPS times (after one untimed warm-up) and append the timings. */
void core_clock_take(struct core_clock *cc);

/* Pure: the shortest, median (lower middle, as median_u64) and longest of the n timings into
 * out[0..2]; sorts ticks. n = 0 gives zeros. */
void core_clock_spread(uint64_t *ticks, unsigned n, uint64_t out[3]);

/* The fields into the set's probe record (see the top of this file). */
void core_clock_emit(struct record *r, struct core_clock *cc);

#endif
