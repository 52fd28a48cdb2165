/* Heapsort and median. */
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

TEST_SUITE(sort) = { { "sorts", sorts }, { "medians", medians }, { 0, 0 } };
