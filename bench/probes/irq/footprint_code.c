/* The footprint probe's instruction-cache level (see bench/probes/irq/footprint_code.h). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "bench/probes/irq/footprint_code.h"

#include "bench/core/arena.h"

#define EVICT_FACTOR 2 /* the eviction chain covers twice the level, like the data one */
#define PAGE 4096

/* order[0..n) := a random permutation of 0..n-1 (Fisher-Yates). */
static void random_order(uint32_t *order, uint64_t n, struct rand_state *rng)
{
	for (uint64_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	for (uint64_t i = n; i-- > 1;) {
		uint64_t j = rand_below(rng, i + 1);
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
}

bool fp_code_prepare(struct probe_env *env, struct fp_code *fc, uint64_t nodes, uint64_t line,
		     uint64_t kmax, struct rand_state *rng)
{
	uint64_t evict_nodes = nodes * EVICT_FACTOR, most = evict_nodes > kmax ? evict_nodes : kmax;
	uint32_t *order = arena_alloc(env->arena, most * sizeof(uint32_t), 64);
	void *a, *b;
	icache_chain_fn unused;

	*fc = (struct fp_code){ .kmax = kmax, .line = line };
	if (!env->exec_arena || !order)
		return false;
	a = arena_alloc(env->exec_arena, nodes * line, PAGE);
	b = arena_alloc(env->exec_arena, evict_nodes * line, PAGE);
	fc->kcode = kmax ? arena_alloc(env->exec_arena, kmax * line, PAGE) : 0;
	fc->korder = kmax ? arena_alloc(env->arena, kmax * sizeof(uint32_t), 64) : 0;
	if (!a || !b || (kmax && (!fc->kcode || !fc->korder)))
		return false;
	random_order(order, nodes, rng);
	if (!icache_chain_build_pair(a, nodes * line, line, order, &fc->fwd, &fc->rev))
		return false;
	random_order(order, evict_nodes, rng);
	if (!icache_chain_build_pair(b, evict_nodes * line, line, order, &fc->evict, &unused))
		return false;
	if (kmax) {
		random_order(fc->korder, kmax, rng);
		if (!icache_chain_build_pair(fc->kcode, kmax * line, line, fc->korder, &unused, &unused))
			return false;
	}
	return true;
}

void fp_code_touch(const struct fp_code *fc, uint64_t k)
{
	icache_chain_fn entry;

	if (!k || k > fc->kmax)
		return;
	/* the forward chain visits korder[0], korder[1], ...: entered at korder[kmax - k] it runs the
	 * last k lines of the order, the last one ending in the return */
	entry = (icache_chain_fn)(uintptr_t)(fc->kcode + (uint64_t)fc->korder[fc->kmax - k] * fc->line);
	entry();
}
