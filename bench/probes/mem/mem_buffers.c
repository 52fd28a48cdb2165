/* Memory probe buffers and sweep (see mem_buffers.h). */
#include "bench/probes/mem/mem_buffers.h"

#include "lib/emit.h"
#include "lib/fmt.h"

#define KIB 1024ull
#define MIB (1024ull * 1024)
#define DEFAULT_MAX_FLOOR (256 * MIB)
#define BUFFER_ALIGN 4096
#define DST_SKEW (4096 + 64)
/* Arena room kept for sample buffers and chains' bookkeeping. */
#define ARENA_RESERVE (8 * MIB)

static size_t cache_sizes(const struct cpu_info *ci, uint64_t *out)
{
	size_t n = 0;

	for (unsigned i = 0; i < ci->num_caches; i++)
		if (ci->caches[i].type != CACHE_INST && !ci->caches[i].geometry_unknown)
			out[n++] = ci->caches[i].size;
	return n;
}

/* A data cache without a known size gives the sweep no dense points and no say in its upper end:
 * the probe says so once (the half-octave steps and the 256 MiB floor, sweep.h, still apply). */
static void say_unknown_caches(const struct cpu_info *ci, const char *probe)
{
	for (unsigned i = 0; i < ci->num_caches; i++) {
		const struct cache_desc *c = &ci->caches[i];
		char text[256];
		struct sbuf sb;

		if (c->type == CACHE_INST || !c->geometry_unknown)
			continue;
		sb_init(&sb, text, sizeof(text));
		sb_puts(&sb, probe);
		sb_puts(&sb, ": L");
		sb_u64(&sb, c->level);
		sb_puts(&sb, " geometry unknown, no dense sweep points around it, default upper end (");
		sb_puts(&sb, c->geometry_unknown);
		sb_puts(&sb, ")");
		emit_msg(MSG_INFO, text);
	}
}

bool mem_setup(struct probe_env *env, const char *probe, bool want_dst, struct mem_setup *m)
{
	uint64_t caches[CPU_MAX_CACHES];
	size_t nc = cache_sizes(env->cpu, caches);
	uint64_t free_bytes = env->arena->size - env->arena->used;
	uint64_t limit = free_bytes > ARENA_RESERVE ? (free_bytes - ARENA_RESERVE) / (want_dst ? 2 : 1) : 0;
	uint64_t min = env->cfg->mem_min_kb * KIB;

	if (limit > DST_SKEW)
		limit -= DST_SKEW;
	m->max = env->cfg->mem_max_mb ? env->cfg->mem_max_mb * MIB : sweep_default_max(caches, nc, DEFAULT_MAX_FLOOR, limit);
	if (m->max > limit) {
		emit_msg(MSG_WARN, "memory sweep capped by the arena (raise arena_mb for larger buffers)");
		m->max = limit / SWEEP_GRANULE * SWEEP_GRANULE;
	}
	if (m->max < min) {
		emit_skip(probe, "not enough memory in the arena for the smallest buffer");
		return false;
	}
	m->src = arena_alloc(env->arena, m->max, BUFFER_ALIGN);
	m->dst = want_dst ? arena_alloc(env->arena, m->max + DST_SKEW, BUFFER_ALIGN) : 0;
	if (!m->src || (want_dst && !m->dst)) {
		emit_skip(probe, "buffers do not fit in the arena");
		return false;
	}
	if (m->dst)
		m->dst += DST_SKEW;
	m->n_sizes = sweep_sizes(min, m->max, caches, nc, m->sizes, SWEEP_MAX_POINTS);
	say_unknown_caches(env->cpu, probe);
	m->page = env->page_size ? env->page_size : "unknown";
	/* Touch everything once so no page is first faulted (hosted) or first mapped inside a sample. */
	for (uint64_t i = 0; i < m->max; i += 64) {
		m->src[i] = (uint8_t)i;
		if (m->dst)
			m->dst[i] = 0;
	}
	return true;
}
