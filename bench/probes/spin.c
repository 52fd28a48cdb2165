/* Probe `spin`: a calibrated loop of known instruction count (2 per iteration), timed by the
 * runner. It shows the runner at work (calibration, warm-up, repetitions), gives the cycles per
 * loop iteration, and is the "fluid" loop the displacement method (Woodside et al.) builds on. */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "arch/cycles.h"
#include "bench/core/counters.h"
#include "bench/core/probe.h"
#include "bench/core/runner.h"

static void spin_op(void *arg, uint64_t iters)
{
	(void)arg;
	arch_spin(iters);
}

static enum probe_status spin_run(struct probe_env *env)
{
	static const char *const params[] = { "loop", ARCH_SPIN_LOOP, "insns_per_iter", "2", 0 };
	struct bench_op op = { .probe = "spin", .run = spin_op, .params = params, .ctr_set = CTR_SET_SPIN };

	return runner_measure(env, &op);
}

const struct probe_desc probe_spin = {
	.name = "spin",
	.what = "calibrated spin loop, 2 instructions per iteration",
	.run = spin_run,
	.options = "samples,target_ns,pmu_events",
};
