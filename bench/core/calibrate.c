/* Iteration-count calibration (see calibrate.h). */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "bench/core/calibrate.h"

/* Below this many cycles a sample is all timer noise: just double instead of extrapolating. */
#define CALIB_EXTRAPOLATE_MIN_CYCLES 1000
#define NS_PER_S 1000000000ull

struct calib_result calibrate_iterations(calib_time_fn time_fn, void *ctx, uint64_t target_cycles,
					 uint64_t max_iters)
{
	struct calib_result r = { 1, 0, 0, false };

	if (!max_iters)
		max_iters = 1;
	for (r.steps = 1; r.steps <= CALIB_MAX_STEPS; r.steps++) {
		uint64_t next;

		r.last_cycles = time_fn(ctx, r.iters);
		if (r.last_cycles >= target_cycles)
			return r;
		if (r.iters >= max_iters)
			break;
		if (r.last_cycles < CALIB_EXTRAPOLATE_MIN_CYCLES) {
			next = r.iters * 2;
		} else {
			/* iters * target / cycles, +10% so the next try lands above the target. */
			uint64_t scale_num = target_cycles + target_cycles / 10;

			if (r.iters > UINT64_MAX / scale_num)
				next = max_iters;
			else
				next = r.iters * scale_num / r.last_cycles + 1;
			if (next <= r.iters)
				next = r.iters + 1;
		}
		r.iters = next < max_iters ? next : max_iters;
	}
	r.capped = true;
	if (r.steps > CALIB_MAX_STEPS)
		r.steps = CALIB_MAX_STEPS;
	return r;
}

uint64_t calibrate_target_cycles(uint64_t target_ns, uint64_t counter_hz, uint64_t overhead)
{
	if (target_ns && counter_hz)
		return target_ns / 1000 * counter_hz / (NS_PER_S / 1000) +
		       target_ns % 1000 * counter_hz / NS_PER_S;
	return CALIB_AUTO_TARGET_FACTOR * (overhead ? overhead : 1);
}
