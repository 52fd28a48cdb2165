/* Probe `prim`: the machine vector's primitive costs (hbench-OS ch. 4; docs/methods/vectors.md),
 * one sample set per kind of operation, each timed by the runner (calibrated, warmed up, raw
 * samples, the core clock beside it): the CPU kernels of arch/prim_ops.h — an integer add
 * dependent and independent, an L1 load and store, a conditional and an indirect branch each
 * with a fixed and a random outcome, a call/return pair, an FP add — and the operating system's
 * primitives of bench/probes/prim_os.h (a system call, a page fault, a context switch), which the
 * environment does or refuses with a reason (a skip, never a zero). Every set says its operations
 * per iteration (`ops_per_iter`) and, where the kernel's path is fixed, its instructions per
 * iteration (`insns_per_iter`): the known answer of an instruction counter (the PMU, `-icount`).
 * The branch sets count branches and their mispredictions where a PMU does: the random sets'
 * known answer is about one miss in two. */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "arch/prim_ops.h"
#include "arch/probe_ops.h"
#include "bench/core/counters.h"
#include "bench/core/probe.h"
#include "bench/core/runner.h"
#include "bench/probes/prim_os.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define PRIM_SEED 0x9E3779B97F4A7C15ull /* any non-zero xorshift state */
#define PRIM_LINE_BYTES 64
#define PRIM_PREWARM_ITERS 64

/* The load kernel is the core clock's load burst: its loads per iteration are the operations. */
_Static_assert(ARCH_LOAD_BURST_LEN == PRIM_OPS_PER_ITER, "the load kernel's loads per iteration");

const struct prim_os_desc prim_os_kinds[PRIM_OS_KINDS] = {
	[PRIM_OS_SYSCALL] = { "syscall", 1, "getppid()" },
	[PRIM_OS_PAGE_FAULT] = { "page_fault", 1, "first write to a fresh 4 KiB page" },
	[PRIM_OS_CTX_SWITCH] = { "ctx_switch", 2, "pipe round trip between two threads on one CPU" },
};

enum prim_fn { FN_INT_DEP, FN_INT_INDEP, FN_LOAD, FN_STORE, FN_BRANCH, FN_INDIRECT, FN_CALL, FN_FP_ADD };

struct prim_kernel {
	const char *name;
	enum prim_fn fn;
	bool random;   /* the branch kernels' random outcome (mask PRIM_RANDOM_MASK) */
	uint64_t insns; /* instructions per iteration on the fixed path; 0: data-dependent */
	const char *what;
};

static const struct prim_kernel kernels[] = {
	{ "int_dep", FN_INT_DEP, false, PRIM_INSNS_SIMPLE, "dependent integer add (latency)" },
	{ "int_indep", FN_INT_INDEP, false, PRIM_INSNS_SIMPLE, "independent integer adds, 8 accumulators (throughput)" },
	{ "load", FN_LOAD, false, PRIM_INSNS_SIMPLE, "independent 8-byte loads, one L1 line" },
	{ "store", FN_STORE, false, PRIM_INSNS_SIMPLE, "8-byte stores, two L1 lines" },
	{ "branch", FN_BRANCH, false, PRIM_INSNS_BRANCH, "conditional branch, fixed outcome per site, half taken (predicted)" },
	{ "branch_random", FN_BRANCH, true, 0, "conditional branch, random outcome (mispredicted about half the time)" },
	{ "indirect", FN_INDIRECT, false, PRIM_INSNS_INDIRECT, "indirect branch, fixed target per site (predicted)" },
	{ "indirect_random", FN_INDIRECT, true, 0, "indirect branch, one of two targets at random" },
	{ "call", FN_CALL, false, PRIM_INSNS_CALL, "call and return of an empty leaf" },
	{ "fp_add", FN_FP_ADD, false, PRIM_INSNS_SIMPLE, "independent FP64 adds, 8 accumulators (throughput)" },
};

#define NUM_KERNELS (sizeof(kernels) / sizeof(kernels[0]))

struct prim_arg {
	const struct prim_kernel *k;
	void *lines;
	struct prim_rand rand;
};

static volatile uint64_t prim_sink; /* results kept, so no call is dead */

static void prim_op(void *arg, uint64_t iters)
{
	struct prim_arg *a = arg;

	switch (a->k->fn) {
	case FN_INT_DEP:
		prim_sink = arch_prim_int_dep(iters);
		break;
	case FN_INT_INDEP:
		prim_sink = arch_prim_int_indep(iters);
		break;
	case FN_LOAD:
		prim_sink = arch_load_burst(a->lines, iters);
		break;
	case FN_STORE:
		arch_prim_store(a->lines, iters);
		break;
	case FN_BRANCH:
		prim_sink = arch_prim_branch(&a->rand, iters);
		break;
	case FN_INDIRECT:
		prim_sink = arch_prim_indirect(&a->rand, iters);
		break;
	case FN_CALL:
		arch_prim_call(iters);
		break;
	case FN_FP_ADD:
		prim_sink = arch_prim_fp_add(iters);
		break;
	}
}

static void u64_param(char *buf, unsigned size, uint64_t v)
{
	struct sbuf sb;

	sb_init(&sb, buf, size);
	sb_u64(&sb, v);
}

static enum probe_status measure_kernel(struct probe_env *env, const struct prim_kernel *k, void *lines)
{
	char ops[24], insns[24];
	const char *params[] = { "prim", k->name, "ops_per_iter", ops, "outcome",
				 k->fn == FN_BRANCH || k->fn == FN_INDIRECT ? (k->random ? "random" : "fixed") : "none",
				 "insns_per_iter", insns, 0 };
	struct prim_arg a = { k, lines, { k->random ? PRIM_RANDOM_MASK : 0, PRIM_SEED, PRIM_PATTERN } };
	struct core_clock clock = { .n = 0 };
	struct bench_op op = { .probe = "prim", .run = prim_op, .arg = &a, .params = params,
			       .core_clock = &clock,
			       .ctr_set = k->fn == FN_BRANCH || k->fn == FN_INDIRECT ? CTR_SET_PRIM_BRANCH : CTR_SET_PRIM };

	u64_param(ops, sizeof(ops), PRIM_OPS_PER_ITER);
	u64_param(insns, sizeof(insns), k->insns);
	if (!k->insns)
		params[6] = 0; /* data-dependent path: no exact instruction count */
	/* One untimed run first: under an emulator the first run translates the kernel, which made
	 * the calibration settle on 1 iteration, too short to time afterwards (QEMU user mode). */
	prim_op(&a, PRIM_PREWARM_ITERS);
	return runner_measure(env, &op);
}

struct os_arg {
	void *h;
};

static void os_op(void *arg, uint64_t iters)
{
	prim_os_run(((struct os_arg *)arg)->h, iters);
}

static enum probe_status measure_os(struct probe_env *env, enum prim_os_kind kind)
{
	const struct prim_os_desc *d = &prim_os_kinds[kind];
	const char *why = 0;
	char ops[24];
	const char *params[] = { "prim", d->name, "ops_per_iter", ops, "outcome", "none", 0 };
	struct os_arg a;
	struct bench_op op = { .probe = "prim", .run = os_op, .arg = &a, .params = params };
	struct record *r;
	enum probe_status st;

	a.h = prim_os_open(kind, &op.max_iters, &why);
	if (!a.h) {
		r = emit_start("skip");
		rec_str(r, "probe", "prim");
		rec_str(r, "prim", d->name);
		rec_str(r, "reason", why ? why : "not available here");
		emit_finish();
		return PROBE_SKIPPED;
	}
	u64_param(ops, sizeof(ops), d->ops_per_iter);
	st = runner_measure(env, &op);
	prim_os_close(a.h);
	return st;
}

static enum probe_status prim_run(struct probe_env *env)
{
	void *lines = arena_alloc(env->arena, PRIM_STORE_BYTES, PRIM_LINE_BYTES);
	enum probe_status worst = PROBE_OK, st;
	unsigned ran = 0;

	if (!lines) {
		emit_skip("prim", "out of memory for the load and store lines");
		return PROBE_SKIPPED;
	}
	for (unsigned i = 0; i < PRIM_STORE_BYTES / 8; i++)
		((volatile uint64_t *)lines)[i] = i;
	for (unsigned i = 0; i < NUM_KERNELS; i++) {
		st = measure_kernel(env, &kernels[i], lines);
		worst = st > worst ? st : worst;
		ran += st != PROBE_SKIPPED;
	}
	for (unsigned k = 0; k < PRIM_OS_KINDS; k++) {
		st = measure_os(env, (enum prim_os_kind)k);
		if (st != PROBE_SKIPPED) {
			worst = st > worst ? st : worst;
			ran++;
		}
	}
	return ran ? worst : PROBE_SKIPPED;
}

const struct probe_desc probe_prim = {
	.name = "prim",
	.what = "primitive costs: integer add (dependent, independent), L1 load and store, branches and indirect branches (predicted, random), call/return, FP add; hosted also getppid, page fault, context switch",
	.run = prim_run,
	.options = "samples,target_ns,pmu_events",
};
