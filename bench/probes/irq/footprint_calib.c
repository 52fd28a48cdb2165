/* The footprint probe's level, repetition and calibration (see bench/probes/irq/footprint_calib.h).
 *
 * Calibration per level: each repetition measures side by side (interleaved, so drift affects
 * them alike) a cold re-touch (after evicting the level: every line comes from the next level)
 * and, for every K of the grid and every held-out K, fill + direct call of the K-line handler +
 * reverse re-touch. Differences are paired with the K = 0 call of the same repetition. The cost
 * of one line's miss is (cold - K0) / lines; measured lines(K) = (retouch(K) - K0) / cost. */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "bench/probes/irq/footprint_calib.h"

#include "arch/cache_model.h"
#include "arch/cycles.h"
#include "arch/membw.h"
#include "bench/probes/mem/chain.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define EVICT_FACTOR 2        /* the eviction walk covers twice the level */
#define GRID_DEN 32           /* grid points as fractions of the level's lines, in 1/32 */
#define HELD_DEN 64           /* default held-out K in 1/64 of the level's lines: off the grid */
#define EFFECT_DEN 4          /* a cache effect: cold lap at least 1/4 slower than a warm one */
#define PMU_EFFECT_DEN 2      /* counted: a cold re-touch shows at least half its lines as misses */
#define MIN_BATCH 16
/* The L2 chain fills 3/4 of the level. Filled completely, each foreign line started a cascade of
 * misses under its (not LRU) replacement: K = 512 gave 1700 to 5600 lines from run to run on a
 * Zen 5; with a quarter left for whatever else the core runs the curve was repeatable. L1D
 * (virtually indexed, LRU-like) is filled completely. */
#define OUTER_FILL_NUM 3
#define OUTER_FILL_DEN 4
/* An emulator (QEMU's TCG) models no caches, so whatever a lap's timing shows is the emulator's
 * host, not a cache of the CPU described: arch/cache_model.h says when, and why. */
#define KBUF_WRITE_SLOT 2     /* the handler writes the line's third word (the first is its link) */

static const uint64_t grid_32nds[] = { 0, 1, 2, 4, 8, 16, 24, 32, 40 };
static const uint64_t held_64ths[] = { 5, 12, 24, 72 };
#define N_GRID (sizeof(grid_32nds) / sizeof(grid_32nds[0]))
#define N_HELD_DEFAULT (sizeof(held_64ths) / sizeof(held_64ths[0]))

void *fp_walk(void *from, uint64_t loads)
{
	return arch_chase(from, loads);
}

void fp_fill(const struct fp_level *lv)
{
	if (lv->inst) {
		lv->code.fwd();
		lv->code.fwd();
		return;
	}
	(void)arch_chase(lv->head, lv->nodes);
	(void)arch_chase(lv->head, lv->nodes);
}

struct retouch {
	void *start;
	uint64_t nodes;
	icache_chain_fn code; /* the instruction level: the reverse code chain */
};

static uint64_t timed_retouch(void *ctx, uint64_t iters)
{
	const struct retouch *rt = ctx;
	uint64_t t0 = cycles_begin();

	(void)iters;
	if (rt->code)
		rt->code();
	else
		(void)arch_chase(rt->start, rt->nodes);
	return cycles_end() - t0;
}

uint64_t fp_retouch(const struct fp_level *lv, const void *next)
{
	struct retouch rt = { lv->inst ? 0 : chain_reverse_start(next), lv->nodes, lv->inst ? lv->code.rev : 0 };

	if (lv->pmu && lv->pmu->counted)
		return fp_pmu_count(lv->pmu, timed_retouch, &rt);
	return timed_retouch(&rt, 1);
}

void fp_touch(const struct fp_level *lv, uint64_t k)
{
	volatile uint64_t *p = lv->khead;

	if (lv->inst) {
		fp_code_touch(&lv->code, k); /* k lines of the handler's own code */
		return;
	}
	/* in random order (its own chain): a sequential sweep would train the stream prefetchers,
	 * which then pull lines beyond the K; one write per line makes them dirty like a handler's */
	for (uint64_t i = 0; i < k; i++) {
		p[KBUF_WRITE_SLOT] = i;
		p = (volatile uint64_t *)(uintptr_t)p[0];
	}
}

static bool on_grid(const struct fp_level *lv, uint64_t k)
{
	for (unsigned i = 0; i < lv->n_grid; i++)
		if (lv->k_grid[i] == k)
			return true;
	return false;
}

bool fp_level_prepare(struct probe_env *env, struct fp_level *lv, const struct cache_desc *c,
		      const uint64_t *held, unsigned nheld, struct rand_state *rng)
{
	uint64_t line = c->line, nodes = c->size / line, kmax = 0;
	void *a, *b;

	if (c->level > 1)
		nodes = nodes * OUTER_FILL_NUM / OUTER_FILL_DEN;
	*lv = (struct fp_level){ .c = c, .inst = c->type == CACHE_INST, .line = line, .nodes = nodes,
				 .evict_nodes = nodes * EVICT_FACTOR, .rng = rng };
	for (unsigned i = 0; i < N_GRID; i++) {
		uint64_t k = nodes * grid_32nds[i] / GRID_DEN;

		if (i && k <= lv->k_grid[lv->n_grid - 1])
			continue; /* a tiny level: points collapse */
		lv->k_grid[lv->n_grid++] = k;
	}
	for (unsigned i = 0; i < (nheld ? nheld : N_HELD_DEFAULT) && lv->n_held < FP_HELD_MAX; i++) {
		uint64_t k = nheld ? held[i] : nodes * held_64ths[i] / HELD_DEN;

		if (k && !on_grid(lv, k))
			lv->k_held[lv->n_held++] = k;
	}
	for (unsigned i = 0; i < lv->n_grid; i++)
		kmax = lv->k_grid[i] > kmax ? lv->k_grid[i] : kmax;
	for (unsigned i = 0; i < lv->n_held; i++)
		kmax = lv->k_held[i] > kmax ? lv->k_held[i] : kmax;
	lv->kbuf_lines = kmax;
	if (lv->inst) {
		lv->pmu = arena_alloc(env->arena, sizeof(*lv->pmu), 64);
		if (!lv->pmu || lv->n_grid + lv->n_held + 1 > FP_VAR_MAX ||
		    !fp_code_prepare(env, &lv->code, nodes, line, kmax, rng))
			return false;
		fp_pmu_begin(env, lv->pmu, c->level, true);
		return true;
	}
	a = arena_alloc(env->arena, nodes * line, 4096);
	b = arena_alloc(env->arena, lv->evict_nodes * line, 4096);
	kmax = kmax ? kmax : 1;
	lv->kbuf = arena_alloc(env->arena, kmax * line, 4096);
	lv->pmu = arena_alloc(env->arena, sizeof(*lv->pmu), 64);
	if (!a || !b || !lv->kbuf || !lv->pmu || lv->n_grid + lv->n_held + 1 > FP_VAR_MAX)
		return false;
	lv->head = chain_build_random(a, (size_t)nodes, (size_t)line, rng);
	chain_link_reverse(lv->head, (size_t)nodes);
	lv->evict_head = chain_build_random(b, (size_t)lv->evict_nodes, (size_t)line, rng);
	lv->khead = chain_build_random((void *)lv->kbuf, (size_t)kmax, (size_t)line, rng);
	fp_pmu_begin(env, lv->pmu, c->level, c->type == CACHE_INST);
	return true;
}

void fp_level_finish(struct fp_level *lv)
{
	if (lv->pmu)
		fp_pmu_end(lv->pmu);
}

bool fp_run_init(struct probe_env *env, struct fp_run *r, unsigned nvar, uint32_t cap)
{
	*r = (struct fp_run){ .nvar = nvar, .cap = cap };
	for (unsigned i = 0; i < nvar; i++) {
		r->ref[i] = -1;
		if (!(r->v[i] = arena_alloc(env->arena, cap * sizeof(uint64_t), 64)))
			return false;
	}
	r->diff = arena_alloc(env->arena, cap * sizeof(int64_t), 64);
	r->scratch = arena_alloc(env->arena, cap * sizeof(uint64_t), 64);
	return r->diff && r->scratch && nvar <= FP_VAR_MAX;
}

static void estimate(struct fp_run *r)
{
	r->converged = r->n >= FP_MIN_REPS;
	for (unsigned var = 0; var < r->nvar; var++) {
		int ref = r->ref[var];

		for (uint32_t s = 0; s < r->n; s++)
			r->diff[s] = (int64_t)r->v[var][s] - (ref >= 0 ? (int64_t)r->v[ref][s] : 0);
		if (!fp_estimate(r->diff, r->n, r->scratch, &r->est[var]))
			r->est[var] = (struct fp_est){ 0 };
		if (ref >= 0 && !fp_converged(&r->est[var], r->n, r->floor_m))
			r->converged = false;
	}
}

void fp_repeat(struct fp_run *r, fp_sample_fn fn, void *ctx, uint64_t batch, uint64_t deadline,
	       bool until_converged)
{
	uint64_t out[FP_VAR_MAX];
	/* a series' first batch is kept whole: it is bounded by its count (and every sample by its
	 * own wait), so a slow or loaded machine still gets the repetitions asked for; the time
	 * bound limits only the repetition beyond them */
	uint64_t whole = r->n ? 0 : batch;

	if (batch < MIN_BATCH && until_converged)
		batch = MIN_BATCH;
	do {
		/* a refused repetition (e.g. the interrupt was not pending) is not kept and still
		 * counts against the batch, so a source that keeps refusing cannot hold the loop */
		for (uint64_t i = 0; i < batch && r->n < r->cap && (i < whole || cycles_read() < deadline); i++) {
			if (!fn(ctx, out)) {
				r->dropped++;
				continue;
			}
			for (unsigned var = 0; var < r->nvar; var++)
				r->v[var][r->n] = out[var];
			r->n++;
		}
		whole = 0;
		estimate(r);
	} while (until_converged && !r->converged && r->n < r->cap && cycles_read() < deadline);
	r->hit_limit = !r->converged;
}

int64_t fp_lines_m(const struct fp_level *lv, int64_t cycles_m)
{
	return lv->cost_m > 0 ? cycles_m * FP_MILLI / lv->cost_m : 0;
}

uint64_t fp_deadline(const struct probe_env *env)
{
	uint64_t hz = env->counter_hz ? env->counter_hz : 1000000000ull;

	return cycles_read() + env->cfg->irq_fp_ms * (hz / 1000);
}

uint32_t fp_declare_set(struct probe_env *env, struct record **r, const struct fp_level *lv, uint64_t n)
{
	if (lv->pmu->counted) /* overhead: the counter's delta over an empty sample, not subtracted */
		return probe_declare_set_unit(env, r, "irq_footprint", "misses", n, 1, lv->pmu->cr.overhead[0][0]);
	return probe_declare_set(env, r, "irq_footprint", n, 1, env->timer_overhead);
}

const char *fp_type_name(const struct fp_level *lv)
{
	return lv->inst ? "inst" : lv->c->type == CACHE_DATA ? "data" : "unified";
}

void fp_level_fields(struct record *r, const struct fp_level *lv)
{
	rec_u64(r, "level", lv->c->level);
	rec_str(r, "type", fp_type_name(lv));
	rec_u64(r, "size", lv->c->size);
	rec_u64(r, "line", lv->line);
	rec_u64(r, "nodes", lv->nodes);
	rec_str(r, "retouch", "reverse");
	fp_pmu_fields(lv->pmu, r);
}

/* Calibration columns: 0 cold, 1..n_grid the grid (column 1: K = 0), then the held-out K. The
 * columns run in a new random order every repetition: a big K (or the eviction walk) leaves the
 * replacement state different for whatever runs next, and an adaptive L2 policy remembers it, so
 * no column may always follow the same one. */
static uint64_t calib_column(const struct fp_level *lv, unsigned col)
{
	uint64_t best = UINT64_MAX;

	for (unsigned b = 0; b < FP_BEST_OF; b++) {
		uint64_t t;

		if (col == 0 && lv->inst) {
			lv->code.evict();
		} else if (col == 0) {
			(void)arch_chase(lv->evict_head, lv->evict_nodes);
		} else {
			unsigned i = col - 1;

			fp_fill(lv);
			fp_touch(lv, i < lv->n_grid ? lv->k_grid[i] : lv->k_held[i - lv->n_grid]);
		}
		t = fp_retouch(lv, lv->head);
		best = t < best ? t : best;
	}
	return best;
}

static bool calib_sample(void *ctx, uint64_t *out)
{
	struct fp_level *lv = ctx;
	unsigned n = 1 + lv->n_grid + lv->n_held, order[FP_VAR_MAX];

	fp_shuffle(lv->rng, order, n);
	for (unsigned i = 0; i < n; i++)
		out[order[i]] = calib_column(lv, order[i]);
	return true;
}

void fp_shuffle(struct rand_state *rng, unsigned *order, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		order[i] = i;
	for (unsigned i = n; i-- > 1;) {
		unsigned j = (unsigned)rand_below(rng, i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
}

static void emit_run_fields(struct record *r, const struct fp_run *run, const struct fp_est *e)
{
	rec_u64(r, "reps", run->n);
	rec_u64(r, "reps_used", e->used);
	rec_bool(r, "converged", !run->hit_limit);
	rec_u64(r, "ci_pct", FP_CI_PCT);
}

static void emit_calib_set(struct probe_env *env, const struct fp_level *lv, const struct fp_run *run,
			   unsigned col, const char *what, uint64_t k, int64_t lines_m, int64_t ci_m)
{
	struct record *r;
	uint32_t set = fp_declare_set(env, &r, lv, run->n);

	fp_level_fields(r, lv);
	rec_str(r, "what", what);
	rec_str(r, "experiment", "direct");
	if (col) {
		rec_u64(r, "k", k);
		rec_i64(r, "mlines", lines_m);
		rec_i64(r, "ci_mlines", ci_m);
		if (k)
			rec_i64(r, "ratio_milli", lines_m / (int64_t)k);
	} else {
		if (lv->pmu->counted)
			rec_i64(r, "cold_mpl_milli", lv->cold_mpl_m);
		else
			rec_i64(r, "cost_mcyc", lv->cost_m);
		rec_bool(r, "effect", lv->effect);
		rec_u64(r, "valid_min", lv->effect ? lv->curve.k[lv->curve.lo] : 0);
		rec_u64(r, "valid_max", lv->effect ? lv->curve.k[lv->curve.valid] : 0);
		rec_u64(r, "sat_k", lv->effect ? fp_curve_sat_k(&lv->curve) : 0);
		rec_i64(r, "min_slope_milli", lv->effect ? lv->curve.min_slope : 0);
	}
	emit_run_fields(r, run, &run->est[col]);
	emit_finish();
	emit_samples(set, run->v[col], run->n);
	if (!col)
		fp_pmu_skips(lv->pmu, set); /* the level's counter skip, once, after its first set */
}

static void emit_check(const struct fp_level *lv, uint64_t k, const struct fp_est *e, int64_t lines_m,
		       int64_t ci_m, enum fp_verdict v, enum fp_inv inv, int64_t k_m, int64_t lo_m, int64_t hi_m,
		       bool converged)
{
	struct record *r = emit_start("check");

	rec_str(r, "name", "footprint_k");
	rec_str(r, "probe", "irq_footprint");
	rec_str(r, "status", fp_verdict_name(v));
	rec_u64(r, "level", lv->c->level);
	rec_str(r, "type", fp_type_name(lv));
	rec_u64(r, "k", k);
	rec_u64(r, "expected", k);
	if (v == FP_SATURATED || v == FP_BELOW) {
		/* outside the curve's calibrated range: never a number */
		rec_str(r, "measured", fp_verdict_name(v));
	} else if (inv == FP_INV_OK) {
		rec_i64(r, "measured", (k_m + FP_MILLI / 2) / FP_MILLI);
		rec_i64(r, "ci_low", lo_m / FP_MILLI);
		rec_i64(r, "ci_high", (hi_m + FP_MILLI - 1) / FP_MILLI);
	} else {
		rec_str(r, "measured", inv == FP_INV_SATURATED ? "saturated" : inv == FP_INV_BELOW ? "below_range" : "negative");
	}
	rec_i64(r, "raw_mlines", lines_m);
	rec_i64(r, "raw_ci_mlines", ci_m);
	rec_u64(r, "valid_min", lv->curve.k[lv->curve.lo]);
	rec_u64(r, "valid_max", lv->curve.k[lv->curve.valid]);
	rec_u64(r, "tol_pct", FP_TOL_PCT);
	rec_u64(r, "reps", e->used);
	rec_bool(r, "converged", converged);
	emit_finish();
}

enum fp_inv fp_recover(const struct fp_curve *c, int64_t m, int64_t ci, int64_t *k, int64_t *lo, int64_t *hi)
{
	enum fp_inv inv = fp_curve_invert(c, m, ci, k);
	int64_t top = c->m[c->valid];

	/* the bounds are clamped into [0, top]: below the range they still interpolate towards 0 */
	if (fp_curve_invert(c, m - ci < 0 ? 0 : m - ci, ci, lo) == FP_INV_SATURATED)
		*lo = *k;
	if (fp_curve_invert(c, m + ci > top ? top : m + ci, ci, hi) == FP_INV_SATURATED)
		*hi = *k;
	return inv;
}

/* The per-line unit of the measure and whether the level shows at all. Time: cold - K0 per
 * line, a cache effect when a cold lap is at least 1/EFFECT_DEN slower than a warm one. Counted:
 * one miss is one line (cost FP_MILLI); the event must see at least 1/PMU_EFFECT_DEN of the lines
 * of a cold re-touch as misses, else it does not count what the level displaced. */
static void set_cost(struct fp_level *lv, const struct fp_run *run, int64_t warm_m, bool emulated)
{
	int64_t per_line = run->est[0].mean_m / (int64_t)lv->nodes;

	if (lv->pmu->counted) {
		lv->cold_mpl_m = per_line;
		lv->cost_m = FP_MILLI;
		lv->effect = per_line * PMU_EFFECT_DEN >= FP_MILLI;
		return;
	}
	lv->cost_m = per_line;
	lv->effect = run->est[0].mean_m * EFFECT_DEN >= warm_m && lv->cost_m > 0 && !emulated;
}

/* The footprint_k check's skip where the level shows no effect to measure: the miss event does
 * not count its misses, or a miss costs no more than a hit (unmodelled: why, where the caches
 * are not modelled at all, e.g. under emulation; else NULL). */
static void emit_no_effect(const struct fp_level *lv, const char *unmodelled)
{
	struct record *r = emit_start("skip");

	rec_str(r, "probe", "irq_footprint");
	rec_str(r, "check", "footprint_k");
	rec_u64(r, "level", lv->c->level);
	rec_str(r, "type", fp_type_name(lv));
	if (lv->pmu->counted) {
		rec_str(r, "event", lv->pmu->event);
		rec_i64(r, "cold_mpl_milli", lv->cold_mpl_m);
		rec_str(r, "reason", "the miss event counts fewer than half the lines of a cold re-touch "
				     "(cold_mpl_milli: milli-misses per line, cold minus warm re-touch): it does "
				     "not count this level's misses");
	} else {
		rec_i64(r, "cost_mcyc", lv->cost_m);
		rec_str(r, "reason", unmodelled ? unmodelled
						: "no cache effect at this level: a miss costs no more than a hit (cost_mcyc: "
						  "milli-cycles per line, cold minus warm re-touch)");
	}
	emit_finish();
}

bool fp_calibrate(struct probe_env *env, struct fp_level *lv, unsigned *fails)
{
	unsigned nvar = 1 + lv->n_grid + lv->n_held;
	uint64_t deadline = fp_deadline(env);
	const char *unmodelled = arch_caches_unmodelled(env->cpu);
	bool emulated = unmodelled != NULL;
	struct fp_run run;
	int64_t warm_m;

	if (!fp_run_init(env, &run, nvar, FP_SAMPLE_CAP)) {
		emit_skip("irq_footprint", "calibration sample buffers do not fit in the arena");
		return false;
	}
	for (unsigned col = 0; col < nvar; col++)
		run.ref[col] = col == 1 ? -1 : 1; /* paired with the K = 0 call */
	(void)calib_sample(lv, (uint64_t[FP_VAR_MAX]){ 0 }); /* warm-up, not kept */
	fp_repeat(&run, calib_sample, lv, env->cfg->irq_fp_samples, deadline, false);
	warm_m = run.est[1].mean_m;
	set_cost(lv, &run, warm_m, emulated);
	if (lv->effect) { /* the paper's repetition: until the CI bound or the time limit */
		run.floor_m = lv->cost_m;
		fp_repeat(&run, calib_sample, lv, env->cfg->irq_fp_samples, deadline, true);
		set_cost(lv, &run, warm_m, emulated);
		lv->effect = true; /* decided on the first batch */
	}
	lv->curve = (struct fp_curve){ .n = lv->n_grid };
	for (unsigned i = 0; i < lv->n_grid; i++) {
		lv->curve.k[i] = lv->k_grid[i];
		lv->curve.m[i] = i ? fp_lines_m(lv, run.est[1 + i].mean_m) : 0;
		lv->curve.ci[i] = i ? fp_lines_m(lv, run.est[1 + i].ci_m) : 0;
	}
	fp_curve_saturation(&lv->curve);
	emit_calib_set(env, lv, &run, 0, "cold", 0, 0, 0);
	for (unsigned i = 0; i < lv->n_grid; i++)
		emit_calib_set(env, lv, &run, 1 + i, "calib", lv->k_grid[i], lv->curve.m[i], lv->curve.ci[i]);
	for (unsigned i = 0; i < lv->n_held; i++) {
		unsigned col = 1 + lv->n_grid + i;

		emit_calib_set(env, lv, &run, col, "heldout", lv->k_held[i], fp_lines_m(lv, run.est[col].mean_m),
			       fp_lines_m(lv, run.est[col].ci_m));
	}
	if (!lv->effect) {
		emit_no_effect(lv, unmodelled);
		return false;
	}
	for (unsigned i = 0; i < lv->n_held; i++) {
		unsigned col = 1 + lv->n_grid + i;
		int64_t m = fp_lines_m(lv, run.est[col].mean_m), ci = fp_lines_m(lv, run.est[col].ci_m), k, lo, hi;
		enum fp_inv inv = fp_recover(&lv->curve, m, ci, &k, &lo, &hi);
		bool conv = fp_converged(&run.est[col], run.n, run.floor_m);
		enum fp_verdict v = fp_judge(&lv->curve, lv->k_held[i], inv, k, lo, hi, conv);

		*fails += v == FP_FAIL;
		emit_check(lv, lv->k_held[i], &run.est[col], m, ci, v, inv, k, lo, hi, conv);
	}
	return true;
}
