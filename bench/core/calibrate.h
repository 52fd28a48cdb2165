/* Self-calibrating iteration counts (hbench-OS 2.2.1): find the smallest iteration count whose
 * sample lasts at least the target, so the timer's resolution and overhead stay below 1/1000 of
 * a sample whatever the machine's speed. Pure logic over a timing callback, so it is unit-tested
 * with a model clock. */
#ifndef BENCH_CALIBRATE_H
#define BENCH_CALIBRATE_H

#include <stdbool.h>
#include <stdint.h>

/* Cycles one sample of `iters` iterations took. */
typedef uint64_t (*calib_time_fn)(void *ctx, uint64_t iters);

struct calib_result {
	uint64_t iters;
	uint64_t last_cycles; /* the measurement that met the target */
	unsigned steps;
	bool capped; /* hit max_iters or the step bound before reaching the target */
};

#define CALIB_MAX_STEPS 64

/* Grows iters geometrically (x2 while samples are tiny, then by the ratio to the target plus 10%
 * margin) until one sample takes >= target_cycles. Bounded by max_iters and CALIB_MAX_STEPS. */
struct calib_result calibrate_iterations(calib_time_fn time_fn, void *ctx, uint64_t target_cycles,
					 uint64_t max_iters);

/* Target cycles for one sample: target_ns converted with counter_hz, or, when either is 0 (auto),
 * CALIB_AUTO_TARGET_FACTOR times the timer overhead so its resolution is < 0.1% of a sample. */
uint64_t calibrate_target_cycles(uint64_t target_ns, uint64_t counter_hz, uint64_t overhead);

#define CALIB_AUTO_TARGET_FACTOR 1000

#endif
