/* Vector widths for the AArch64 bandwidth kernels (arch/membw.h), under the names bench/membw.c
 * uses on every architecture: 64 = X registers, always; 128 = NEON Q registers, when FP/SIMD
 * access is enabled (UEFI requires it; simd.c checks CPACR_EL1.FPEN / CPTR_EL2.TFP); 256 and 512:
 * no kernels (SVE is not ported), reported as such. */
#ifndef ARCH_AARCH64_SIMD_H
#define ARCH_AARCH64_SIMD_H

#include <stdbool.h>

enum simd_width { SIMD_64 = 0, SIMD_128, SIMD_256, SIMD_512, SIMD_NUM_WIDTHS };

struct simd_state {
	bool usable[SIMD_NUM_WIDTHS];
	const char *why_not[SIMD_NUM_WIDTHS]; /* reason when not usable, for skip records */
};

void simd_usable(struct simd_state *s);
unsigned simd_bits(enum simd_width w);
/* x86_64's "enable the vector state" (membw_mc asks each core): nothing to do here. FP/SIMD
 * trapping is CPACR_EL1.FPEN as the firmware left it on the BSP, and every other core starts
 * with the BSP's CPACR_EL1 (arch/aarch64/smp.c). */
static inline void simd_enable(void) {}

#endif
