/* Probes about the counters themselves.
 *
 * `pmu_check`: the consistency check of the counters against known work. arch_spin(n) retires
 * exactly 2n + 3 instructions (test, jz, n x (dec, jnz), ret) and arch_spin(0) exactly 3, with the
 * same call around both, so instructions(n) - instructions(0) must be exactly 2n: the empty call
 * measures the counter overhead (the reads' own share), whose robust spread over repetitions is
 * the tolerance (bench/stats/pmu_check.h: an order statistic one SMI cannot inflate, and a bound on the
 * tolerance itself). A `check` record states expected, measured, overhead and pass/fail. Where no
 * PMU can be read, a `skip` with the reason. The count comes from insn_count.h: the PMU programmed
 * directly on bare metal, perf_event (user mode) in the hosted build.
 *
 * `pmu_cost`: what reading the counters costs (Schaelicke et al., Table 2), so analyses can
 * subtract it: TSC cycles of one read of the group, of a start/stop and of a start/read/stop
 * sequence, the counter deltas one read causes, and the cache lines a start/read/stop sequence
 * displaces from an application's point of view — misses when re-touching an L1D- (L2-) sized
 * buffer after the sequence, next to the same re-touch without it (`after=none`). */
/* OPT_SMALL: -Os (Makefile): pmu_check's timed work is arch_spin (assembly); only its set-up and records are C. */
#include "arch/cycles.h"
#include "arch/insn_count.h"
#include "arch/pmu.h"
#include "bench/core/counters.h"
#include "bench/stats/pmu_check.h"
#include "bench/core/probe.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define CHECK_SHORT_ITERS 1000ull
#define CHECK_LONG_ITERS 1001000ull
#define CHECK_REPS 15
#define SPIN_INSNS_PER_ITER 2

/* Out of line, so every call site passes `iters` the same way: only the loop differs. */
static __attribute__((noinline)) uint64_t count_spin(const struct insn_count *ic, uint64_t iters)
{
	uint64_t a, b;

	a = insn_count_read(ic);
	arch_spin(iters);
	b = insn_count_read(ic);
	return insn_count_delta(ic, a, b);
}

static enum probe_status pmu_check_run(struct probe_env *env)
{
	struct pmu_plan *plan;
	struct insn_count ic;
	uint64_t d0[CHECK_REPS], ds[CHECK_REPS], dl[CHECK_REPS];
	struct pmu_check_verdict v;
	const char *why = 0;
	struct record *r;

	plan = arena_alloc(env->arena, sizeof(*plan), 64);
	if (!plan) {
		emit_skip("pmu_check", "no room in the arena for the counter plan");
		return PROBE_SKIPPED;
	}
	if (!insn_count_open(&ic, env->pmu, plan, &why)) {
		emit_skip("pmu_check", why);
		return PROBE_SKIPPED;
	}
	count_spin(&ic, CHECK_LONG_ITERS); /* warm-up */
	for (unsigned k = 0; k < CHECK_REPS; k++) {
		d0[k] = count_spin(&ic, 0);
		ds[k] = count_spin(&ic, CHECK_SHORT_ITERS);
		dl[k] = count_spin(&ic, CHECK_LONG_ITERS);
	}
	insn_count_close(&ic);
	pmu_check_judge(d0, ds, dl, CHECK_REPS, SPIN_INSNS_PER_ITER * CHECK_SHORT_ITERS,
			SPIN_INSNS_PER_ITER * CHECK_LONG_ITERS, &v);

	r = emit_start("check");
	rec_str(r, "name", "instructions_retired");
	rec_str(r, "probe", "pmu_check");
	rec_str(r, "event", "instructions");
	rec_str(r, "counter", ic.source);
	rec_str(r, "loop", ARCH_SPIN_LOOP);
	rec_u64(r, "insns_per_iter", SPIN_INSNS_PER_ITER);
	rec_u64(r, "iters", CHECK_LONG_ITERS);
	rec_u64(r, "expected", SPIN_INSNS_PER_ITER * CHECK_LONG_ITERS);
	rec_u64(r, "measured", v.measured_long);
	rec_u64(r, "short_iters", CHECK_SHORT_ITERS);
	rec_u64(r, "short_expected", SPIN_INSNS_PER_ITER * CHECK_SHORT_ITERS);
	rec_u64(r, "short_measured", v.measured_short);
	rec_u64(r, "overhead", v.overhead);
	rec_u64(r, "tolerance", v.tolerance);
	rec_u64(r, "tolerance_bound", PMU_CHECK_MAX_TOLERANCE);
	rec_str(r, "tolerance_from", "upper_quartile_minus_min");
	rec_u64(r, "reps", CHECK_REPS);
	if (env->pmu && env->pmu->freeze_while_smm)
		rec_str(r, "freeze_while_smm", env->pmu->freeze_while_smm);
	rec_str(r, "status", v.pass ? "pass" : "fail");
	emit_finish();
	if (!v.tolerance_ok)
		emit_msg(MSG_ERROR, "pmu_check: the counter overhead is not repeatable (tolerance above its bound)");
	else if (!v.pass)
		emit_msg(MSG_ERROR, "pmu_check: instructions retired by a loop of known length do not match");
	return v.pass ? PROBE_OK : PROBE_FAILED;
}

/* ---- pmu_cost ---------------------------------------------------------------------------------- */

enum cost_op { COST_READ, COST_START_STOP, COST_START_READ_STOP, COST_NUM_TIMED };

struct cost_ctx {
	struct ctr_run *cr;
	const struct pmu_group *g; /* the group the sequence works on */
	uint8_t *buf;
	uint64_t lines, line;
	bool sequence;             /* displacement: run the sequence before the re-touch */
};

static void sequence(const struct cost_ctx *c)
{
	uint64_t tmp[PMU_MAX_EVENTS];

	/* start/read/stop on the counting group, leaving it counting for what follows */
	pmu_stop(c->cr->env->pmu, c->g);
	(void)pmu_start(c->cr->env->pmu, c->g, 0);
	(void)pmu_read(c->cr->env->pmu, c->g, tmp);
}

static uint64_t touch(const struct cost_ctx *c)
{
	uint64_t sum = 0;

	for (uint64_t i = 0; i < c->lines; i++)
		sum += ((volatile uint8_t *)c->buf)[i * c->line];
	return sum;
}

/* Runs before each displacement sample's first counter read: warm the buffer, then (or not) the
 * sequence under test. */
static void displace_prepare(void *ctx)
{
	const struct cost_ctx *c = ctx;

	touch(c);
	touch(c);
	if (c->sequence)
		sequence(c);
}

static uint64_t displace_timed(void *ctx, uint64_t iters)
{
	uint64_t t0 = cycles_begin();

	(void)iters;
	touch(ctx);
	return cycles_end() - t0;
}

static uint64_t read_timed(void *ctx, uint64_t iters)
{
	const struct cost_ctx *c = ctx;
	uint64_t tmp[PMU_MAX_EVENTS], t0;

	(void)iters;
	t0 = cycles_begin();
	(void)pmu_read(c->cr->env->pmu, &c->cr->plan.pass[c->cr->pass], tmp);
	return cycles_end() - t0;
}

static uint64_t time_sequence(const struct pmu_info *pi, const struct pmu_group *g, enum cost_op op)
{
	uint64_t tmp[PMU_MAX_EVENTS], t0 = cycles_begin();

	(void)pmu_start(pi, g, 0);
	if (op == COST_START_READ_STOP)
		(void)pmu_read(pi, g, tmp);
	pmu_stop(pi, g);
	return cycles_end() - t0;
}

/* One set measured with counters through ctr_*: samples = fn's cycles. */
static void cost_set(struct probe_env *env, struct cost_ctx *c, const char *op, const char *level,
		     const char *after, ctr_timed_fn fn, void (*prepare)(void *), uint64_t iters)
{
	uint64_t n = env->cfg->samples;
	uint64_t *samples = probe_sample_buffer(env, n);
	unsigned passes = samples ? ctr_prepare(c->cr, env, "pmu_cost", CTR_SET_COST, n) : 0;
	struct record *r;
	uint32_t set;

	if (!passes) {
		emit_skip("pmu_cost", "no counters or no room for the samples");
		return;
	}
	c->cr->prepare = prepare;
	for (unsigned p = 0; p < passes; p++) {
		ctr_pass_begin(c->cr, p);
		c->g = &c->cr->plan.pass[p];
		for (uint64_t i = 0; i < n; i++) {
			uint64_t t = ctr_sample(c->cr, p, i, fn, c, 1);

			if (p == 0)
				samples[i] = t;
		}
		ctr_pass_end(c->cr, p);
	}
	set = probe_declare_set(env, &r, "pmu_cost", n, iters, env->timer_overhead);
	rec_str(r, "op", op);
	if (level) {
		rec_str(r, "level", level);
		rec_str(r, "after", after);
		rec_u64(r, "lines", c->lines);
	}
	ctr_finish_set(c->cr, r, set, samples, n);
}

/* The data (or unified) cache of `level` and its size, 0 where unknown (*why then says why). */
static uint64_t cache_size(const struct cpu_info *ci, unsigned level, unsigned *line, const char **why)
{
	*why = "cache size unknown";
	for (unsigned i = 0; i < ci->num_caches; i++)
		if (ci->caches[i].level == level && ci->caches[i].type != CACHE_INST && ci->caches[i].line) {
			*line = ci->caches[i].line;
			if (ci->caches[i].geometry_unknown)
				*why = ci->caches[i].geometry_unknown;
			return ci->caches[i].size;
		}
	return 0;
}

static enum probe_status pmu_cost_run(struct probe_env *env)
{
	static const char *const timed_names[] = { "read", "start_stop", "start_read_stop" };
	const struct pmu_info *pi = env->pmu;
	struct ctr_run *cr;
	struct cost_ctx c = { 0 };
	uint64_t n = env->cfg->samples;

	if (!pi || !pi->present) {
		emit_skip("pmu_cost", pi ? pi->reason : "PMU not discovered in this build");
		return PROBE_SKIPPED;
	}
	cr = arena_alloc(env->arena, sizeof(*cr), 64);
	if (!cr) {
		emit_skip("pmu_cost", "no room in the arena for the counter state");
		return PROBE_SKIPPED;
	}
	c.cr = cr;
	/* The read, with its counter deltas (overhead = the empty interval's). */
	cost_set(env, &c, "read", 0, 0, read_timed, 0, 1);

	/* Start/stop sequences, TSC-timed only (counting stops inside them). */
	if (ctr_prepare(cr, env, "pmu_cost", CTR_SET_COST, n)) {
		const struct pmu_group *g = &cr->plan.pass[0];

		(void)pmu_program(pi, g, 0);
		for (unsigned op = COST_START_STOP; op < COST_NUM_TIMED; op++) {
			uint64_t *v = probe_sample_buffer(env, n);
			struct record *r;
			uint32_t set;

			if (!v)
				break;
			time_sequence(pi, g, (enum cost_op)op); /* warm-up */
			for (uint64_t i = 0; i < n; i++)
				v[i] = time_sequence(pi, g, (enum cost_op)op);
			set = probe_declare_set(env, &r, "pmu_cost", n, 1, env->timer_overhead);
			rec_str(r, "op", timed_names[op]);
			rec_u64(r, "counters", g->n);
			emit_finish();
			emit_samples(set, v, n);
		}
		pmu_release(pi, g);
	}

	/* Lines displaced by a start/read/stop sequence, per data cache level. */
	for (unsigned level = 1; level <= 2; level++) {
		static const char *const level_names[] = { "", "L1d", "L2" };
		unsigned line = 0;
		const char *why;
		uint64_t size = cache_size(env->cpu, level, &line, &why);

		if (!size) {
			emit_skip("pmu_cost", why);
			continue;
		}
		if (!(c.buf = arena_alloc(env->arena, size, 4096))) {
			emit_skip("pmu_cost", "no room for the displacement buffer");
			continue;
		}
		c.line = line;
		c.lines = size / line;
		c.sequence = false;
		cost_set(env, &c, "displacement", level_names[level], "none", displace_timed, displace_prepare, c.lines);
		c.sequence = true;
		cost_set(env, &c, "displacement", level_names[level], "start_read_stop", displace_timed,
			 displace_prepare, c.lines);
	}
	return PROBE_OK;
}

const struct probe_desc probe_pmu_check = {
	.name = "pmu_check",
	.what = "instructions retired by a loop of known length, counted exactly (PMU consistency check)",
	.run = pmu_check_run,
	.options = "samples",
};

const struct probe_desc probe_pmu_cost = {
	.name = "pmu_cost",
	.what = "cost of reading and starting/stopping the counters (cycles, events, displaced lines)",
	.run = pmu_cost_run,
	.options = "samples,pmu_events",
};
