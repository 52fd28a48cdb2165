/* The back-to-back sample loop both ports' cycles_b2b_samples (arch/x86_64/cycles.c,
 * arch/aarch64/cycles.c) expand once per read method, for arch/<cpu>/cycles.c only. */
#ifndef ARCH_CYCLES_B2B_H
#define ARCH_CYCLES_B2B_H

#include <stddef.h>
#include <stdint.h>

/* One loop per method so each read is inlined and the loop adds nothing between the two reads;
 * fills out[0..n) of the enclosing function. */
#define B2B_LOOP(read_first, read_second)                          \
	for (size_t i = 0; i < n; i++) {                           \
		uint64_t t0 = read_first();                        \
		uint64_t t1 = read_second();                       \
		out[i] = t1 - t0;                                  \
	}

#endif
