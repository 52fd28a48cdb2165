/* Cache fill routines and the `cachefill` probe (see cachefill.h). */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "bench/probes/mem/cachefill.h"

#include "arch/cache_model.h"
#include "arch/cycles.h"
#include "arch/membw.h"
#include "bench/probes/mem/evict_method.h"
#include "bench/probes/mem/chain.h"
#include "bench/core/counters.h"
#include "bench/core/probe.h"
#include "lib/emit.h"
#include "lib/fmt.h"
#include "lib/sort.h"


#define EVICT_STRIDE_DEFAULT 64 /* where no cache gives its line (none is read then) */
#define EVICT_STRIDE_MIN 16     /* no cache line is smaller (a smaller value is a bad CPUID) */

void cachefill_data_prepare(struct cache_fill *f, void *buf, uint64_t size, unsigned line,
			    struct rand_state *rng)
{
	f->nodes = (size_t)(size / line);
	f->head = chain_build_random(buf, f->nodes, line, rng);
	f->code = 0;
}

void cachefill_data_touch(const struct cache_fill *f)
{
	arch_chase(f->head, f->nodes);
}

bool cachefill_inst_prepare(struct cache_fill *f, void *exec_buf, uint64_t size, unsigned line)
{
	f->head = 0;
	f->nodes = (size_t)(size / line);
	f->code = icache_chain_build(exec_buf, (size_t)size, line);
	return f->code != 0;
}

void cachefill_inst_run(const struct cache_fill *f)
{
	f->code();
}

struct evictor {
	enum evict_method how;
	volatile uint8_t *buf;  /* EVICT_WALK: the buffer walked */
	uint64_t size;
	unsigned stride;        /* EVICT_WALK: the smallest line of the caches, so every line is touched */
	const void *target;     /* EVICT_BY_ADDRESS: the fill's own buffer */
	uint64_t target_size;
	bool code;              /* the target is code (the instruction caches too) */
};

/* Cold start, by the method evict_method_choose() picked (see evict_method.h). */
static void evict(const struct evictor *e)
{
	if (e->how == EVICT_FLUSH_ALL) {
		arch_cache_flush_all();
		return;
	}
	if (e->how == EVICT_BY_ADDRESS) {
		arch_cache_evict_range(e->target, e->target_size, e->code);
		return;
	}
	for (uint64_t i = 0; i < e->size; i += e->stride)
		e->buf[i]++;
}

static const char *evict_name(const struct evictor *e)
{
	return e->how == EVICT_FLUSH_ALL ? ARCH_CACHE_FLUSH_NAME : e->how == EVICT_BY_ADDRESS ? ARCH_CACHE_EVICT_NAME : "walk";
}

/* A cold fill must take longer than a warm one (the eviction worked): one check record per level
 * (evict_check_status says when it cannot judge). `last`: the largest data/unified level. */
static void check_cold_slower(struct probe_env *env, const struct cache_desc *c, const char *type,
			      const struct evictor *ev, uint64_t *out[2], bool last)
{
	uint64_t n = env->cfg->samples, cold, warm;
	const char *why, *status;
	struct record *r;

	sort_u64(out[0], n);
	sort_u64(out[1], n);
	cold = out[0][n / 2];
	warm = out[1][n / 2];
	status = evict_check_status(cold, warm, last && c->type != CACHE_INST, arch_caches_unmodelled(env->cpu), &why);
	r = emit_start("check");
	rec_str(r, "name", "cold_slower_than_warm");
	rec_str(r, "probe", "cachefill");
	rec_u64(r, "level", c->level);
	rec_str(r, "type", type);
	rec_str(r, "evict", evict_name(ev));
	rec_str(r, "expected", "cold_median>warm_median");
	rec_u64(r, "cold_median", cold);
	rec_u64(r, "warm_median", warm);
	rec_i64(r, "measured", (int64_t)(cold - warm));
	rec_str(r, "status", status);
	rec_str(r, "reason", why ? why : "none"); /* always: one layout whatever the status */
	emit_finish();
}

/* One warm-up, then per sample: evict, time a cold fill, time the warm fill right after it. */
static void time_fills(const struct evictor *ev, void (*fill)(const struct cache_fill *),
		       const struct cache_fill *f, uint64_t n, uint64_t *cold, uint64_t *warm)
{
	fill(f);
	for (uint64_t s = 0; s < n; s++) {
		uint64_t t0;

		evict(ev);
		t0 = cycles_begin();
		fill(f);
		cold[s] = cycles_end() - t0;
		t0 = cycles_begin();
		fill(f);
		warm[s] = cycles_end() - t0;
	}
}

enum { STATE_COLD, STATE_WARM, NUM_STATES };

struct fill_ctx {
	const struct evictor *ev;
	void (*fill)(const struct cache_fill *);
	const struct cache_fill *f;
	int state;
};

static uint64_t timed_fill(void *ctx, uint64_t iters)
{
	const struct fill_ctx *c = ctx;
	uint64_t t0 = cycles_begin();

	(void)iters;
	c->fill(c->f);
	return cycles_end() - t0;
}

/* Before each counted sample, outside the counted window: cold = evict; warm = one more fill,
 * so the timed one comes right after a fill, as in time_fills. */
static void fill_prepare(void *ctx)
{
	const struct fill_ctx *c = ctx;

	if (c->state == STATE_COLD)
		evict(c->ev);
	else
		c->fill(c->f);
}

/* The cold and warm samples of one level into out[state]. With counters each state is a run of
 * its own (its deltas then belong to it alone: the eviction and the preceding fill stay outside
 * the counted window); without, the paired loop above. */
static void measure_fills(struct probe_env *env, const struct evictor *ev, void (*fill)(const struct cache_fill *),
			  const struct cache_fill *f, struct ctr_run *cr[NUM_STATES], const char *ctr_set,
			  uint64_t *out[NUM_STATES])
{
	uint64_t n = env->cfg->samples;
	unsigned passes[NUM_STATES] = { 0, 0 };

	for (int s = 0; s < NUM_STATES; s++)
		passes[s] = cr[s] ? ctr_prepare(cr[s], env, "cachefill", ctr_set, n) : 0;
	if (!passes[STATE_COLD] || !passes[STATE_WARM]) {
		for (int s = 0; s < NUM_STATES; s++)
			if (cr[s])
				cr[s]->active = false; /* both or neither: the records stay paired */
		time_fills(ev, fill, f, n, out[STATE_COLD], out[STATE_WARM]);
		return;
	}
	for (int s = 0; s < NUM_STATES; s++) {
		struct fill_ctx c = { ev, fill, f, s };

		cr[s]->prepare = fill_prepare;
		for (unsigned p = 0; p < passes[s]; p++) {
			ctr_pass_begin(cr[s], p);
			fill(f); /* warm-up */
			for (uint64_t i = 0; i < n; i++) {
				uint64_t t = ctr_sample(cr[s], p, i, timed_fill, &c, 1);

				if (p == 0)
					out[s][i] = t;
			}
			ctr_pass_end(cr[s], p);
		}
	}
}

/* Counter state per fill state, from the arena (released with the level); NULL when there is no
 * room: that state is then measured without counters, as when none were asked for. */
static void alloc_ctr(struct probe_env *env, struct ctr_run *cr[NUM_STATES])
{
	for (int s = 0; s < NUM_STATES; s++)
		cr[s] = arena_alloc(env->arena, sizeof(struct ctr_run), 64);
}

static void emit_pair(struct probe_env *env, const struct cache_desc *c, const char *type, uint64_t size,
		      uint64_t nodes, uint64_t *out[NUM_STATES], struct ctr_run *cr[NUM_STATES], const struct evictor *ev)
{
	static const char *const states[] = { "cold", "warm" };

	for (int s = 0; s < NUM_STATES; s++) {
		struct record *r;
		uint32_t set = probe_declare_set(env, &r, "cachefill", env->cfg->samples, nodes, env->timer_overhead);

		rec_u64(r, "level", c->level);
		rec_str(r, "type", type);
		rec_u64(r, "size", size);
		rec_u64(r, "line", c->line);
		rec_str(r, "state", states[s]);
		rec_str(r, "evict", evict_name(ev));
		if (ev->how == EVICT_WALK) /* the walk's size: twice the largest cache, or capped */
			rec_u64(r, "evict_bytes", ev->size);
		ctr_finish_set(cr[s], r, set, out[s], env->cfg->samples);
	}
}

/* The instruction cache c: a chain of code in executable memory, filled cold and warm, its pair
 * of sets emitted; false (with a skip record) where the chain cannot be built. */
static bool fill_inst(struct probe_env *env, const struct cache_desc *c, struct evictor *ev,
		      uint64_t *out[NUM_STATES])
{
	struct cache_fill f;
	struct ctr_run *cr[NUM_STATES];
	size_t emark;
	void *buf;

	if (!env->exec_arena) {
		emit_skip("cachefill", "no executable memory for the instruction-cache chain");
		return false;
	}
	emark = arena_mark(env->exec_arena);
	buf = arena_alloc(env->exec_arena, c->size, 4096);
	if (!buf || !cachefill_inst_prepare(&f, buf, c->size, c->line)) {
		emit_skip("cachefill", "instruction-cache chain does not fit in executable memory");
		arena_release(env->exec_arena, emark);
		return false;
	}
	alloc_ctr(env, cr);
	ev->target = buf;
	ev->target_size = c->size;
	ev->code = true;
	measure_fills(env, ev, cachefill_inst_run, &f, cr, CTR_SET_ICACHE, out);
	emit_pair(env, c, "inst", c->size, f.nodes, out, cr, ev);
	check_cold_slower(env, c, "inst", ev, out, false); /* after the samples went out: it sorts them */
	arena_release(env->exec_arena, emark);
	return true;
}

/* A level not measured: its level, type and the reason. */
static void level_skip(const struct cache_desc *c, const char *reason)
{
	struct record *r = emit_start("skip");

	rec_str(r, "probe", "cachefill");
	rec_u64(r, "level", c->level);
	rec_str(r, "type", c->type == CACHE_INST ? "inst" : c->type == CACHE_DATA ? "data" : "unified");
	rec_str(r, "reason", reason);
	emit_finish();
}

#define WALK_ARENA_RESERVE (1024 * 1024) /* arena room kept for the counter runs */

/* The eviction walk's buffer (evict_walk_size): twice the largest cache, or what the arena holds;
 * false (a skip record) when nothing fits. A capped walk is said in a message: the levels it
 * cannot evict are skipped one by one. */
static bool setup_walk(struct probe_env *env, struct evictor *ev, uint64_t largest)
{
	uint64_t free_bytes = env->arena->size - env->arena->used;
	bool capped;
	char text[160];
	struct sbuf sb;

	free_bytes = free_bytes > WALK_ARENA_RESERVE ? free_bytes - WALK_ARENA_RESERVE : 0;
	ev->size = evict_walk_size(largest, free_bytes, &capped);
	ev->buf = ev->size ? arena_alloc(env->arena, ev->size, EVICT_WALK_ALIGN) : 0;
	if (!ev->buf) {
		emit_skip("cachefill", "no room for the eviction buffer");
		return false;
	}
	if (capped) {
		sb_init(&sb, text, sizeof(text));
		sb_puts(&sb, "cachefill: eviction walk capped by the arena to ");
		sb_u64(&sb, ev->size);
		sb_puts(&sb, " bytes (wanted twice the largest cache; raise arena_mb)");
		emit_msg(MSG_INFO, text);
	}
	return true;
}

/* The largest data or unified level measured (the walk evicts it): its check is the last level's. */
static uint64_t last_size(const struct cpu_info *ci, const struct evictor *ev)
{
	uint64_t last = 0;

	for (unsigned i = 0; i < ci->num_caches; i++) {
		const struct cache_desc *c = &ci->caches[i];

		if (c->type != CACHE_INST && !c->geometry_unknown && c->size > last &&
		    (ev->how != EVICT_WALK || evict_walk_covers(ev->size, c->size)))
			last = c->size;
	}
	return last;
}

static enum probe_status cachefill_run(struct probe_env *env)
{
	const struct cpu_info *ci = env->cpu;
	uint64_t n = env->cfg->samples, largest = 0;
	uint64_t *out[NUM_STATES] = { probe_sample_buffer(env, n), probe_sample_buffer(env, n) };
	struct evictor ev = { .how = evict_method_choose(env->traps, ci->hypervisor, ARCH_CACHE_FLUSH_ALL_TRUSTED) };
	struct rand_state rng;
	unsigned done = 0;

	if (!out[STATE_COLD] || !out[STATE_WARM]) {
		emit_skip("cachefill", "sample buffers do not fit in the arena");
		return PROBE_SKIPPED;
	}
	if (!ci->num_caches) {
		emit_skip("cachefill", "CPUID describes no caches");
		return PROBE_SKIPPED;
	}
	ev.stride = EVICT_STRIDE_DEFAULT;
	for (unsigned i = 0; i < ci->num_caches; i++) {
		if (ci->caches[i].size > largest)
			largest = ci->caches[i].size;
		/* a 64-byte stride would leave every other line of a 32-byte-line cache untouched */
		if (ci->caches[i].line >= EVICT_STRIDE_MIN && ci->caches[i].line < ev.stride)
			ev.stride = ci->caches[i].line;
	}
	if (ev.how == EVICT_WALK && !setup_walk(env, &ev, largest))
		return PROBE_SKIPPED;
	rand_seed(&rng, env->cfg->seed);
	for (unsigned i = 0; i < ci->num_caches; i++) {
		const struct cache_desc *c = &ci->caches[i];
		struct cache_fill f;
		size_t mark = arena_mark(env->arena);
		struct ctr_run *cr[NUM_STATES];
		void *buf;

		if (c->geometry_unknown) { /* no size to fill: the level is left out, saying why */
			level_skip(c, c->geometry_unknown);
			continue;
		}
		if (!c->line || c->size % c->line) {
			emit_skip("cachefill", "cache geometry from CPUID is incomplete");
			continue;
		}
		if (ev.how == EVICT_WALK && !evict_walk_covers(ev.size, c->size)) {
			level_skip(c, "the eviction walk, capped to what the arena holds, covers less than "
				      "twice this level: a cold fill could not be told from a warm one (raise arena_mb)");
			continue;
		}
		if (c->type == CACHE_INST) {
			done += fill_inst(env, c, &ev, out);
			arena_release(env->arena, mark);
			continue;
		}
		buf = arena_alloc(env->arena, c->size, 4096);
		if (!buf) {
			emit_skip("cachefill", "data chain does not fit in the arena");
			continue;
		}
		cachefill_data_prepare(&f, buf, c->size, c->line, &rng);
		alloc_ctr(env, cr);
		ev.target = buf;
		ev.target_size = c->size;
		ev.code = false;
		measure_fills(env, &ev, cachefill_data_touch, &f, cr, ctr_latency_set(ci, c->size), out);
		emit_pair(env, c, c->type == CACHE_DATA ? "data" : "unified", c->size, f.nodes, out, cr, &ev);
		check_cold_slower(env, c, c->type == CACHE_DATA ? "data" : "unified", &ev, out, c->size == last_size(ci, &ev));
		arena_release(env->arena, mark);
		done++;
	}
	return done ? PROBE_OK : PROBE_SKIPPED;
}

const struct probe_desc probe_cachefill = {
	.name = "cachefill",
	.what = "fill each cache level exactly (data chain, I-cache branch chain), cold and warm",
	.run = cachefill_run,
	.options = "samples,pmu_events,seed",
};
