/* Probe `prof_split`: the profiler's known-answer workload. Each operation runs the same
 * 2-instruction loop 3 iterations in arch_split_a for every 7 in arch_split_b, so 30% of the loop
 * instructions (and, the bodies being identical, of the loop time) are in arch_split_a. Profiled
 * (profile=prof_split) under `-icount shift=0`, where the timer counts instructions, or hosted on
 * the real CPU, the share of samples in arch_split_a among both must come out at 30% (the
 * harness's profile check; tests/integration/x86_64/test_profile.py). Timed by the runner like
 * `spin`, so it is an ordinary measured probe too. */
#include "arch/cycles.h"
#include "bench/core/probe.h"
#include "bench/core/runner.h"

#define SPLIT_A 3 /* iterations in arch_split_a per operation */
#define SPLIT_B 7 /* iterations in arch_split_b per operation */

static void split_op(void *arg, uint64_t iters)
{
	(void)arg;
	arch_split_a(SPLIT_A * iters);
	arch_split_b(SPLIT_B * iters);
}

static enum probe_status split_run(struct probe_env *env)
{
	static const char *const params[] = { "fn_a", "arch_split_a", "fn_b", "arch_split_b", "share_a_pct", "30",
					      "insns_per_iter", "20", 0 };
	struct bench_op op = { .probe = "prof_split", .run = split_op, .params = params };

	return runner_measure(env, &op);
}

const struct probe_desc probe_prof_split = {
	.name = "prof_split",
	.what = "the profiler's known split: 30% of a loop in one function, 70% in another",
	.run = split_run,
	.options = "samples,target_ns,pmu_events",
};
