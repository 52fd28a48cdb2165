/* Vector state for the bandwidth kernels (arch/membw.h) and the FLOP kernels, for code outside
 * arch/: which register widths the CPU has and the OS (or we, on bare metal) enabled, under the
 * names bench/probes/mem/membw.c uses on every CPU. Declared here once; the CPU's part,
 * <cpu/simd.h> (arch/<cpu>/include/cpu/simd.h), gives the tail of struct simd_state and its
 * private extras (x86_64: XCR0; AArch64: SVE and FEAT_MOPS). */
#ifndef ARCH_SIMD_H
#define ARCH_SIMD_H

#include <stdbool.h>

enum simd_width { SIMD_64 = 0, SIMD_128, SIMD_256, SIMD_512, SIMD_NUM_WIDTHS };

#include <cpu/simd.h>

struct simd_state {
	bool usable[SIMD_NUM_WIDTHS];
	const char *why_not[SIMD_NUM_WIDTHS]; /* reason when not usable, for skip records */
	/* The CPU's tail: its own fields. */
	struct {
		SIMD_STATE_CPU_FIELDS
	};
};

/* Privileged: enable the vector state the CPU supports, on the calling CPU (bare metal only;
 * where nothing needs enabling, nothing). */
void simd_enable(void);
void simd_usable(struct simd_state *s);
unsigned simd_bits(enum simd_width w);

#endif
