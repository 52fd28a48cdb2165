/* The runner (see runner.h). */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "bench/core/runner.h"

#include "arch/cycles.h"
#include "bench/core/calibrate.h"
#include "bench/core/counters.h"
#include "bench/core/summary.h"
#include "lib/emit.h"
#include "lib/fmt.h"
#include "lib/sort.h"

uint64_t runner_measure_overhead(void)
{
	uint64_t v[RUNNER_OVERHEAD_SAMPLES];

	cycles_b2b_samples(CYCLES_BEGIN_END, v, RUNNER_OVERHEAD_SAMPLES); /* warm-up */
	cycles_b2b_samples(CYCLES_BEGIN_END, v, RUNNER_OVERHEAD_SAMPLES);
	return median_u64(v, RUNNER_OVERHEAD_SAMPLES);
}

static void (*between_samples)(void);
/* Read by the sampling handler, which may interrupt anything between these stores. */
static volatile bool in_region;
static volatile uint64_t regions_entered;

void runner_region_enter(void)
{
	regions_entered = regions_entered + 1;
	in_region = true;
}

void runner_region_leave(void)
{
	in_region = false;
}

bool runner_in_region(void)
{
	return in_region;
}

uint64_t runner_regions_entered(void)
{
	return regions_entered;
}

void runner_set_poll(void (*fn)(void))
{
	between_samples = fn;
}

static uint64_t time_op(void *ctx, uint64_t iters)
{
	const struct bench_op *op = ctx;
	uint64_t t0, t;

	regions_entered = regions_entered + 1;
	t0 = cycles_begin();
	/* The region is the operation alone, not the cycle reads: under emulation a read can cost
	 * more than a short operation (AArch64 TCG: 12% of spin's samples fell right after them).
	 * Two stores in the timed window: a cycle or two, against a default target of 1000 timer
	 * overheads per sample. */
	in_region = true;
	op->run(op->arg, iters);
	in_region = false;
	t = cycles_end() - t0;
	if (between_samples)
		between_samples(); /* outside the timed region */
	return t;
}

enum probe_status runner_measure(struct probe_env *env, const struct bench_op *op)
{
	uint64_t n = env->cfg->samples;
	uint64_t max_iters = op->max_iters ? op->max_iters : RUNNER_MAX_ITERS;
	uint64_t *samples = probe_sample_buffer(env, n);
	struct calib_result cal;
	struct ctr_run *cr;
	struct record *r;
	uint32_t set;
	const char *const *p;
	unsigned passes = 0;
	size_t mark;

	if (!samples) {
		emit_skip(op->probe, "sample buffer does not fit in the arena (raise arena_mb)");
		return PROBE_SKIPPED;
	}
	mark = arena_mark(env->arena);
	cr = arena_alloc(env->arena, sizeof(*cr), 64);
	/* Warm up before calibrating too: a cold first run (caches, TLBs, and under emulation the
	 * translation of the code itself) would make one iteration look like enough. */
	time_op((void *)op, 1);
	cal = calibrate_iterations(time_op, (void *)op, env->target_cycles, max_iters);
	if (cr)
		passes = ctr_prepare(cr, env, op->probe, op->ctr_set, n);
	else if (!str_eq(env->cfg->pmu_events, "none") && op->ctr_set)
		emit_skip(op->probe, "no room in the arena for the counter state (raise arena_mb)");
	if (op->core_clock)
		core_clock_take(op->core_clock); /* beside the samples: before them, after them below */
	if (!passes) {
		time_op((void *)op, cal.iters); /* warm-up at the measured size */
		for (uint64_t i = 0; i < n; i++)
			samples[i] = time_op((void *)op, cal.iters);
	}
	for (unsigned pass = 0; pass < passes; pass++) {
		ctr_pass_begin(cr, pass);
		time_op((void *)op, cal.iters);
		for (uint64_t i = 0; i < n; i++) {
			uint64_t t = ctr_sample(cr, pass, i, time_op, (void *)op, cal.iters);

			if (pass == 0)
				samples[i] = t;
		}
		ctr_pass_end(cr, pass);
	}
	if (op->core_clock)
		core_clock_take(op->core_clock);

	set = probe_declare_set(env, &r, op->probe, n, cal.iters, env->timer_overhead);
	rec_u64(r, "target", env->target_cycles);
	rec_u64(r, "cal_steps", cal.steps);
	rec_bool(r, "cal_capped", cal.capped);
	for (p = op->params; p && p[0] && p[1]; p += 2)
		rec_str(r, p[0], p[1]);
	if (op->core_clock)
		core_clock_emit(r, op->core_clock);
	ctr_finish_set(cr, r, set, samples, n);
	summary_set(op->probe, op->params, samples, n, cal.iters, env->timer_overhead); /* sorts them */
	arena_release(env->arena, mark);
	return PROBE_OK;
}
