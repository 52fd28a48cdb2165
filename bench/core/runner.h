/* The runner (hbench-OS 2.2.1/2.2.2): for an operation a probe hands it, calibrate the iteration
 * count so one sample lasts at least the target time, run one warm-up sample, take N samples, and
 * emit the raw samples. With a counter set (the op's default or pmu_events=), every sample also
 * carries the counter deltas read around it (bench/core/counters.h); more events than counters repeat
 * the N samples once per further group. The timer overhead is measured once per boot and stated in every probe
 * record, not silently subtracted: the harness subtracts it. */
#ifndef BENCH_RUNNER_H
#define BENCH_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/core/core_clock.h"
#include "bench/core/probe.h"

struct bench_op {
	const char *probe; /* probe name in the records */
	void (*run)(void *arg, uint64_t iters);
	void *arg;
	const char *const *params; /* key, value, key, value, ..., NULL: the parameter set */
	uint64_t max_iters;        /* 0 = no bound but the runner's own */
	const char *ctr_set;       /* default counter set (bench/core/counters.h), NULL = none */
	struct core_clock *core_clock; /* zeroed: timed before and after the samples; NULL = not */
};

/* Timer overhead (median of RUNNER_OVERHEAD_SAMPLES empty begin/end pairs, after a warm-up). */
uint64_t runner_measure_overhead(void);

enum probe_status runner_measure(struct probe_env *env, const struct bench_op *op);

/* A function the runner calls after every timed sample, outside the timed region (NULL: none):
 * the profiler empties its full overflow buffers there while a probe runs. */
void runner_set_poll(void (*fn)(void));

/* The measured region: the runner marks every run of an operation (op->run inside its timed
 * window, without the cycle reads: calibration, warm-ups, samples, counter passes), so that the profiler attributes only
 * the samples taken there (bench/profile/region.h) and counts the rest — set-up, records, the
 * runner's own bookkeeping — apart. A probe that times work without the runner may mark its own.
 * The probe CPU's only; not nested. A fault that leaves a region early ends it through
 * runner_region_leave too (bench/core/suite.c). */
void runner_region_enter(void);
void runner_region_leave(void);
/* For interrupt context: inside a region now; regions entered since boot (a profile compares
 * the count before and after the probe: none entered, its whole run is attributed). */
bool runner_in_region(void);
uint64_t runner_regions_entered(void);

#define RUNNER_OVERHEAD_SAMPLES 256
#define RUNNER_MAX_ITERS (1ull << 40)

#endif
