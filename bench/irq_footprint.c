/* Probe `irq_footprint`: how many cache lines one interrupt displaces (Schaelicke et al., the
 * refined experiment), validated with handlers of known footprint.
 *
 * Per cache level (L1D, L2, and the L1 instruction cache with the branch-chain fill): fill the
 * level with a chain of exactly its size (two laps), let exactly one interrupt happen (a self-IPI
 * sent with interrupts masked, taken in a window opened and closed right after), then time one
 * more lap: the re-touch. The idle baseline does the same without the IPI. Handlers: minimal
 * (K = 0) and touching K = 16, 64, 256 lines of their own buffer (data levels) or running a
 * K-line branch chain (instruction cache). Extra re-touch time over the baseline is converted to
 * lines by the per-line cost measured here: a lap after evicting the level (a walk over twice its
 * size, so the lines come from the next level) minus a warm lap, per line. Raw lap times are
 * emitted; the conversion is the harness's.
 *
 * Where a PMU counts the level's misses, every re-touch also carries its miss count (a `ctr`
 * record per re-touch set, counter set footprint_l1d / _l1i / _l2): displaced lines = misses after
 * the interrupt minus the idle baseline's, with no time conversion at all (method=pmu). Variants
 * are interleaved per sample so drift affects them alike. */
#include "arch/cycles.h"
#include "arch/icache.h"
#include "arch/membw.h"
#include "bench/chain.h"
#include "bench/counters.h"
#include "bench/irq_common.h"
#include "lib/emit.h"

#define EVICT_FACTOR 2
static const unsigned known_k[] = { 0, 16, 64, 256 };
#define NUM_K (sizeof(known_k) / sizeof(known_k[0]))
#define NUM_VARIANTS (NUM_K + 1) /* variant 0: the idle baseline (no interrupt) */
#define MAX_K 256

struct fp_level {
	const struct cache_desc *c;
	bool inst;
	void *head, *evict_head;          /* data chains */
	icache_chain_fn code, evict_code; /* instruction chains */
	icache_chain_fn kcode[NUM_K];     /* the handlers' known-footprint code */
	uint64_t nodes;
};

struct fp_handler {
	const struct fp_level *lv;
	volatile uint8_t *buf;
	unsigned k; /* index into known_k */
	volatile uint64_t hits;
};

static void fp_handler_fn(void *ctx, uint64_t entry_tsc)
{
	struct fp_handler *h = ctx;

	(void)entry_tsc;
	h->hits++;
	if (h->lv->inst)
		h->lv->kcode[h->k]();
	else
		irq_work_touch(h->buf, known_k[h->k], h->lv->c->line);
}

static void lap(const struct fp_level *lv)
{
	if (lv->inst)
		lv->code();
	else
		(void)arch_chase(lv->head, lv->nodes);
}

static void evict(const struct fp_level *lv)
{
	if (lv->inst)
		lv->evict_code();
	else
		(void)arch_chase(lv->evict_head, lv->nodes * EVICT_FACTOR);
}

static uint64_t timed_lap(const struct fp_level *lv)
{
	uint64_t t0 = tsc_begin();

	lap(lv);
	return tsc_end() - t0;
}

static uint64_t timed_lap_ctr(void *ctx, uint64_t iters)
{
	(void)iters;
	return timed_lap(ctx);
}

static const char *fp_ctr_set(const struct fp_level *lv)
{
	if (lv->inst)
		return CTR_SET_FOOTPRINT_L1I;
	return lv->c->level == 1 ? CTR_SET_FOOTPRINT_L1D : CTR_SET_FOOTPRINT_L2;
}

/* Counter state per re-touch variant. All count the same single event on the same counter, so
 * programming them one after the other leaves that counter counting for every one of them; each
 * keeps its own values and measured overhead. True when the misses are counted. */
static bool fp_counters(struct probe_env *env, const struct fp_level *lv, struct ctr_run *cr[NUM_VARIANTS])
{
	bool all = true;

	for (unsigned var = 0; var < NUM_VARIANTS; var++) {
		cr[var] = arena_alloc(env->arena, sizeof(struct ctr_run), 64);
		all = cr[var] && ctr_prepare(cr[var], env, "irq_footprint", fp_ctr_set(lv), env->cfg->irq_fp_samples) == 1 && all;
	}
	for (unsigned var = 0; var < NUM_VARIANTS; var++) {
		if (!cr[var])
			continue;
		if (!all)
			cr[var]->active = false; /* all or none: the variants are compared with each other */
		else
			ctr_pass_begin(cr[var], 0);
	}
	return all;
}

static bool prepare(struct probe_env *env, struct fp_level *lv, const struct cache_desc *c, bool inst,
		    struct rand_state *rng)
{
	uint64_t size = c->size, line = c->line;

	*lv = (struct fp_level){ .c = c, .inst = inst, .nodes = size / line };
	if (inst) {
		void *a = env->exec_arena ? arena_alloc(env->exec_arena, size, 4096) : 0;
		void *b = env->exec_arena ? arena_alloc(env->exec_arena, size * EVICT_FACTOR, 4096) : 0;

		if (!a || !b)
			return false;
		lv->code = icache_chain_build(a, size, line);
		lv->evict_code = icache_chain_build(b, size * EVICT_FACTOR, line);
		for (unsigned k = 0; k < NUM_K; k++) {
			uint64_t kb = (known_k[k] ? known_k[k] : 1) * line;
			void *kc = arena_alloc(env->exec_arena, kb, 4096);

			if (!kc)
				return false;
			/* K = 0: a single return (one line: the call itself) */
			lv->kcode[k] = icache_chain_build(kc, kb, line);
		}
		return lv->code && lv->evict_code;
	}
	{
		void *a = arena_alloc(env->arena, size, 4096);
		void *b = arena_alloc(env->arena, size * EVICT_FACTOR, 4096);

		if (!a || !b)
			return false;
		lv->head = chain_build_random(a, (size_t)lv->nodes, line, rng);
		lv->evict_head = chain_build_random(b, (size_t)(lv->nodes * EVICT_FACTOR), line, rng);
	}
	return true;
}

static void emit_fp(struct probe_env *env, const struct fp_level *lv, const char *what, const char *variant,
		    int k, uint64_t *v, uint64_t n, uint64_t taken, struct ctr_run *cr)
{
	struct record *r;
	uint32_t set = probe_declare_set(env, &r, "irq_footprint", n, 1, env->timer_overhead);

	rec_u64(r, "level", lv->c->level);
	rec_str(r, "type", lv->inst ? "inst" : lv->c->type == CACHE_DATA ? "data" : "unified");
	rec_u64(r, "size", lv->c->size);
	rec_u64(r, "line", lv->c->line);
	rec_u64(r, "nodes", lv->nodes);
	rec_str(r, "what", what);
	if (variant)
		rec_str(r, "variant", variant);
	if (k >= 0) {
		rec_u64(r, "k", (uint64_t)k);
		rec_u64(r, "taken", taken);
	}
	rec_str(r, "method", cr && cr->active ? "pmu" : "time");
	rec_str(r, "source", irq_source_name(IRQ_SRC_SELF_IPI));
	ctr_finish_set(cr, r, set, v, n);
}

static const char *const variant_names[NUM_VARIANTS] = { "baseline", "k0", "k16", "k64", "k256" };

static bool run_level(struct probe_env *env, struct fp_level *lv, volatile uint8_t *kbuf, uint64_t **v)
{
	uint64_t n = env->cfg->irq_fp_samples, taken[NUM_VARIANTS] = { 0 };
	struct fp_handler h = { lv, kbuf, 0, 0 };
	struct irq_platform *p = env->irq;
	struct ctr_run *cr[NUM_VARIANTS];
	bool ok = true, counted = fp_counters(env, lv, cr);

	irq_register(IRQ_VEC_IPI, fp_handler_fn, &h);
	for (uint64_t s = 0; s <= n; s++) { /* s == 0: warm-up, not kept */
		uint64_t cold, warm;

		evict(lv);
		cold = timed_lap(lv);
		warm = timed_lap(lv);
		if (s) {
			v[0][s - 1] = cold;
			v[1][s - 1] = warm;
		}
		for (unsigned var = 0; var < NUM_VARIANTS; var++) {
			uint64_t before = h.hits, t;

			h.k = var ? var - 1 : 0;
			lap(lv);
			lap(lv);
			if (var)
				(void)irq_source_arm(p, IRQ_SRC_SELF_IPI, IRQ_VEC_IPI, 0, 0);
			/* The window: the pending IPI (if any) is taken here, nothing else is armed. */
			irq_enable();
			cpu_relax();
			irq_disable();
			t = counted && s ? ctr_sample(cr[var], 0, s - 1, timed_lap_ctr, (void *)lv, 1) : timed_lap(lv);
			if (h.hits - before != (var ? 1u : 0u))
				ok = false;
			if (s) {
				v[2 + var][s - 1] = t;
				taken[var] += h.hits - before;
			}
		}
	}
	irq_unregister(IRQ_VEC_IPI);
	for (unsigned var = 0; counted && var < NUM_VARIANTS; var++)
		ctr_pass_end(cr[var], 0);
	emit_fp(env, lv, "cold", 0, -1, v[0], n, 0, 0);
	emit_fp(env, lv, "warm", 0, -1, v[1], n, 0, 0);
	for (unsigned var = 0; var < NUM_VARIANTS; var++)
		emit_fp(env, lv, "retouch", variant_names[var], var ? (int)known_k[var - 1] : 0, v[2 + var], n,
			taken[var], cr[var]);
	return ok;
}

static enum probe_status irq_footprint_run(struct probe_env *env)
{
	const char *why = irq_probe_unavailable(env);
	const struct cpu_info *ci = env->cpu;
	uint64_t *v[2 + NUM_VARIANTS];
	volatile uint8_t *kbuf;
	struct rand_state rng;
	unsigned done = 0, bad = 0;

	if (why) {
		emit_skip("irq_footprint", why);
		return PROBE_SKIPPED;
	}
	if (!irq_probe_begin(env, "irq_footprint"))
		return PROBE_FAILED;
	for (unsigned i = 0; i < 2 + NUM_VARIANTS; i++)
		if (!(v[i] = probe_sample_buffer(env, env->cfg->irq_fp_samples)))
			why = "sample buffers do not fit in the arena";
	kbuf = arena_alloc(env->arena, MAX_K * 128, 4096);
	if (why || !kbuf) {
		emit_skip("irq_footprint", why ? why : "handler buffer does not fit in the arena");
		return PROBE_SKIPPED;
	}
	rand_seed(&rng, env->cfg->seed);
	for (unsigned i = 0; i < ci->num_caches; i++) {
		const struct cache_desc *c = &ci->caches[i];
		bool inst = c->type == CACHE_INST;
		size_t mark = arena_mark(env->arena), emark = env->exec_arena ? arena_mark(env->exec_arena) : 0;
		struct fp_level lv;

		if (c->level > 2 || (inst && c->level != 1) || !c->line || c->size % c->line || c->line > 128)
			continue;
		if (!prepare(env, &lv, c, inst, &rng)) {
			struct record *r = emit_start("skip");

			rec_str(r, "probe", "irq_footprint");
			rec_u64(r, "level", c->level);
			rec_str(r, "type", inst ? "inst" : "data");
			rec_str(r, "reason", inst && !env->exec_arena ? "no executable memory for the branch chains"
									: "chains do not fit in the arena");
			emit_finish();
		} else {
			bad += !run_level(env, &lv, kbuf, v);
			done++;
		}
		arena_release(env->arena, mark);
		if (env->exec_arena)
			arena_release(env->exec_arena, emark);
	}
	if (!done) {
		emit_skip("irq_footprint", "CPUID describes no L1/L2 cache to fill");
		return PROBE_SKIPPED;
	}
	if (bad)
		emit_msg(MSG_ERROR, "irq_footprint: a window did not take exactly the one interrupt sent");
	return bad ? PROBE_FAILED : PROBE_OK;
}

const struct probe_desc probe_irq_footprint = {
	.name = "irq_footprint",
	.what = "cache lines one interrupt displaces (L1D, L2, L1I), known-K handlers, idle baseline",
	.run = irq_footprint_run,
	.cleanup = irq_probe_cleanup,
};
