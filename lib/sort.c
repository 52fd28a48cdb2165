/* Heapsort of uint64_t (see sort.h). */
#include "lib/sort.h"

static void sift_down(uint64_t *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		uint64_t t;

		if (child >= n)
			return;
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[root] >= v[child])
			return;
		t = v[root];
		v[root] = v[child];
		v[child] = t;
		root = child;
	}
}

void sort_u64(uint64_t *v, size_t n)
{
	size_t i;

	if (n < 2)
		return;
	for (i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (i = n - 1; i > 0; i--) {
		uint64_t t = v[0];

		v[0] = v[i];
		v[i] = t;
		sift_down(v, 0, i);
	}
}

uint64_t median_u64(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	sort_u64(v, n);
	return v[(n - 1) / 2];
}

uint64_t quantile_u64(uint64_t *v, size_t n, unsigned permille)
{
	size_t rank;

	if (!n)
		return 0;
	sort_u64(v, n);
	if (permille > 1000)
		permille = 1000;
	rank = (n * permille + 999) / 1000; /* ceil, 1-based */
	return v[rank ? rank - 1 : 0];
}
