/* The core clock beside a set (bench/core/core_clock.c): the spread of the timed add chains
 * (shortest, lower-middle median, longest), the timings a set collects, before and after, of the
 * chain and of its load reference, and the fields they give the set's record. */
#include <string.h>

#include "arch/probe_ops.h"
#include "bench/core/core_clock.h"
#include "tests/unit/test.h"

/* The unit tests link no assembly: a stand-in chain (the real one is arch/<cpu>/probe_ops.S). */
uint64_t arch_add_chain(uint64_t iterations)
{
	return iterations * ARCH_ADD_CHAIN_LEN;
}

uint64_t arch_load_burst(const void *line, uint64_t iterations)
{
	return ((const uint64_t *)line)[0] + iterations;
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

/* The value of `key=` in the record's line as a number, or -1 when the key is not there. */
static int64_t field(const struct record *r, const char *key)
{
	const char *p = strstr(r->buf, key);
	int64_t v = 0;

	if (!p || p[strlen(key)] != '=')
		return -1;
	for (p += strlen(key) + 1; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (*p - '0');
	return v;
}

static void emit_fields(void)
{
	struct core_clock cc = { .n = 0 };
	struct record r;

	for (unsigned i = 0; i < CORE_CLOCK_N; i++) { /* timings given, so the spread is known */
		cc.ticks[i] = 100 + i;
		cc.ref_ticks[i] = 200 + (CORE_CLOCK_N - i);
	}
	cc.n = CORE_CLOCK_N;
	rec_start(&r, 1, "probe");
	core_clock_emit(&r, &cc);
	CHECK(strstr(r.buf, " core_clock=add_chain ") != NULL);
	CHECK(strstr(r.buf, " core_ref=load_burst ") != NULL);
	CHECK_EQ_U64(field(&r, "core_clock_cycles"), CORE_CLOCK_ITERS * ARCH_ADD_CHAIN_LEN);
	CHECK_EQ_U64(field(&r, "core_clock_ticks_lo"), 100);
	CHECK_EQ_U64(field(&r, "core_clock_ticks_hi"), 100 + CORE_CLOCK_N - 1);
	CHECK_EQ_U64(field(&r, "core_ref_ops"), CORE_REF_ITERS * ARCH_LOAD_BURST_LEN);
	CHECK_EQ_U64(field(&r, "core_ref_ticks_lo"), 201);
	CHECK_EQ_U64(field(&r, "core_ref_ticks_med"), 200 + CORE_CLOCK_N / 2);
	CHECK_EQ_U64(field(&r, "core_ref_ticks_hi"), 200 + CORE_CLOCK_N);
	CHECK(!rec_overflowed(&r));
}

TEST_SUITE(core_clock) = { { "spread", spread }, { "take_fills", take_fills },
			   { "emit_fields", emit_fields }, { 0, 0 } };
