/* The forward/reverse jump chain pair (arch/x86_64/icache_chain.c), decoded rather than run: from
 * each entry, following the jumps visits every line exactly once — the forward chain in the given
 * order, the reverse chain in exactly the reverse order, each jump at its slot — and ends in a
 * return; anything else in the lines is int3. Bad geometry and a bad order are refused. */
#include <stdint.h>
#include <stdlib.h>

#include "arch/icache.h"
#include "tests/unit/test.h"

#define LINE 64
#define LINES 37
#define OP_JMP 0xE9
#define OP_RET 0xC3
#define OP_INT3 0xCC

static uint8_t code[LINES * LINE];

/* Follow the chain from `entry`; writes the visited line indices; returns how many, 0 on a bad
 * opcode, a slot other than `slot`, or more than LINES steps. */
static unsigned walk(const uint8_t *entry, size_t slot, uint32_t *seen)
{
	const uint8_t *p = entry;

	for (unsigned n = 0; n < LINES + 1; n++) {
		size_t off = (size_t)(p - code);
		int32_t rel;

		if (off >= sizeof(code) || off % LINE != slot)
			return 0;
		seen[n] = (uint32_t)(off / LINE);
		if (*p == OP_RET)
			return n + 1;
		if (*p != OP_JMP)
			return 0;
		rel = (int32_t)((uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16 | (uint32_t)p[4] << 24);
		p = p + 5 + rel;
	}
	return 0;
}

static void pair_visits_in_order_and_reverse(void)
{
	uint32_t order[LINES], seen[LINES + 1];
	icache_chain_fn fwd, rev;

	for (unsigned i = 0; i < LINES; i++)
		order[i] = (i * 11 + 5) % LINES; /* a permutation (11 and 37 coprime) */
	CHECK(icache_chain_build_pair(code, sizeof(code), LINE, order, &fwd, &rev));
	CHECK_EQ_U64(walk((const uint8_t *)(uintptr_t)fwd, 0, seen), LINES);
	for (unsigned i = 0; i < LINES; i++)
		CHECK_EQ_U64(seen[i], order[i]);
	CHECK_EQ_U64(walk((const uint8_t *)(uintptr_t)rev, ICACHE_REV_OFFSET, seen), LINES);
	for (unsigned i = 0; i < LINES; i++)
		CHECK_EQ_U64(seen[i], order[LINES - 1 - i]);
	/* the rest of every line is int3 */
	for (unsigned l = 0; l < LINES; l++)
		for (unsigned b = 13; b < LINE; b++)
			CHECK(code[l * LINE + b] == OP_INT3);
	/* address order without an order array */
	CHECK(icache_chain_build_pair(code, sizeof(code), LINE, 0, &fwd, &rev));
	CHECK_EQ_U64(walk((const uint8_t *)(uintptr_t)rev, ICACHE_REV_OFFSET, seen), LINES);
	CHECK_EQ_U64(seen[0], LINES - 1);
	CHECK_EQ_U64(seen[LINES - 1], 0);
}

static void bad_geometry_refused(void)
{
	uint32_t order[LINES];
	icache_chain_fn fwd, rev;

	for (unsigned i = 0; i < LINES; i++)
		order[i] = i;
	order[3] = LINES; /* out of range */
	CHECK(!icache_chain_build_pair(code, sizeof(code), LINE, order, &fwd, &rev));
	CHECK(!icache_chain_build_pair(code, sizeof(code), 8, 0, &fwd, &rev));
	CHECK(!icache_chain_build_pair(code, LINE * 3 + 1, LINE, 0, &fwd, &rev));
	CHECK(!icache_chain_build_pair(0, sizeof(code), LINE, 0, &fwd, &rev));
}

TEST_SUITE(icache_pair) = {
	{ "pair_visits_in_order_and_reverse", pair_visits_in_order_and_reverse },
	{ "bad_geometry_refused", bad_geometry_refused },
	{ 0, 0 },
};
