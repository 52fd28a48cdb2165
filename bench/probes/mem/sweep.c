/* Size sweep generation (see sweep.h). */
#include "bench/probes/mem/sweep.h"

#include "lib/sort.h"

/* Dense factors around a cache size, in eighths. */
static const unsigned dense_eighths[] = { 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16 };
/* sqrt(2) as a ratio, for half-octave steps. */
#define SQRT2_NUM 1414213562ull
#define SQRT2_DEN 1000000000ull

static uint64_t round_granule(uint64_t v)
{
	v = (v + SWEEP_GRANULE / 2) / SWEEP_GRANULE * SWEEP_GRANULE;
	return v ? v : SWEEP_GRANULE;
}

static void add(uint64_t *out, size_t *n, size_t cap, uint64_t v, uint64_t min, uint64_t max)
{
	v = round_granule(v);
	if (v >= min && v <= max && *n < cap)
		out[(*n)++] = v;
}

size_t sweep_sizes(uint64_t min, uint64_t max, const uint64_t *cache_sizes, size_t n_caches,
		   uint64_t *out, size_t cap)
{
	size_t n = 0, i, k;
	uint64_t p;

	if (cap == 0 || max < min)
		return 0;
	for (p = min; p <= max && n < cap; p *= 2) {
		add(out, &n, cap, p, min, max);
		if (p <= UINT64_MAX / SQRT2_NUM)
			add(out, &n, cap, p * SQRT2_NUM / SQRT2_DEN, min, max);
		if (p > max / 2)
			break;
	}
	add(out, &n, cap, max, min, max);
	for (i = 0; i < n_caches; i++)
		for (k = 0; k < sizeof(dense_eighths) / sizeof(dense_eighths[0]); k++)
			if (cache_sizes[i])
				add(out, &n, cap, cache_sizes[i] / 8 * dense_eighths[k], min, max);
	sort_u64(out, n);
	for (i = k = 0; i < n; i++)
		if (k == 0 || out[i] != out[k - 1])
			out[k++] = out[i];
	return k;
}

uint64_t sweep_default_max(const uint64_t *cache_sizes, size_t n_caches, uint64_t floor, uint64_t limit)
{
	uint64_t m = floor;

	for (size_t i = 0; i < n_caches; i++)
		if (cache_sizes[i] * 4 > m)
			m = cache_sizes[i] * 4;
	if (m > limit)
		m = limit;
	return m / SWEEP_GRANULE * SWEEP_GRANULE;
}
