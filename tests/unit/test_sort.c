/* Heapsort, median and quantiles. */
#include <stdlib.h>

#include "lib/sort.h"
#include "tests/unit/test.h"

static void sorts(void)
{
	uint64_t v[1000];
	int ok = 1;

	srand(1);
	for (int i = 0; i < 1000; i++)
		v[i] = (uint64_t)rand() % 50;
	sort_u64(v, 1000);
	for (int i = 1; i < 1000; i++)
		ok &= v[i - 1] <= v[i];
	CHECK(ok);
}

static void medians(void)
{
	uint64_t a[] = { 5, 1, 3 }, b[] = { 4, 1, 3, 2 }, c[] = { 9 };

	CHECK_EQ_U64(median_u64(a, 3), 3);
	CHECK_EQ_U64(median_u64(b, 4), 2); /* lower middle */
	CHECK_EQ_U64(median_u64(c, 1), 9);
	CHECK_EQ_U64(median_u64(c, 0), 0);
}

static void quantiles(void)
{
	uint64_t v[10], one[] = { 7 };

	for (int i = 0; i < 10; i++)
		v[i] = (uint64_t)(10 - i) * 10; /* 100, 90, ... 10 */
	CHECK_EQ_U64(quantile_u64(v, 10, 900), 90); /* rank ceil(9.0) = 9 */
	CHECK_EQ_U64(quantile_u64(v, 10, 901), 100); /* rank ceil(9.01) = 10 */
	CHECK_EQ_U64(quantile_u64(v, 10, 500), 50); /* the lower middle, as median_u64 */
	CHECK_EQ_U64(quantile_u64(v, 10, 0), 10);
	CHECK_EQ_U64(quantile_u64(v, 10, 1000), 100);
	CHECK_EQ_U64(quantile_u64(v, 10, 5000), 100);
	CHECK_EQ_U64(quantile_u64(one, 1, 900), 7);
	CHECK_EQ_U64(quantile_u64(one, 0, 900), 0);
}

TEST_SUITE(sort) = { { "sorts", sorts }, { "medians", medians }, { "quantiles", quantiles }, { 0, 0 } };
