/* Known-answer check of an architecture bandwidth kernel (arch/membw.h's membw_arch_kernel)
 * before the membw probe times it: one pass over a region between guard bands, run twice over two
 * different fill bytes. A store kernel must rewrite every byte of the region (a byte that shows
 * the fill both times was not written, whatever value the kernel stores), a copy must leave the
 * source's bytes, and no kernel may touch a guard byte or (loads) the destination at all.
 * Emits `check name=membw_kernel_exact`. */
#ifndef BENCH_MEMBW_VERIFY_H
#define BENCH_MEMBW_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/membw.h"

/* dst and src: buffers of `cap` bytes each (the probe's); false when the kernel got a byte wrong
 * (the check record says how many), or when the buffers are too small (no record then). */
bool membw_verify_kernel(const struct membw_arch_kernel *k, uint8_t *dst, uint8_t *src, uint64_t cap);

#endif
