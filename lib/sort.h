/* In-place sorting and order statistics of 64-bit samples (heapsort: no recursion, no allocation,
 * O(n log n) worst case — fit for firmware). */
#ifndef LIB_SORT_H
#define LIB_SORT_H

#include <stddef.h>
#include <stdint.h>

void sort_u64(uint64_t *v, size_t n);
/* Median of v[0..n) (sorts v); the lower middle for even n; 0 for n = 0. */
uint64_t median_u64(uint64_t *v, size_t n);
/* The q-th quantile of v[0..n), q in permille (sorts v): the value at rank ceil(n q / 1000),
 * the smallest for q = 0, the largest for q >= 1000; 0 for n = 0. */
uint64_t quantile_u64(uint64_t *v, size_t n, unsigned permille);

#endif
