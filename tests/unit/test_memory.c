/* Size sweeps, pointer chains, the PRNG and byte accounting of the memory probes. */
#include <stdlib.h>

#include "bench/probes/mem/chain.h"
#include "bench/probes/mem/sweep.h"
#include "lib/rand.h"
#include "tests/unit/test.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)

static void sweep_is_sorted_unique_bounded(void)
{
	uint64_t caches[] = { 32 * KIB, 512 * KIB, 32 * MIB }, out[SWEEP_MAX_POINTS];
	size_t n = sweep_sizes(4 * KIB, 256 * MIB, caches, 3, out, SWEEP_MAX_POINTS);
	int ok = 1;

	CHECK(n > 20 && n <= SWEEP_MAX_POINTS);
	CHECK_EQ_U64(out[0], 4 * KIB);
	CHECK_EQ_U64(out[n - 1], 256 * MIB);
	for (size_t i = 0; i < n; i++) {
		ok &= out[i] % SWEEP_GRANULE == 0 && out[i] % 256 == 0;
		if (i)
			ok &= out[i] > out[i - 1];
	}
	CHECK(ok);
}

static int has(const uint64_t *v, size_t n, uint64_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

static void sweep_is_dense_around_caches(void)
{
	uint64_t caches[] = { 48 * KIB, 1280 * KIB }, out[SWEEP_MAX_POINTS];
	size_t n = sweep_sizes(4 * KIB, 64 * MIB, caches, 2, out, SWEEP_MAX_POINTS);

	/* 1/2 .. 2x of each cache, in eighths */
	CHECK(has(out, n, 24 * KIB) && has(out, n, 42 * KIB) && has(out, n, 48 * KIB) && has(out, n, 54 * KIB) &&
	      has(out, n, 96 * KIB));
	CHECK(has(out, n, 1280 * KIB) && has(out, n, 1120 * KIB) && has(out, n, 1440 * KIB));
	/* points between 1/2x and 3/2x of a cache are no more than 1/8 of it apart */
	for (size_t i = 1; i < n; i++)
		if (out[i] > 24 * KIB && out[i] <= 72 * KIB)
			CHECK(out[i] - out[i - 1] <= 12 * KIB);
}

static void sweep_edges(void)
{
	uint64_t out[4];

	CHECK_EQ_U64(sweep_sizes(8 * KIB, 4 * KIB, 0, 0, out, 4), 0);
	CHECK(sweep_sizes(4 * KIB, 1 * MIB, 0, 0, out, 4) == 4); /* capped by cap */
	CHECK_EQ_U64(sweep_default_max((uint64_t[]){ 32 * MIB }, 1, 256 * MIB, 1024 * MIB), 256 * MIB);
	CHECK_EQ_U64(sweep_default_max((uint64_t[]){ 128 * MIB }, 1, 256 * MIB, 1024 * MIB), 512 * MIB);
	CHECK_EQ_U64(sweep_default_max((uint64_t[]){ 128 * MIB }, 1, 256 * MIB, 300 * MIB), 300 * MIB);
}

static void random_chain_is_one_cycle(void)
{
	static uint8_t buf[4096 * 64] __attribute__((aligned(64)));
	size_t sizes[] = { 1, 2, 3, 17, 4096 }, lines[] = { 8, 16, 64 };

	for (size_t l = 0; l < 3; l++)
		for (size_t k = 0; k < 5; k++) {
			struct rand_state r;
			void *head;

			rand_seed(&r, 42 + k);
			head = chain_build_random(buf, sizes[k], lines[l], &r);
			CHECK_EQ_U64(chain_cycle_length(head, buf, sizes[k], lines[l]), sizes[k]);
			rand_seed(&r, 42 + k);
			CHECK(chain_build_random_checked(buf, sizes[k], lines[l], &r) == head);
			CHECK_EQ_U64(chain_cycle_length(head, buf, sizes[k], lines[l]), sizes[k]); /* links kept */
		}
}

/* Every cycle through 4 nodes (3! = 6 of them, told apart by the two nodes after node 0) comes
 * out about equally often: a uniformly random cyclic order, as Sattolo's algorithm gives. */
static void random_chain_is_uniform(void)
{
	static uint8_t buf[4 * 16] __attribute__((aligned(64)));
	unsigned counts[4][4] = { { 0 } };
	struct rand_state r;

	rand_seed(&r, 11);
	for (int i = 0; i < 6000; i++) {
		uint8_t *a, *b;

		chain_build_random(buf, 4, 16, &r);
		a = (uint8_t *)(uintptr_t)*(uint64_t *)buf;
		b = (uint8_t *)(uintptr_t)*(uint64_t *)a;
		counts[(a - buf) / 16][(b - buf) / 16]++;
	}
	for (int x = 1; x < 4; x++)
		for (int y = 1; y < 4; y++)
			CHECK(x == y ? counts[x][y] == 0 : counts[x][y] > 850 && counts[x][y] < 1150);
}

/* The order check refuses a link not to the next node, a node twice in the order, an order entry
 * outside the buffer; each time it leaves no mark bit behind. */
static void random_chain_check_finds_damage(void)
{
	static uint8_t buf[64 * 32] __attribute__((aligned(64)));
	struct rand_state r;
	uint64_t *w1 = (uint64_t *)(buf + 5 * 32 + CHAIN_ORDER_OFFSET), saved;

	rand_seed(&r, 3);
	chain_build_random(buf, 64, 32, &r);
	CHECK(chain_check_order(buf, 64, 32));
	saved = *(uint64_t *)(buf + 7 * 32);
	*(uint64_t *)(buf + 7 * 32) = (uint64_t)(uintptr_t)(buf + 7 * 32); /* node 7 links to itself */
	CHECK(!chain_check_order(buf, 64, 32));
	*(uint64_t *)(buf + 7 * 32) = saved;
	CHECK(chain_check_order(buf, 64, 32));
	saved = *w1;
	*w1 = *(uint64_t *)(buf + 6 * 32 + CHAIN_ORDER_OFFSET); /* the 6th node in the order twice */
	CHECK(!chain_check_order(buf, 64, 32));
	*w1 = 64; /* past the last node */
	CHECK(!chain_check_order(buf, 64, 32));
	*w1 = saved;
	CHECK(chain_check_order(buf, 64, 32));
	for (int i = 0; i < 64; i++)
		CHECK((*(uint64_t *)(buf + i * 32) & 1) == 0); /* no mark left */
	CHECK_EQ_U64(chain_cycle_length(buf, buf, 64, 32), 64);
}

static void random_chain_is_not_sequential(void)
{
	static uint8_t buf[1024 * 64] __attribute__((aligned(64)));
	struct rand_state r;
	uint64_t *p;
	size_t sequential = 0, same_page = 0;

	rand_seed(&r, 7);
	p = chain_build_random(buf, 1024, 64, &r);
	for (int i = 0; i < 1024; i++) {
		uint64_t *next = (uint64_t *)(uintptr_t)*p;

		sequential += (uint8_t *)next == (uint8_t *)p + 64;
		same_page += ((uintptr_t)next >> 12) == ((uintptr_t)p >> 12);
		p = next;
	}
	CHECK(sequential < 10);     /* a prefetcher following +64 would rarely be right */
	CHECK(same_page < 1024 / 4); /* 16 pages: most steps leave the page */
}

static void stride_chain_and_broken_chain(void)
{
	static uint8_t buf[100 * 64] __attribute__((aligned(64)));
	void *head = chain_build_stride(buf, 100, 64);

	CHECK_EQ_U64(chain_cycle_length(head, buf, 100, 64), 100);
	CHECK(*(uint64_t *)buf == (uint64_t)(uintptr_t)(buf + 64));
	*(uint64_t *)(buf + 64 * 50) = (uint64_t)(uintptr_t)(buf + 64 * 10); /* a short cycle */
	CHECK_EQ_U64(chain_cycle_length(head, buf, 100, 64), 0);
	*(uint64_t *)(buf + 64 * 50) = 12345; /* points outside */
	CHECK_EQ_U64(chain_cycle_length(head, buf, 100, 64), 0);
}

static void rand_is_reproducible_and_unbiased(void)
{
	struct rand_state a, b;
	unsigned counts[3] = { 0, 0, 0 };

	rand_seed(&a, 5);
	rand_seed(&b, 5);
	for (int i = 0; i < 100; i++)
		CHECK(rand_next(&a) == rand_next(&b));
	for (int i = 0; i < 30000; i++)
		counts[rand_below(&a, 3)]++;
	for (int i = 0; i < 3; i++)
		CHECK(counts[i] > 9500 && counts[i] < 10500);
	rand_seed(&a, 0);
	CHECK(rand_next(&a) != 0);
}

TEST_SUITE(memory) = {
	{ "sweep_is_sorted_unique_bounded", sweep_is_sorted_unique_bounded },
	{ "sweep_is_dense_around_caches", sweep_is_dense_around_caches },
	{ "sweep_edges", sweep_edges },
	{ "random_chain_is_one_cycle", random_chain_is_one_cycle },
	{ "random_chain_is_uniform", random_chain_is_uniform },
	{ "random_chain_check_finds_damage", random_chain_check_finds_damage },
	{ "random_chain_is_not_sequential", random_chain_is_not_sequential },
	{ "stride_chain_and_broken_chain", stride_chain_and_broken_chain },
	{ "rand_is_reproducible_and_unbiased", rand_is_reproducible_and_unbiased },
	{ 0, 0 },
};
