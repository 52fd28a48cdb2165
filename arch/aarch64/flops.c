/* The AArch64 side of arch/flops.h: which of the kernels in flops.S this CPU can run. FMADD and
 * FMLA need FP/SIMD access untrapped (simd.c), the SVE kernel SVE enabled (simd.c sets the
 * longest vector length; its lanes and `vl_bits` follow from it). */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "arch/flops.h"

#include "arch/simd.h"
#include "lib/fmt.h"

#define LANES_64 1
#define LANES_128 2
#define FLOPS_FMA 2 /* a fused multiply-add: two operations per lane */
#define BITS_PER_DOUBLE 64

void flops_fma_64(uint64_t *, uint64_t);
void flops_fma_128(uint64_t *, uint64_t);
void flops_fma_sve(uint64_t *, uint64_t);

enum { K_FMA_64, K_FMA_128, K_FMA_SVE, NUM_KERNELS };

static struct flops_kernel kernels[NUM_KERNELS] = {
	[K_FMA_64] = { "fma", "64", "fmadd", flops_fma_64, LANES_64, FLOPS_FMA, 0, 0, 0 },
	[K_FMA_128] = { "fma", "128", "fmla", flops_fma_128, LANES_128, FLOPS_FMA, 0, 0, 0 },
	[K_FMA_SVE] = { "fma", "sve", "fmla", flops_fma_sve, 0, FLOPS_FMA, 0, "vl_bits", 0 },
};

unsigned arch_flops_kernels(const struct flops_kernel **k)
{
	static char vl_str[24];
	struct simd_state simd;
	struct a64_sve_state sve;
	struct sbuf sb;

	simd_usable(&simd);
	aarch64_sve_state(&sve); /* enables SVE first (once) */
	kernels[K_FMA_64].why_not = simd.why_not[SIMD_128]; /* scalar FP needs FP/SIMD access too */
	kernels[K_FMA_128].why_not = simd.why_not[SIMD_128];
	kernels[K_FMA_SVE].why_not = sve.enabled ? 0 : sve.why_not;
	kernels[K_FMA_SVE].lanes = sve.enabled && sve.vl_bits / BITS_PER_DOUBLE <= FLOPS_MAX_LANES ?
					   sve.vl_bits / BITS_PER_DOUBLE : 0;
	if (sve.enabled && !kernels[K_FMA_SVE].lanes)
		kernels[K_FMA_SVE].why_not = "SVE vector length beyond 2048 bits";
	sb_init(&sb, vl_str, sizeof(vl_str));
	sb_u64(&sb, sve.vl_bits);
	kernels[K_FMA_SVE].note_val = vl_str;
	*k = kernels;
	return NUM_KERNELS;
}
