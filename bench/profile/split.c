/* Probe `prof_split`: the profiler's known-answer workload. Each operation runs the same
 * 2-instruction loop 3 iterations in arch_split_a for every 7 in arch_split_b, so 30% of the loop
 * instructions are in arch_split_a. Profiled (profile=prof_split) under `-icount shift=0`, where
 * the timer counts instructions, the share of samples in arch_split_a among both must come out at
 * 30% (tests/integration/x86_64/test_profile.py). A time-based profile on a real core recovers
 * the share of *time*, and identical loop bodies need not take the same time per iteration (the
 * two loops sit at other addresses: another fetch alignment, another branch-predictor entry; one
 * Zen 5 guest ran arch_split_a's share at 35.7%). So the probe also times each function's part of
 * every operation on the cycle counter, and emits those per sample as two more sets
 * (`what=time_a`, `what=time_b`): the known answer of a time profile is their share,
 * 3 t_a / (3 t_a + 7 t_b), measured on the same samples the profile saw. Timed by the runner
 * like `spin`, so it is an ordinary measured probe too. */
/* OPT_SMALL: -Os (Makefile): prof_split's loops are arch assembly; the C only calls them. */
#include "arch/cycles.h"
#include "bench/core/probe.h"
#include "bench/core/runner.h"
#include "bench/core/options.h"
#include "lib/emit.h"

#define SPLIT_A 3 /* iterations in arch_split_a per operation */
#define SPLIT_B 7 /* iterations in arch_split_b per operation */

/* Per call of the operation, the cycles of each part, in a ring of `cap` (= samples) calls at the
 * last iteration count: the runner's calibration steps grow the count, the warm-up and the
 * samples share the final one, so the ring ends holding the last pass's samples. */
struct split_parts {
	uint64_t *a, *b;
	uint64_t cap, n, iters;
};

static void split_op(void *arg, uint64_t iters)
{
	struct split_parts *p = arg;
	uint64_t t0, t1, t2;

	t0 = cycles_begin();
	arch_split_a(SPLIT_A * iters);
	t1 = cycles_end();
	arch_split_b(SPLIT_B * iters);
	t2 = cycles_end();
	if (iters != p->iters) {
		p->iters = iters;
		p->n = 0;
	}
	p->a[p->n % p->cap] = t1 - t0;
	p->b[p->n % p->cap] = t2 - t1;
	p->n++;
}

static void reverse(uint64_t *v, uint64_t lo, uint64_t hi)
{
	while (lo + 1 < hi) {
		uint64_t t = v[lo];

		v[lo++] = v[--hi];
		v[hi] = t;
	}
}

/* The ring in call order: a rotation left by `by` (three reversals). */
static void rotate(uint64_t *v, uint64_t n, uint64_t by)
{
	reverse(v, 0, by);
	reverse(v, by, n);
	reverse(v, 0, n);
}

/* One set of a part's cycles per sample. */
static void emit_part(struct probe_env *env, const char *what, const char *fn, const uint64_t *v,
		      uint64_t n, uint64_t loop_iters)
{
	struct record *r;
	uint32_t set = probe_declare_set(env, &r, "prof_split", n, loop_iters, env->timer_overhead);

	rec_str(r, "what", what);
	rec_str(r, "fn", fn);
	rec_u64(r, "insns_per_iter", 2);
	emit_finish();
	emit_samples(set, v, n);
}

static enum probe_status split_run(struct probe_env *env)
{
	static const char *const params[] = { "fn_a", "arch_split_a", "fn_b", "arch_split_b", "share_a_pct", "30",
					      "insns_per_iter", "20", 0 };
	uint64_t samples = env->cfg->samples;
	struct split_parts parts = { .cap = samples };
	struct bench_op op = { .probe = "prof_split", .run = split_op, .arg = &parts, .params = params };
	enum probe_status st;

	parts.a = probe_sample_buffer(env, parts.cap);
	parts.b = probe_sample_buffer(env, parts.cap);
	if (!parts.a || !parts.b) {
		emit_skip("prof_split", "no room in the arena for the per-part times (raise arena_mb)");
		return PROBE_SKIPPED;
	}
	st = runner_measure(env, &op);
	if (st != PROBE_OK)
		return st;
	if (parts.n < samples) {
		emit_msg(MSG_WARN, "prof_split: fewer calls at the samples' iteration count than samples: "
				   "no per-part times");
		return st;
	}
	rotate(parts.a, samples, parts.n % samples);
	rotate(parts.b, samples, parts.n % samples);
	emit_part(env, "time_a", "arch_split_a", parts.a, samples, SPLIT_A * parts.iters);
	emit_part(env, "time_b", "arch_split_b", parts.b, samples, SPLIT_B * parts.iters);
	return st;
}

const struct probe_desc probe_prof_split = {
	.name = "prof_split",
	.what = "the profiler's known split: 30% of a loop in one function, 70% in another",
	.run = split_run,
	.options = "samples,target_ns,pmu_events",
};
