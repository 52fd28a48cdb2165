/* Vector state for the bandwidth kernels: which widths the CPU has and the OS (or we, on bare
 * metal) enabled. On bare metal simd_enable() turns on CR4.OSXSAVE and the XCR0 components for
 * AVX and AVX-512; hosted, the kernel already did and simd_usable() only checks. */
#ifndef ARCH_X86_64_SIMD_H
#define ARCH_X86_64_SIMD_H

#include <stdbool.h>

enum simd_width { SIMD_64 = 0, SIMD_128, SIMD_256, SIMD_512, SIMD_NUM_WIDTHS };

struct simd_state {
	bool usable[SIMD_NUM_WIDTHS];
	const char *why_not[SIMD_NUM_WIDTHS]; /* reason when not usable, for skip records */
	unsigned long long xcr0;
};

/* Privileged: enable XSAVE-managed state the CPU supports (bare metal only). */
void simd_enable(void);
void simd_usable(struct simd_state *s);
unsigned simd_bits(enum simd_width w);

#endif
