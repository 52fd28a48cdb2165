/* The core clock beside a set (bench/core/core_clock.c): the spread of the timed add chains
 * (shortest, lower-middle median, longest) and the timings a set collects, before and after. */
#include "arch/probe_ops.h"
#include "bench/core/core_clock.h"
#include "tests/unit/test.h"

/* The unit tests link no assembly: a stand-in chain (the real one is arch/<cpu>/probe_ops.S). */
uint64_t arch_add_chain(uint64_t iterations)
{
	return iterations * ARCH_ADD_CHAIN_LEN;
}

static void spread(void)
{
	uint64_t t[] = { 20560, 41040, 20500, 20600, 16464, 20560, 20700, 20400 }, out[3];
	uint64_t one[] = { 7 };

	core_clock_spread(t, 8, out);
	CHECK_EQ_U64(out[0], 16464);
	CHECK_EQ_U64(out[1], 20560); /* the lower middle of 8: the 4th of 16464 20400 20500 20560 */
	CHECK_EQ_U64(out[2], 41040);
	core_clock_spread(one, 1, out);
	CHECK_EQ_U64(out[0], 7);
	CHECK_EQ_U64(out[1], 7);
	CHECK_EQ_U64(out[2], 7);
	core_clock_spread(one, 0, out);
	CHECK_EQ_U64(out[0] + out[1] + out[2], 0);
}

static void take_fills(void)
{
	struct core_clock cc = { .n = 0 };

	core_clock_take(&cc); /* before the set */
	CHECK_EQ_U64(cc.n, CORE_CLOCK_REPS);
	core_clock_take(&cc); /* after it */
	CHECK_EQ_U64(cc.n, CORE_CLOCK_N);
	core_clock_take(&cc); /* full: nothing written past the end */
	CHECK_EQ_U64(cc.n, CORE_CLOCK_N);
}

TEST_SUITE(core_clock) = { { "spread", spread }, { "take_fills", take_fills }, { 0, 0 } };
