/* Probe `irq_footprint`: how many cache lines one interrupt displaces (Schaelicke et al.),
 * calibrated on this machine against handlers of known footprint.
 *
 * Per cache level (L1D, L2; L1I below): a pointer chain of exactly the level's size, with a reverse
 * link per line (bench/probes/irq/footprint_calib.c).
 * 1. Calibration (no interrupt, runs hosted too): fill, a DIRECT call of a handler touching K
 *    lines of its own buffer, re-touch in the reverse order of the fill; over a grid of K up to
 *    past saturation this is the level's response curve (measured lines against K), and held-out
 *    K values recovered through it are the footprint_k checks.
 * 2. Interrupts (where a source exists): the same with one self-IPI, in the paper's basic
 *    experiment (fill, then the interrupt window) and its refined one (the interrupted code keeps
 *    touching every line while it waits, so other activity cannot leave the cache cold), each
 *    with variants idle (no interrupt), k0 (handler touching nothing) and kN (a known K). The IPI
 *    is sent with interrupts masked and must be pending (bounded wait) before the window opens,
 *    so it cannot land in another variant's window. Measured lines go through the curve: k0 vs
 *    idle is the delivery's footprint, K(kN vs idle) - K(k0 vs idle) the handler's (read back
 *    where it starts on the curve), reported next to the known N: not a check, since the curve
 *    comes from direct calls and an interrupt path may not add up the same way.
 * Every series repeats until the 95% CI of the trimmed mean is within 5% of the mean or the time
 * bound irq_fp_ms runs out (past the first batch, which always runs whole). The L1 instruction
 * cache is measured the same way with code chains (bench/probes/irq/footprint_code.c: a jump per
 * line, the reverse chain through the same lines, a K-line code handler), calibration and basic
 * experiment only: a code lap cannot stop where the interrupt arrived, so its refined experiment
 * is a skip. Where the PMU counts a level's misses, the
 * re-touches are counted instead of timed (bench/probes/irq/footprint_pmu.c). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "arch/cycles.h"
#include "bench/probes/irq/footprint_calib.h"
#include "bench/probes/irq/common.h"
#include "lib/emit.h"

#define REFINED_LAPS 4 /* the refined experiment's wait: touching every line this many times */

enum fp_exp { FP_BASIC, FP_REFINED, FP_NUM_EXP };
enum { VAR_IDLE, VAR_K0, VAR_KN, FP_IRQ_VARS };

static const char *const exp_names[FP_NUM_EXP] = { "basic", "refined" };
static const char *const var_names[FP_IRQ_VARS] = { "idle", "k0", "kn" };

struct fp_irq {
	struct probe_env *env;
	const struct fp_level *lv;
	enum fp_exp exp;
	uint64_t kn;              /* the known handler's K */
	uint64_t cur_k;           /* what the handler touches now */
	volatile uint64_t hits;
	uint64_t timeout;         /* cycles: bound of the pending and the taken waits */
	uint64_t not_pending;     /* IPIs not seen pending in time: no window opened */
	uint64_t not_taken;       /* windows that did not take exactly the interrupts sent */
	uint64_t taken;           /* interrupts taken, over all rounds */
	uint64_t kept;            /* repetitions kept */
};

static void fp_irq_handler(void *ctx, uint64_t entry_cycles)
{
	struct fp_irq *x = ctx;

	(void)entry_cycles;
	x->hits++;
	fp_touch(x->lv, x->cur_k);
}

/* One variant of one repetition; false: not kept (counted as not pending / not taken). */
static bool one_variant(struct fp_irq *x, unsigned var, uint64_t *out)
{
	struct irq_platform *p = x->env->irq;
	const struct fp_level *lv = x->lv;
	uint64_t before = x->hits, limit;
	bool send = var != VAR_IDLE;
	void *pos = lv->head;

	x->cur_k = var == VAR_KN ? x->kn : 0;
	irq_disable();
	if (x->exp == FP_REFINED) {
		/* the wait, touching every line with interrupts open: whatever else runs meanwhile has
		 * its lines fetched back before the measured interrupt (whole laps end at head) */
		irq_enable();
		pos = fp_walk(pos, lv->nodes * REFINED_LAPS);
		irq_disable();
	} else {
		fp_fill(lv);
	}
	if (send) {
		(void)irq_source_arm(p, IRQ_SRC_SELF_IPI, IRQ_VEC_IPI, 0, 0);
		limit = cycles_read() + x->timeout;
		while (!irq_vector_pending(p, IRQ_VEC_IPI)) {
			if (cycles_read() > limit) {
				x->not_pending++;
				return false;
			}
			cpu_relax();
		}
	}
	limit = cycles_read() + x->timeout;
	irq_enable();
	if (x->exp == FP_REFINED)
		while (send && x->hits == before && cycles_read() < limit)
			pos = fp_walk(pos, 1); /* still touching when the interrupt arrives */
	else
		cpu_relax();
	irq_disable();
	if (x->hits - before != (send ? 1u : 0u)) {
		x->not_taken++;
		return false;
	}
	x->taken += send;
	*out = fp_retouch(lv, pos);
	return true;
}

/* One repetition: every variant in random order, each the fastest of FP_BEST_OF rounds like the
 * calibration. */
static bool irq_sample(void *ctx, uint64_t *out)
{
	struct fp_irq *x = ctx;
	unsigned order[FP_IRQ_VARS];

	fp_shuffle(x->lv->rng, order, FP_IRQ_VARS); /* as in the calibration: no fixed predecessor */
	for (unsigned o = 0; o < FP_IRQ_VARS; o++) {
		unsigned var = order[o];

		out[var] = UINT64_MAX;
		for (unsigned b = 0; b < FP_BEST_OF; b++) {
			uint64_t t;

			if (!one_variant(x, var, &t))
				return false;
			out[var] = t < out[var] ? t : out[var];
		}
	}
	x->kept++;
	return true;
}

static const char *inv_name(enum fp_inv inv)
{
	return inv == FP_INV_OK ? "ok" : inv == FP_INV_SATURATED ? "saturated" : inv == FP_INV_BELOW ? "below_range"
												: "negative";
}

/* A column's lines (vs idle) read back through the curve: total K with its CI. */
struct fp_cal {
	int64_t m, ci;           /* milli-lines vs idle */
	enum fp_inv inv;
	int64_t k, lo, hi;       /* milli-K */
};

static struct fp_cal calibrate_col(const struct fp_level *lv, const struct fp_run *run, unsigned var)
{
	struct fp_cal c = { .m = fp_lines_m(lv, run->est[var].mean_m), .ci = fp_lines_m(lv, run->est[var].ci_m) };

	c.inv = fp_recover(&lv->curve, c.m, c.ci, &c.k, &c.lo, &c.hi);
	return c;
}

static void emit_cal(struct record *r, enum fp_inv inv, int64_t k, int64_t lo, int64_t hi)
{
	rec_str(r, "cal_status", inv_name(inv));
	if (inv == FP_INV_OK) {
		rec_i64(r, "k_est_milli", k);
		rec_i64(r, "k_ci_low_milli", lo);
		rec_i64(r, "k_ci_high_milli", hi);
	}
}

/* k0: the delivery's own footprint, K(k0 vs idle). kn: the handler's, K(kn vs idle) - K(k0 vs
 * idle) — the curve is not linear, so the handler's lines are read back where they start, on top
 * of the delivery's; its CI spans the two CIs (conservative). */
static void emit_irq_set(struct probe_env *env, const struct fp_irq *x, const struct fp_run *run, unsigned var)
{
	const struct fp_level *lv = x->lv;
	const struct fp_est *e = &run->est[var];
	struct record *r;
	uint32_t set = fp_declare_set(env, &r, lv, run->n);

	fp_level_fields(r, lv);
	rec_str(r, "what", "irq");
	rec_str(r, "experiment", exp_names[x->exp]);
	rec_str(r, "variant", var_names[var]);
	rec_u64(r, "k", var == VAR_KN ? x->kn : 0);
	rec_str(r, "source", irq_source_name(IRQ_SRC_SELF_IPI));
	if (var != VAR_IDLE) {
		struct fp_cal c = calibrate_col(lv, run, var), c0 = calibrate_col(lv, run, VAR_K0);

		rec_str(r, "vs", "idle");
		rec_i64(r, "mlines", c.m);
		rec_i64(r, "ci_mlines", c.ci);
		if (var == VAR_KN) {
			rec_i64(r, "handler_mlines", c.m - c0.m);
			rec_i64(r, "handler_ci_mlines", c.ci + c0.ci);
		}
		if (!lv->effect)
			rec_str(r, "cal_status", "no_effect");
		else if (var == VAR_K0)
			emit_cal(r, c.inv, c.k, c.lo, c.hi);
		else if (c.inv == FP_INV_OK && c0.inv == FP_INV_OK)
			emit_cal(r, FP_INV_OK, c.k - c0.k, c.lo - c0.hi, c.hi - c0.lo);
		else
			emit_cal(r, c.inv != FP_INV_OK ? c.inv : c0.inv, 0, 0, 0);
		if (lv->effect && var == VAR_KN && c.inv == FP_INV_OK)
			rec_i64(r, "k_total_milli", c.k);
		rec_u64(r, "valid_min", lv->effect ? lv->curve.k[lv->curve.lo] : 0);
		rec_u64(r, "valid_max", lv->effect ? lv->curve.k[lv->curve.valid] : 0);
	}
	rec_u64(r, "reps", run->n);
	rec_u64(r, "reps_used", e->used);
	rec_bool(r, "converged", !run->hit_limit);
	rec_u64(r, "ci_pct", FP_CI_PCT);
	rec_u64(r, "not_pending", x->not_pending);
	rec_u64(r, "not_taken", x->not_taken);
	rec_u64(r, "taken", var == VAR_IDLE ? 0 : run->n * FP_BEST_OF); /* in the kept repetitions */
	rec_u64(r, "best_of", FP_BEST_OF);
	emit_finish();
	emit_samples(set, run->v[var], run->n);
}

/* The interrupt experiments at one level; true when every window behaved. */
static bool run_irq(struct probe_env *env, const struct fp_level *lv)
{
	bool ok = true;

	for (unsigned e = 0; e < FP_NUM_EXP; e++) {
		size_t mark = arena_mark(env->arena);

		if (lv->inst && e == FP_REFINED) {
			/* a code lap runs to its return: the lap the interrupt lands in would refetch part
			 * of what the handler displaced before the re-touch */
			struct record *r = emit_start("skip");

			rec_str(r, "probe", "irq_footprint");
			rec_u64(r, "level", lv->c->level);
			rec_str(r, "type", "inst");
			rec_str(r, "experiment", exp_names[e]);
			rec_str(r, "reason", "a code chain cannot stop at the line where the interrupt arrived: "
					     "the rest of the lap would refetch displaced lines before the re-touch");
			emit_finish();
			continue;
		}
		struct fp_irq x = { .env = env, .lv = lv, .exp = (enum fp_exp)e,
				    .timeout = irq_us_to_cycles(env, env->cfg->irq_timeout_ms * 1000) };
		struct fp_run run;

		/* the known handler: the first held-out K inside the curve's range, else half of it */
		x.kn = lv->effect ? lv->curve.k[lv->curve.valid] / 2 : lv->k_grid[lv->n_grid / 2];
		for (unsigned i = 0; lv->effect && i < lv->n_held; i++)
			if (lv->k_held[i] <= lv->curve.k[lv->curve.valid]) {
				x.kn = lv->k_held[i];
				break;
			}
		if (!fp_run_init(env, &run, FP_IRQ_VARS, FP_SAMPLE_CAP)) {
			emit_skip("irq_footprint", "interrupt sample buffers do not fit in the arena");
			return false;
		}
		run.ref[VAR_K0] = VAR_IDLE;
		run.ref[VAR_KN] = VAR_IDLE;
		run.floor_m = lv->cost_m;
		irq_register(IRQ_VEC_IPI, fp_irq_handler, &x);
		/* the interface's order (x86's self-IPI needs nothing; a GIC's SGI is enabled here) */
		irq_source_prepare(env->irq, IRQ_SRC_SELF_IPI, IRQ_VEC_IPI);
		{
			uint64_t warm[FP_VAR_MAX];

			(void)irq_sample(&x, warm); /* warm-up, not kept */
		}
		x.not_pending = x.not_taken = x.taken = x.kept = 0;
		fp_repeat(&run, irq_sample, &x, env->cfg->irq_fp_samples, fp_deadline(env), lv->effect);
		irq_source_release(env->irq, IRQ_SRC_SELF_IPI, IRQ_VEC_IPI);
		irq_unregister(IRQ_VEC_IPI);
		for (unsigned var = 0; var < FP_IRQ_VARS; var++)
			emit_irq_set(env, &x, &run, var);
		ok = ok && !x.not_taken && run.n > 0;
		arena_release(env->arena, mark);
	}
	return ok;
}

static const char *type_name(const struct cache_desc *c)
{
	return c->type == CACHE_INST ? "inst" : c->type == CACHE_DATA ? "data" : "unified";
}

static void level_skip(const struct cache_desc *c, const char *type, const char *reason)
{
	struct record *r = emit_start("skip");

	rec_str(r, "probe", "irq_footprint");
	rec_u64(r, "level", c->level);
	rec_str(r, "type", type);
	rec_str(r, "reason", reason);
	emit_finish();
}

static enum probe_status irq_footprint_run(struct probe_env *env)
{
	/* irq_fp_irq=0: the method's known-answer part alone, where the interrupt experiments would
	 * only run to their time bound (a 2 MiB L2's series on a guest: 16 s of a hosted run's 25 s) */
	const char *no_irq = !env->cfg->irq_fp_irq ? "the interrupt experiments are off (irq_fp_irq=0)"
						     : irq_probe_unavailable(env);
	const struct cpu_info *ci = env->cpu;
	const uint64_t *held = env->cfg->irq_fp_k.v;
	unsigned nheld = env->cfg->irq_fp_k.n, /* 0: auto */ done = 0, fails = 0, bad_irq = 0;
	uint64_t ctr_faults = 0;
	struct rand_state rng;

	if (!no_irq && !irq_probe_begin(env, "irq_footprint"))
		return PROBE_FAILED;
	rand_seed(&rng, env->cfg->seed);
	for (unsigned i = 0; i < ci->num_caches; i++) {
		const struct cache_desc *c = &ci->caches[i];
		size_t mark = arena_mark(env->arena), xmark = env->exec_arena ? arena_mark(env->exec_arena) : 0;
		struct fp_level lv;

		if (c->level > 2 || (c->type == CACHE_INST && c->level != 1))
			continue; /* L1D, L1I, L2 */
		if (c->geometry_unknown) { /* no size to build the chains and grid from */
			level_skip(c, type_name(c), c->geometry_unknown);
			continue;
		}
		if (c->type == CACHE_INST && !env->cfg->irq_fp_inst) {
			level_skip(c, "inst", "instruction cache off by default (irq_fp_inst=1 measures it): its "
					      "response curve moved with the machine's load on the development machine and "
					      "a held-out K inside the range missed the 20% band in 2 of 6 runs");
			continue;
		}
		if (c->type == CACHE_INST && !env->exec_arena) {
			level_skip(c, "inst", "no executable memory for the code chains in this build");
			continue;
		}
		if (!c->line || c->line < 16 || c->size % c->line || c->line > 128) {
			level_skip(c, type_name(c), "cache geometry unusable for a chain");
			continue;
		}
		if (!fp_level_prepare(env, &lv, c, held, nheld, &rng)) {
			level_skip(c, type_name(c), "chains do not fit in the arena");
		} else {
			(void)fp_calibrate(env, &lv, &fails);
			if (!no_irq)
				bad_irq += !run_irq(env, &lv);
			ctr_faults += lv.pmu->read_faults;
			fp_level_finish(&lv);
			done++;
		}
		arena_release(env->arena, mark);
		if (env->exec_arena)
			arena_release(env->exec_arena, xmark);
	}
	if (!done) {
		emit_skip("irq_footprint", "no L1/L2 cache of known geometry to fill");
		return PROBE_SKIPPED;
	}
	if (no_irq) {
		struct record *r = emit_start("skip");

		rec_str(r, "probe", "irq_footprint");
		rec_str(r, "part", "interrupt");
		rec_str(r, "reason", no_irq);
		emit_finish();
	}
	if (bad_irq)
		emit_msg(MSG_ERROR, "irq_footprint: a window did not take exactly the one interrupt sent");
	if (fails)
		emit_msg(MSG_ERROR, "irq_footprint: a held-out footprint was not recovered through the curve");
	if (ctr_faults) /* the counts after the fault are not counts: the records say ctr_read_faults */
		emit_msg(MSG_ERROR, "irq_footprint: the miss counter's read faulted during the re-touches");
	return bad_irq || fails || ctr_faults ? PROBE_FAILED : PROBE_OK;
}

const struct probe_desc probe_irq_footprint = {
	.name = "irq_footprint",
	.what = "cache lines one interrupt displaces (L1D, L2), calibrated by direct calls of known-K handlers",
	.run = irq_footprint_run,
	.options = "irq_fp_samples,irq_fp_ms,irq_fp_k,irq_fp_inst,irq_fp_irq,irq_timeout_ms,pmu_events,seed",
	.cleanup = irq_probe_cleanup,
	.unprofiled = "the probe uses the interrupt machinery itself",
};
