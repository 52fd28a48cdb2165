/* The x86_64 side of arch/flops.h: which of the kernels in flops.S this CPU can run. The FMA
 * kernels need FMA3 (CPUID 1 ECX[12]) and the AVX state enabled (simd.c: the VEX encoding needs
 * it even at 128 bits), the 512-bit one AVX-512F and its state; the SSE2 multiply-and-add kernels
 * run on every x86-64 CPU (Intel SDM vol. 2, the instructions' CPUID feature flags). */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "arch/flops.h"

#include "arch/x86_64/cpu.h"
#include "arch/simd.h"

#define CPUID1_ECX_FMA (1u << 12)
#define LANES_64 1
#define LANES_128 2
#define LANES_256 4
#define LANES_512 8
#define FLOPS_FMA 2    /* a fused multiply-add: two operations per lane */
#define FLOPS_SINGLE 1 /* a multiply or an add */

void flops_fma_64(uint64_t *, uint64_t);
void flops_fma_128(uint64_t *, uint64_t);
void flops_fma_256(uint64_t *, uint64_t);
void flops_fma_512(uint64_t *, uint64_t);
void flops_mul_add_64(uint64_t *, uint64_t);
void flops_mul_add_128(uint64_t *, uint64_t);

enum { K_MUL_ADD_64, K_MUL_ADD_128, K_FMA_64, K_FMA_128, K_FMA_256, K_FMA_512, NUM_KERNELS };

static struct flops_kernel kernels[NUM_KERNELS] = {
	[K_MUL_ADD_64] = { "mul_add", "64", "mulsd,addsd", flops_mul_add_64, LANES_64, FLOPS_SINGLE, 0, 0, 0 },
	[K_MUL_ADD_128] = { "mul_add", "128", "mulpd,addpd", flops_mul_add_128, LANES_128, FLOPS_SINGLE, 0, 0, 0 },
	[K_FMA_64] = { "fma", "64", "vfmadd231sd", flops_fma_64, LANES_64, FLOPS_FMA, 0, 0, 0 },
	[K_FMA_128] = { "fma", "128", "vfmadd231pd", flops_fma_128, LANES_128, FLOPS_FMA, 0, 0, 0 },
	[K_FMA_256] = { "fma", "256", "vfmadd231pd", flops_fma_256, LANES_256, FLOPS_FMA, 0, 0, 0 },
	[K_FMA_512] = { "fma", "512", "vfmadd231pd", flops_fma_512, LANES_512, FLOPS_FMA, 0, 0, 0 },
};

unsigned arch_flops_kernels(const struct flops_kernel **k)
{
	struct simd_state simd;
	uint32_t a, b, c, d;
	const char *fma_why;

	simd_usable(&simd);
	cpu_cpuid(1, 0, &a, &b, &c, &d);
	fma_why = !(c & CPUID1_ECX_FMA) ? "CPU lacks FMA3" : simd.why_not[SIMD_256];
	kernels[K_MUL_ADD_128].why_not = simd.why_not[SIMD_128];
	kernels[K_FMA_64].why_not = fma_why;
	kernels[K_FMA_128].why_not = fma_why;
	kernels[K_FMA_256].why_not = fma_why;
	kernels[K_FMA_512].why_not = fma_why ? fma_why : simd.why_not[SIMD_512];
	*k = kernels;
	return NUM_KERNELS;
}
