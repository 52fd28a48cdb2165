/* Buffer-size sweeps (hbench-OS 2.2.5): half-octave steps from the smallest to the largest size,
 * plus dense points around every cache size CPUID reports, so each knee is resolved. Pure logic,
 * unit-tested. */
#ifndef BENCH_SWEEP_H
#define BENCH_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#define SWEEP_MAX_POINTS 128
#define SWEEP_GRANULE 1024 /* every size is a multiple of this (and of the kernels' 256-byte block) */

/* Writes sorted, unique sizes in [min, max] into out (cap entries); returns how many. cache_sizes
 * (n_caches of them, 0 entries ignored) get points at 4/8 .. 12/8 in eighths, 14/8 and 2
 * times their size. */
size_t sweep_sizes(uint64_t min, uint64_t max, const uint64_t *cache_sizes, size_t n_caches,
		   uint64_t *out, size_t cap);

/* The default upper end: at least 4x the largest cache, at least `floor`, at most `limit`. */
uint64_t sweep_default_max(const uint64_t *cache_sizes, size_t n_caches, uint64_t floor, uint64_t limit);

#endif
