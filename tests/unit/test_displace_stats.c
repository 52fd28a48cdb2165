/* The displacement probe's integer statistics on windows whose answer is known by construction:
 * per-window displacement, direct and delivery in milli-cycles, the order-statistic ranks of a
 * median's 95% interval (against the binomial tables), estimates robust to an outlying window,
 * the 5% agreement and the common-value test of the delivery_constant check. */
#include "lib/intmath.h"
#include "bench/stats/displace.h"
#include "tests/unit/test.h"

#define CHECK_EQ_I64(a, b) CHECK((long long)(a) == (long long)(b))

static void window_values_known_cost(void)
{
	/* 10 interrupts of 1300 cycles each, of which the stamps see 1000: delivery 300 */
	struct disp_window w[3] = {
		{ 1000000, 1000000 + 10 * 1300, 10, 10 * 1000 },
		{ 1000000, 1000000 + 1000, 3, 1000 + 1 },  /* 333.333 and 333.667 per interrupt */
		{ 1000000, 1000500, 0, 0 },                /* no interrupt: left out */
	};
	int64_t v[3];

	CHECK_EQ_U64(disp_window_values(w, 3, DISP_DISPLACEMENT, v), 2);
	CHECK_EQ_I64(v[0], 1300000);
	CHECK_EQ_I64(v[1], 333333);
	CHECK_EQ_U64(disp_window_values(w, 3, DISP_DIRECT, v), 2);
	CHECK_EQ_I64(v[0], 1000000);
	CHECK_EQ_I64(v[1], 333667);
	CHECK_EQ_U64(disp_window_values(w, 3, DISP_DELIVERY, v), 2);
	CHECK_EQ_I64(v[0], 300000);
	CHECK_EQ_I64(v[1], -333);           /* negative: direct above displacement, kept signed */
}

static void irq_values_pair_and_skip_unmeasured(void)
{
	const uint64_t ex[4] = { 1300, DISP_UNMEASURED, 1290, (uint64_t)-5 };
	const uint64_t di[4] = { 1000, 1000, 1000, 10 };
	int64_t v[4];

	CHECK_EQ_U64(disp_irq_values(ex, di, 4, DISP_DELIVERY, 0, v), 3);
	CHECK_EQ_I64(v[0], 300000);
	CHECK_EQ_I64(v[1], 290000);
	CHECK_EQ_I64(v[2], -15000); /* an excess below zero stays signed */
	CHECK_EQ_U64(disp_irq_values(ex, di, 4, DISP_DIRECT, 0, v), 3);
	CHECK_EQ_I64(v[2], 10000);
	/* the fluid chunk runs 35.5 cycles longer than the nominal one: taken from every excess */
	{
		const struct disp_window w[2] = { { 1000 * 1235 + 100, 0, 1, 0 }, { 1000 * 1236 - 100, 0, 1, 0 } };
		int64_t off = disp_chunk_offset(w, 2, 1000, 1200);

		CHECK_EQ_I64(off, 35500);
		CHECK_EQ_U64(disp_irq_values(ex, di, 4, DISP_DELIVERY, off, v), 3);
		CHECK_EQ_I64(v[0], 300000 - 35500);
	}
}

static void median_ci_ranks_match_binomial_tables(void)
{
	unsigned lo, hi;

	CHECK(!disp_median_ci_ranks(5, &lo, &hi)); /* 2 / 32 > 5%: no 95% interval */
	CHECK_EQ_U64(lo, 0);
	CHECK_EQ_U64(hi, 4);
	CHECK(disp_median_ci_ranks(6, &lo, &hi));  /* ranks 1 and 6 (96.9%) */
	CHECK_EQ_U64(lo, 0);
	CHECK_EQ_U64(hi, 5);
	CHECK(disp_median_ci_ranks(10, &lo, &hi)); /* ranks 2 and 9 (97.9%) */
	CHECK_EQ_U64(lo, 1);
	CHECK_EQ_U64(hi, 8);
	CHECK(disp_median_ci_ranks(16, &lo, &hi)); /* ranks 4 and 13 (97.9%) */
	CHECK_EQ_U64(lo, 3);
	CHECK_EQ_U64(hi, 12);
	CHECK(disp_median_ci_ranks(60, &lo, &hi)); /* exact: ranks 22 and 39 */
	CHECK_EQ_U64(lo, 21);
	CHECK_EQ_U64(hi, 38);
	CHECK(disp_median_ci_ranks(100, &lo, &hi)); /* normal approximation: ranks 40 and 61 */
	CHECK_EQ_U64(lo, 39);
	CHECK_EQ_U64(hi, 60);
}

static void estimate_is_robust_to_one_window(void)
{
	int64_t v[16];
	struct disp_est e;

	for (unsigned i = 0; i < 16; i++)
		v[i] = 5000 + (int64_t)i * 10 - 80; /* 4920 .. 5070 */
	v[7] = 90000000;                          /* a preempted window */
	v[3] = -40000000;                         /* a stretched calibration */
	disp_estimate(v, 16, &e);
	CHECK(e.ci95 && e.n == 16);
	/* sorted: -4e7, 4920, 4930, 4940, 4960, ..., 5000, 5010, ..., 5070, 9e7: ranks 4 and 13 */
	CHECK_EQ_I64(e.lo, 4940);
	CHECK_EQ_I64(e.hi, 5050);
	CHECK_EQ_I64(e.median, 5005); /* between 5000 and 5010 */
	disp_estimate(v, 0, &e);
	CHECK(!e.ci95 && e.n == 0 && e.median == 0);
}

static void quartile_and_its_ranks(void)
{
	int64_t v[100];
	struct disp_est e;

	for (unsigned i = 0; i < 100; i++)
		v[i] = (int64_t)(99 - i) * 10; /* 0 .. 990, reversed */
	disp_estimate_q(v, 100, 250, DISP_Z2_95, &e);
	/* rank 25; 95% CI ranks 16 and 35 (n q = 25, 1.96 sqrt(18.75) = 8.49, rounded outwards) */
	CHECK(e.ci95);
	CHECK_EQ_I64(e.median, 240);
	CHECK_EQ_I64(e.lo, 150);
	CHECK_EQ_I64(e.hi, 340);
	disp_estimate_q(v, 12, 250, DISP_Z2_95, &e);  /* n q (1 - q) = 2.25 < 5: no interval, the range */
	CHECK(!e.ci95);
	CHECK_EQ_I64(e.lo, v[0]);
	CHECK_EQ_I64(e.hi, v[11]);
	/* four intervals at once: z = 2.498, half = 10.8 ranks: ranks 14 and 37 */
	for (unsigned i = 0; i < 100; i++)
		v[i] = (int64_t)i * 10;
	CHECK_EQ_U64(disp_z2_simultaneous(1), DISP_Z2_95);
	disp_estimate_q(v, 100, 250, disp_z2_simultaneous(4), &e);
	CHECK(e.ci95);
	CHECK_EQ_I64(e.lo, 130);
	CHECK_EQ_I64(e.hi, 360);
}

static void agreement_and_common_value(void)
{
	struct disp_est e[3] = { { 300, 250, 350, 16, true }, { 320, 280, 400, 16, true }, { 340, 290, 360, 16, true } };
	int64_t lo, hi;

	CHECK(disp_within_permille(1050000, 1000000, 50));
	CHECK(!disp_within_permille(1050001, 1000000, 50));
	CHECK(disp_within_permille(950000, 1000000, 50));
	CHECK(!disp_within_permille(949999, 1000000, 50));
	CHECK(disp_common_value(e, 3, &lo, &hi));
	CHECK_EQ_I64(lo, 290);
	CHECK_EQ_I64(hi, 350);
	e[2] = (struct disp_est){ 500, 400, 600, 16, true };       /* a delivery that grew with work */
	CHECK(!disp_common_value(e, 3, &lo, &hi));
	CHECK_EQ_I64(lo, 400);
	CHECK_EQ_I64(hi, 350);
	CHECK_EQ_U64(u64_isqrt(3841600), 1960);
	CHECK_EQ_U64(u64_isqrt(99), 9);
	CHECK_EQ_U64(u64_isqrt(~0ull), 4294967295ull);
}

TEST_SUITE(displace_stats) = {
	{ "window_values_known_cost", window_values_known_cost },
	{ "irq_values_pair_and_skip_unmeasured", irq_values_pair_and_skip_unmeasured },
	{ "median_ci_ranks_match_binomial_tables", median_ci_ranks_match_binomial_tables },
	{ "estimate_is_robust_to_one_window", estimate_is_robust_to_one_window },
	{ "agreement_and_common_value", agreement_and_common_value },
	{ "quartile_and_its_ranks", quartile_and_its_ranks },
	{ 0, 0 },
};
