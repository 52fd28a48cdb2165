/* Probe `membw`: read, write and copy bandwidth over the size sweep, for every access width the CPU
 * can run (64-bit scalar, SSE2, AVX2, AVX-512), non-temporal stores, `rep stosb`/`rep movsb`, the
 * library's memset/memcpy, then the architecture's own kernels (arch/membw.h: x86_64's
 * multi-stream loops, AArch64's pair, DC ZVA, SVE and MOPS loops), each known-answer checked
 * first. One sample = `iters` passes over the buffer, timed by the runner.
 * Bytes are counted STREAM-style (a copy moves read + written bytes); the record also states the
 * read and written bytes so the harness can show the other convention. */
#include <string.h>

#include "arch/membw.h"
#include "bench/core/counters.h"
#include "bench/probes/mem/mem_buffers.h"
#include "bench/probes/mem/membw_verify.h"
#include "bench/core/runner.h"
#include "lib/emit.h"
#include "lib/fmt.h"

struct kernel_desc {
	const char *name;
	int width;          /* simd_width, or -1 for the library / rep kernels */
	const char *width_name;
	membw_kernel_fn fn;
	unsigned reads, writes; /* buffers read / written per pass */
};

/* The library routines as the compiler calls them; kept out of line so they are not inlined
 * into something else and timed as what the C library (or GNU-EFI's libefi) really does. */
static __attribute__((noinline)) void lib_memset(void *dst, const void *src, size_t bytes, uint64_t passes)
{
	(void)src;
	while (passes--)
		memset(dst, (int)passes, bytes);
}

static __attribute__((noinline)) void lib_memcpy(void *dst, const void *src, size_t bytes, uint64_t passes)
{
	while (passes--)
		memcpy(dst, src, bytes);
}

#define SIMD_KERNELS(w, n)                                        \
	{ "read", w, #n, bw_read_##n, 1, 0 },                     \
	{ "write", w, #n, bw_write_##n, 0, 1 },                   \
	{ "copy", w, #n, bw_copy_##n, 1, 1 },                     \
	{ "write_nt", w, #n, bw_write_nt_##n, 0, 1 },             \
	{ "copy_nt", w, #n, bw_copy_nt_##n, 1, 1 }

static const struct kernel_desc kernels[] = {
	SIMD_KERNELS(SIMD_64, 64),
	SIMD_KERNELS(SIMD_128, 128),
	SIMD_KERNELS(SIMD_256, 256),
	SIMD_KERNELS(SIMD_512, 512),
	{ "rep_stosb", -1, "rep", bw_rep_stosb, 0, 1 },
	{ "rep_movsb", -1, "rep", bw_rep_movsb, 1, 1 },
	{ "memset", -1, "lib", lib_memset, 0, 1 },
	{ "memcpy", -1, "lib", lib_memcpy, 1, 1 },
};

#define NUM_KERNELS (sizeof(kernels) / sizeof(kernels[0]))

struct membw_arg {
	const struct kernel_desc *k;
	void *dst;
	const void *src;
	size_t bytes;
};

static void membw_op(void *arg, uint64_t iters)
{
	const struct membw_arg *a = arg;

	if (iters)
		a->k->fn(a->dst, a->src, a->bytes, iters);
}

/* One kernel over the size sweep; sizes not a multiple of `granule` are left out. `extra` holds
 * the architecture kernel's parameters (insn, and one note) or NULL. */
static enum probe_status sweep_kernel(struct probe_env *env, const struct mem_setup *m, const struct kernel_desc *k,
				      const struct membw_arch_kernel *extra)
{
	enum probe_status worst = PROBE_OK;

	for (size_t si = 0; si < m->n_sizes; si++) {
		char size[24], bytes[24], rb[24], wb[24];
		const char *params[] = { "kernel", k->name, "width", k->width_name, "size", size,
					 "bytes_per_op", bytes, "convention", "rw", "read_bytes", rb,
					 "write_bytes", wb, "page", m->page, "cpus", "1",
					 extra ? "insn" : 0, extra ? extra->insn : 0,
					 extra ? extra->note_key : 0, extra ? extra->note_val : 0, 0 };
		struct membw_arg a = { k, m->dst ? m->dst : m->src, m->src, m->sizes[si] };
		struct core_clock clock = { .n = 0 }; /* bytes per core cycle need the core's clock */
		struct bench_op op = { .probe = "membw", .run = membw_op, .arg = &a, .params = params,
				       .ctr_set = CTR_SET_BANDWIDTH, .core_clock = &clock };
		struct sbuf sb;
		size_t mark = arena_mark(env->arena);
		enum probe_status st;

		if (extra && extra->granule && m->sizes[si] % extra->granule)
			continue;
		sb_init(&sb, size, sizeof(size));
		sb_u64(&sb, m->sizes[si]);
		sb_init(&sb, bytes, sizeof(bytes));
		sb_u64(&sb, m->sizes[si] * (k->reads + k->writes));
		sb_init(&sb, rb, sizeof(rb));
		sb_u64(&sb, m->sizes[si] * k->reads);
		sb_init(&sb, wb, sizeof(wb));
		sb_u64(&sb, m->sizes[si] * k->writes);
		st = runner_measure(env, &op);
		arena_release(env->arena, mark);
		if (st > worst)
			worst = st;
	}
	return worst;
}

static enum probe_status membw_run(struct probe_env *env)
{
	struct mem_setup m;
	struct simd_state simd;
	enum probe_status worst = PROBE_OK, st;
	const char *kernels_cfg = env->cfg->mem_kernels;
	const struct membw_arch_kernel *ak;
	unsigned n_ak;

	if (!mem_setup(env, "membw", true, &m))
		return PROBE_SKIPPED;
	simd_usable(&simd);
	for (size_t ki = 0; ki < NUM_KERNELS; ki++) {
		const struct kernel_desc *k = &kernels[ki];

		if (!str_eq(kernels_cfg, "all") && !config_list_has(kernels_cfg, k->name))
			continue;
		if (k->width >= 0 && !simd.usable[k->width]) {
			emit_skip_kernel("membw", k->name, k->width_name, simd.why_not[k->width]);
			continue;
		}
		if (k->fn == bw_rep_stosb || k->fn == bw_rep_movsb) {
			const char *why = arch_membw_rep_unavailable();

			if (why) {
				emit_skip_kernel("membw", k->name, k->width_name, why);
				continue;
			}
		}
		st = sweep_kernel(env, &m, k, 0);
		if (st > worst)
			worst = st;
	}
	/* The architecture's own kernels (AArch64: pair, DC ZVA, SVE, MOPS; x86_64: multi-stream). */
	n_ak = arch_membw_kernels(&ak);
	for (unsigned i = 0; i < n_ak; i++) {
		const struct kernel_desc k = { ak[i].name, -1, ak[i].width, ak[i].fn, ak[i].reads, ak[i].writes };

		if (!str_eq(kernels_cfg, "all") && !config_list_has(kernels_cfg, k.name))
			continue;
		if (ak[i].why_not) {
			emit_skip_kernel("membw", k.name, k.width_name, ak[i].why_not);
			continue;
		}
		if (!membw_verify_kernel(&ak[i], m.dst, m.src, m.max))
			worst = PROBE_FAILED; /* its check record says how; the numbers follow anyway */
		st = sweep_kernel(env, &m, &k, &ak[i]);
		if (st > worst)
			worst = st;
	}
	return worst;
}

const struct probe_desc probe_membw = {
	.name = "membw",
	.what = "read/write/copy bandwidth per kernel and width over the size sweep",
	.run = membw_run,
	.options = "samples,target_ns,pmu_events,mem_min_kb,mem_max_mb,mem_kernels",
};
