/* The peak floating-point kernels (arch/<cpu>/flops.S), for the `flops` probe: the compute
 * ceiling of the roofline. Each kernel runs `iters` trips of one loop holding FLOPS_ACC
 * independent chains (more than an FMA's latency times its pipes on any core we know: 4 cycles x
 * 2 pipes needs 8), each one instruction per trip on the width's registers, so nothing but the
 * floating-point pipes limits it. The chains compute known values, checked afterwards (the
 * `flops_exact` check): an `fma` chain acc = acc + 1.0 x 1.0 (0, 1, 2, ... exact below 2^53); a
 * `mul_add` kernel (separate multiply and add instructions, for CPUs without FMA) has half its
 * chains acc = acc + 1.0 and half acc = acc x 1.0 (staying 1.0). After the loop every lane of
 * every chain is stored to `out`, chain by chain (FLOPS_ACC x lanes doubles). FP64 only. */
#ifndef ARCH_FLOPS_H
#define ARCH_FLOPS_H

#include <stdint.h>

#define FLOPS_ACC 12
/* The most lanes a kernel can store per chain: SVE's longest vector, 2048 bits of doubles. */
#define FLOPS_MAX_LANES 32

/* out: the chains' doubles as their IEEE 754 bit patterns (the firmware's C uses no FP registers). */
typedef void (*flops_kernel_fn)(uint64_t *out, uint64_t iters);

struct flops_kernel {
	const char *kernel;   /* "fma" or "mul_add" */
	const char *width;    /* as the membw probe names widths: "64", "128", "256", "512", "sve" */
	const char *insn;     /* the instruction(s) of the chains, for the record */
	flops_kernel_fn fn;
	unsigned lanes;       /* doubles per register (set at run time for SVE) */
	unsigned flops_per_insn; /* per lane: 2 for a fused multiply-add, 1 for a multiply or an add */
	const char *why_not;  /* NULL when it runs here, else the reason for its skip */
	const char *note_key; /* one more record parameter (SVE: vl_bits), or NULL */
	const char *note_val;
};

/* The table and its length; availability (and the SVE length) computed on each call. */
unsigned arch_flops_kernels(const struct flops_kernel **k);

#endif
