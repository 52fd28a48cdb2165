/* Probe `latency`: load-to-use latency by pointer chasing over the size sweep (lmbench lat_mem_rd,
 * hbench-OS 2.3.1): a random single-cycle chain of line-sized nodes (no prefetcher can follow it)
 * and a sequential chain at line stride (what prefetchers make of it). One operation = one
 * dependent load; the runner calibrates how many a sample takes. */
#include "arch/membw.h"
#include "bench/probes/mem/chain.h"
#include "bench/core/counters.h"
#include "bench/probes/mem/mem_buffers.h"
#include "bench/core/runner.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define DEFAULT_LINE 64

struct chase_arg {
	void *p;
};

static void chase_op(void *arg, uint64_t iters)
{
	struct chase_arg *a = arg;

	/* Keep where the walk stopped: the next sample continues the lap instead of restarting. */
	a->p = arch_chase(a->p, iters);
}

static unsigned line_size(const struct cpu_info *ci)
{
	for (unsigned i = 0; i < ci->num_caches; i++)
		if (ci->caches[i].level == 1 && ci->caches[i].type != CACHE_INST && ci->caches[i].line >= 8)
			return ci->caches[i].line;
	return DEFAULT_LINE;
}

static enum probe_status latency_run(struct probe_env *env)
{
	static const char *const patterns[] = { "random", "stride" };
	struct mem_setup m;
	struct rand_state rng;
	unsigned line = line_size(env->cpu);
	enum probe_status worst = PROBE_OK;

	if (!mem_setup(env, "latency", false, &m))
		return PROBE_SKIPPED;
	rand_seed(&rng, env->cfg->seed);
	for (unsigned pi = 0; pi < 2; pi++) {
		for (size_t si = 0; si < m.n_sizes; si++) {
			size_t nodes = (size_t)(m.sizes[si] / line);
			char size[24], lines[24], nn[24], seed[24];
			const char *params[] = { "pattern", patterns[pi], "size", size, "line", lines, "nodes", nn,
						 "stride", lines, "seed", seed, "page", m.page, 0 };
			struct chase_arg a;
			struct bench_op op = { .probe = "latency", .run = chase_op, .arg = &a, .params = params,
					       .ctr_set = ctr_latency_set(env->cpu, m.sizes[si]) };
			struct sbuf sb;
			enum probe_status st;

			if (nodes < 2)
				continue;
			if (pi == 0)
				a.p = chain_build_random_checked(m.src, nodes, line, &rng);
			else
				a.p = chain_build_stride(m.src, nodes, line);
			if (!a.p || (pi != 0 && chain_cycle_length(a.p, m.src, nodes, line) != nodes)) {
				emit_skip("latency", "pointer chain self-check failed");
				return PROBE_FAILED;
			}
			sb_init(&sb, size, sizeof(size));
			sb_u64(&sb, m.sizes[si]);
			sb_init(&sb, lines, sizeof(lines));
			sb_u64(&sb, line);
			sb_init(&sb, nn, sizeof(nn));
			sb_u64(&sb, nodes);
			sb_init(&sb, seed, sizeof(seed));
			sb_u64(&sb, env->cfg->seed);
			st = runner_measure(env, &op);
			if (st > worst)
				worst = st;
		}
	}
	return worst;
}

const struct probe_desc probe_latency = {
	.name = "latency",
	.what = "pointer-chase load-to-use latency, random and sequential, over the size sweep",
	.run = latency_run,
	.options = "samples,target_ns,pmu_events,mem_min_kb,mem_max_mb,seed",
};
