/* Cache fill routines and the `cachefill` probe (see cachefill.h). */
#include "bench/cachefill.h"

#include "arch/cycles.h"
#include "arch/membw.h"
#include "bench/chain.h"
#include "bench/probe.h"
#include "lib/emit.h"
#include "lib/fmt.h"


#define EVICT_FACTOR 2 /* an eviction walk covers twice the largest cache */
#define EVICT_STRIDE 64

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
	volatile uint8_t *buf;
	uint64_t size;
	bool wbinvd;
};

/* Cold start: on bare metal write back and invalidate everything; hosted, walk a buffer twice the
 * largest cache so the fill's lines are displaced. */
static void evict(const struct evictor *e)
{
	if (e->wbinvd) {
		arch_cache_flush_all();
		return;
	}
	for (uint64_t i = 0; i < e->size; i += EVICT_STRIDE)
		e->buf[i]++;
}

/* One warm-up, then per sample: evict, time a cold fill, time the warm fill right after it. */
static void time_fills(const struct evictor *ev, void (*fill)(const struct cache_fill *),
		       const struct cache_fill *f, uint64_t n, uint64_t *cold, uint64_t *warm)
{
	fill(f);
	for (uint64_t s = 0; s < n; s++) {
		uint64_t t0;

		evict(ev);
		t0 = tsc_begin();
		fill(f);
		cold[s] = tsc_end() - t0;
		t0 = tsc_begin();
		fill(f);
		warm[s] = tsc_end() - t0;
	}
}

static void emit_pair(struct probe_env *env, const struct cache_desc *c, const char *type,
		      uint64_t size, uint64_t nodes, uint64_t *cold, uint64_t *warm, const char *evict_how)
{
	static const char *const states[] = { "cold", "warm" };
	uint64_t *sets[] = { cold, warm };

	for (int s = 0; s < 2; s++) {
		struct record *r;
		uint32_t set = probe_declare_set(env, &r, "cachefill", env->cfg->samples, nodes, env->timer_overhead);

		rec_u64(r, "level", c->level);
		rec_str(r, "type", type);
		rec_u64(r, "size", size);
		rec_u64(r, "line", c->line);
		rec_str(r, "state", states[s]);
		rec_str(r, "evict", evict_how);
		emit_finish();
		emit_samples(set, sets[s], env->cfg->samples);
	}
}

static enum probe_status cachefill_run(struct probe_env *env)
{
	const struct cpu_info *ci = env->cpu;
	uint64_t n = env->cfg->samples, largest = 0;
	uint64_t *cold = probe_sample_buffer(env, n), *warm = probe_sample_buffer(env, n);
	struct evictor ev = { 0, 0, env->traps };
	struct rand_state rng;
	unsigned done = 0;

	if (!cold || !warm) {
		emit_skip("cachefill", "sample buffers do not fit in the arena");
		return PROBE_SKIPPED;
	}
	if (!ci->num_caches) {
		emit_skip("cachefill", "CPUID describes no caches");
		return PROBE_SKIPPED;
	}
	for (unsigned i = 0; i < ci->num_caches; i++)
		if (ci->caches[i].size > largest)
			largest = ci->caches[i].size;
	if (!ev.wbinvd) {
		ev.size = largest * EVICT_FACTOR;
		ev.buf = arena_alloc(env->arena, ev.size, 4096);
		if (!ev.buf) {
			emit_skip("cachefill", "no room for the eviction buffer");
			return PROBE_SKIPPED;
		}
	}
	rand_seed(&rng, env->cfg->seed);
	for (unsigned i = 0; i < ci->num_caches; i++) {
		const struct cache_desc *c = &ci->caches[i];
		struct cache_fill f;
		size_t mark = arena_mark(env->arena);
		void *buf;

		if (!c->line || c->size % c->line) {
			emit_skip("cachefill", "cache geometry from CPUID is incomplete");
			continue;
		}
		if (c->type == CACHE_INST) {
			if (!env->exec_arena) {
				emit_skip("cachefill", "no executable memory for the instruction-cache chain");
				continue;
			}
			size_t emark = arena_mark(env->exec_arena);

			buf = arena_alloc(env->exec_arena, c->size, 4096);
			if (!buf || !cachefill_inst_prepare(&f, buf, c->size, c->line)) {
				emit_skip("cachefill", "instruction-cache chain does not fit in executable memory");
				arena_release(env->exec_arena, emark);
				continue;
			}
			time_fills(&ev, cachefill_inst_run, &f, n, cold, warm);
			emit_pair(env, c, "inst", c->size, f.nodes, cold, warm, ev.wbinvd ? "wbinvd" : "walk");
			arena_release(env->exec_arena, emark);
			done++;
			continue;
		}
		buf = arena_alloc(env->arena, c->size, 4096);
		if (!buf) {
			emit_skip("cachefill", "data chain does not fit in the arena");
			continue;
		}
		cachefill_data_prepare(&f, buf, c->size, c->line, &rng);
		time_fills(&ev, cachefill_data_touch, &f, n, cold, warm);
		emit_pair(env, c, c->type == CACHE_DATA ? "data" : "unified", c->size, f.nodes, cold, warm,
			  ev.wbinvd ? "wbinvd" : "walk");
		arena_release(env->arena, mark);
		done++;
	}
	return done ? PROBE_OK : PROBE_SKIPPED;
}

const struct probe_desc probe_cachefill = {
	.name = "cachefill",
	.what = "fill each cache level exactly (data chain, I-cache branch chain), cold and warm",
	.run = cachefill_run,
};
