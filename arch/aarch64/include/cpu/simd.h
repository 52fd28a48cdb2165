/* The AArch64 part of arch/simd.h (included there): vector widths for the bandwidth kernels
 * (arch/membw.h), under the names bench/probes/mem/membw.c
 * uses on every architecture: 64 = X registers, always; 128 = NEON Q registers, when FP/SIMD
 * access is enabled (UEFI requires it; simd.c checks CPACR_EL1.FPEN / CPTR_EL2.TFP); 256 and 512:
 * no kernels (AArch64 has no fixed registers that wide; SVE's scalable ones are width=sve, in
 * arch_membw_kernels of arch/membw.h). aarch64_sve_enable() turns SVE on at EL1 when the CPU has
 * it (CPACR_EL1.ZEN, ZCR_EL1.LEN at its maximum; at EL2 CPTR_EL2 and ZCR_EL2), as the x86 build
 * enables XSAVE state. */
#ifndef ARCH_AARCH64_SIMD_H
#define ARCH_AARCH64_SIMD_H

#include <stdbool.h>
#include <stdint.h>

/* struct simd_state's CPU tail (arch/simd.h): nothing beyond the shared fields. */
#define SIMD_STATE_CPU_FIELDS

struct a64_sve_state {
	bool tried, present, enabled; /* enabled: SVE untrapped at EL1 and usable by the kernels */
	unsigned vl_bits;             /* the vector length after enabling, else 0 */
	const char *why_not;          /* when not enabled */
	unsigned el;                  /* the level we run at */
	uint64_t cpacr;               /* CPACR_EL1 after enabling (at EL2: CPTR_EL2) */
};

/* Enable SVE once (idempotent); the state after. */
void aarch64_sve_enable(void);
void aarch64_sve_state(struct a64_sve_state *s);
/* NULL when the FEAT_MOPS kernels (width=mops) run here, else why not (once; after traps_init). */
const char *aarch64_mops_why_not(void);

#endif
