/* Probe `flops`: the peak floating-point rate of one core, per kernel and width (arch/flops.h:
 * twelve independent FP64 chains of fused multiply-adds, or of separate multiplies and adds on
 * CPUs without FMA), the compute ceiling of the roofline (the harness's roofline.json puts it
 * beside the bandwidth plateaus of the membw probe). One sample = `iters` trips of the loop,
 * timed by the runner with the core clock beside it (FLOP per core cycle). Before its sets each
 * kernel is run for FLOPS_CHECK_TRIPS trips and every stored lane compared with the value the
 * chains must reach (the `flops_exact` check): a kernel that did not compute what it claims has
 * its numbers flagged, never believed. */
#include "arch/flops.h"
#include "bench/core/probe.h"
#include "bench/core/runner.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define FLOPS_CHECK_TRIPS 1000
#define F64_ONE_BITS 0x3FF0000000000000ull
#define F64_EXP_BIAS 1023
#define F64_MANT_BITS 52
#define F64_MANT_MASK ((1ull << F64_MANT_BITS) - 1)

/* The IEEE 754 double of n (n < 2^53: exact), from integers only. */
static uint64_t f64_bits_of(uint64_t n)
{
	unsigned e;

	if (!n)
		return 0;
	e = 63 - (unsigned)__builtin_clzll(n); /* the top bit's place */
	return ((uint64_t)(F64_EXP_BIAS + e) << F64_MANT_BITS) | ((n << (F64_MANT_BITS - e)) & F64_MANT_MASK);
}

/* Lanes that differ from what the chains compute after `trips` trips: every fma chain and the
 * first half of the mul_add chains (the adds) reach trips x 1.0, the mul_add's multiplies stay 1.0. */
static uint64_t wrong_lanes(const struct flops_kernel *k, const uint64_t *out, uint64_t trips)
{
	uint64_t bad = 0, sum = f64_bits_of(trips);
	bool mul_add = k->flops_per_insn == 1;

	for (unsigned c = 0; c < FLOPS_ACC; c++)
		for (unsigned l = 0; l < k->lanes; l++)
			bad += out[c * k->lanes + l] != (mul_add && c >= FLOPS_ACC / 2 ? F64_ONE_BITS : sum);
	return bad;
}

static bool check_kernel(const struct flops_kernel *k, uint64_t *out)
{
	uint64_t bad;
	struct record *r;

	k->fn(out, FLOPS_CHECK_TRIPS);
	bad = wrong_lanes(k, out, FLOPS_CHECK_TRIPS);
	r = emit_start("check");
	rec_str(r, "name", "flops_exact");
	rec_str(r, "probe", "flops");
	rec_str(r, "kernel", k->kernel);
	rec_str(r, "width", k->width);
	rec_u64(r, "trips", FLOPS_CHECK_TRIPS);
	rec_u64(r, "lanes", (uint64_t)FLOPS_ACC * k->lanes);
	rec_u64(r, "expected", 0);
	rec_u64(r, "measured", bad);
	rec_str(r, "status", bad ? "fail" : "pass");
	emit_finish();
	return !bad;
}

struct flops_arg {
	const struct flops_kernel *k;
	uint64_t *out;
};

static void flops_op(void *arg, uint64_t iters)
{
	const struct flops_arg *a = arg;

	if (iters)
		a->k->fn(a->out, iters);
}

static enum probe_status measure_kernel(struct probe_env *env, const struct flops_kernel *k, uint64_t *out)
{
	char lanes[24], flops[24], acc[24];
	const char *params[] = { "kernel", k->kernel, "width", k->width, "insn", k->insn, "precision", "fp64",
				 "lanes", lanes, "accumulators", acc, "flops_per_op", flops,
				 k->note_key, k->note_val, 0 };
	struct flops_arg a = { k, out };
	struct core_clock clock = { .n = 0 }; /* FLOP per core cycle needs the core's clock */
	struct bench_op op = { .probe = "flops", .run = flops_op, .arg = &a, .params = params,
			       .core_clock = &clock };
	struct sbuf sb;

	sb_init(&sb, lanes, sizeof(lanes));
	sb_u64(&sb, k->lanes);
	sb_init(&sb, acc, sizeof(acc));
	sb_u64(&sb, FLOPS_ACC);
	sb_init(&sb, flops, sizeof(flops));
	sb_u64(&sb, (uint64_t)FLOPS_ACC * k->lanes * k->flops_per_insn);
	return runner_measure(env, &op);
}

static enum probe_status flops_run(struct probe_env *env)
{
	const struct flops_kernel *k;
	unsigned n = arch_flops_kernels(&k), ran = 0;
	uint64_t *out = probe_sample_buffer(env, (uint64_t)FLOPS_ACC * FLOPS_MAX_LANES);
	enum probe_status worst = PROBE_OK, st;

	if (!out) {
		emit_skip("flops", "out of memory for the kernels' results");
		return PROBE_SKIPPED;
	}
	for (unsigned i = 0; i < n; i++) {
		if (k[i].why_not) {
			emit_skip_kernel("flops", k[i].kernel, k[i].width, k[i].why_not);
			continue;
		}
		if (!check_kernel(&k[i], out))
			worst = PROBE_FAILED; /* its check record says how; the numbers follow, flagged */
		st = measure_kernel(env, &k[i], out);
		worst = st > worst ? st : worst;
		ran++;
	}
	return ran ? worst : PROBE_SKIPPED;
}

const struct probe_desc probe_flops = {
	.name = "flops",
	.what = "peak FP64 rate per kernel (fused multiply-add, or multiply and add) and width: the roofline's compute ceiling",
	.run = flops_run,
	.options = "samples,target_ns",
};
