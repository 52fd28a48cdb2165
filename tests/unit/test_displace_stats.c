/* The displacement probe's integer statistics on windows whose answer is known by construction:
 * per-window displacement, direct and delivery in milli-cycles, the order-statistic ranks of a
 * median's 95% interval (against the binomial tables), estimates robust to an outlying window,
 * the 5% agreement and the common-value test of the delivery_constant check, and the lower
 * quartile's interval from resampling whole windows (its inputs split by window). */
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
	CHECK_EQ_I64(e.median, 5000); /* rank 8 of 16: the lower middle (5010 is the upper) */
	disp_estimate(v, 0, &e);
	CHECK(!e.ci95 && e.n == 0 && e.median == 0);
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

#define WQ_WINDOWS 16
#define WQ_PER_WINDOW 10
#define WQ_N (WQ_WINDOWS * WQ_PER_WINDOW)

/* WQ_WINDOWS windows of WQ_PER_WINDOW deliveries: spread 0..9 inside a window, plus a
 * per-window shift (the moment's background) of shift * (w * 7 % WQ_WINDOWS). */
static void wq_fill(struct disp_wval *v, int64_t base, int64_t shift)
{
	for (unsigned w = 0; w < WQ_WINDOWS; w++)
		for (unsigned i = 0; i < WQ_PER_WINDOW; i++)
			v[w * WQ_PER_WINDOW + i] = (struct disp_wval){ base + (int64_t)i + shift * (w * 7 % WQ_WINDOWS), w };
}

static void windowed_quartile_and_its_interval(void)
{
	static struct disp_wval v[WQ_N];
	static int64_t boot[DISP_BOOT_RESAMPLES];
	static uint32_t mult[WQ_N];
	struct disp_est e, again, iid;

	/* every window alike: any resample has the same quartile, so the interval is that value
	 * (rank ceil(160 / 4) = 40 of 0..9 in sixteen copies: the value 2) */
	wq_fill(v, 1000, 0);
	disp_estimate_q_windows(v, WQ_N, WQ_WINDOWS, 250, 1, 7, mult, boot, &e);
	CHECK(e.ci95);
	CHECK_EQ_I64(e.median, 1002);
	CHECK_EQ_I64(e.lo, 1002);
	CHECK_EQ_I64(e.hi, 1002);
	/* windows that drifted by up to 15 x 100: the interval spans window-to-window variation
	 * that resampling single interrupts (each its own window: the interrupt count alone) does
	 * not see; the point estimate is the same plain quartile (rank 40 of 160) */
	wq_fill(v, 1000, 100);
	for (unsigned i = 0; i < WQ_N; i++)
		v[i].win = i;
	disp_estimate_q_windows(v, WQ_N, WQ_N, 250, 1, 7, mult, boot, &iid);
	wq_fill(v, 1000, 100);
	disp_estimate_q_windows(v, WQ_N, WQ_WINDOWS, 250, 1, 7, mult, boot, &e);
	CHECK(e.ci95 && iid.ci95);
	CHECK_EQ_I64(e.median, iid.median);
	CHECK_EQ_I64(e.median, v[39].v);
	CHECK(e.lo <= e.median && e.median <= e.hi);
	CHECK(e.hi - e.lo > iid.hi - iid.lo);
	/* seeded: the same draws give the same interval; simultaneous over 4 it is no narrower */
	wq_fill(v, 1000, 100);
	disp_estimate_q_windows(v, WQ_N, WQ_WINDOWS, 250, 1, 7, mult, boot, &again);
	CHECK_EQ_I64(again.lo, e.lo);
	CHECK_EQ_I64(again.hi, e.hi);
	wq_fill(v, 1000, 100);
	disp_estimate_q_windows(v, WQ_N, WQ_WINDOWS, 250, 4, 7, mult, boot, &again);
	CHECK(again.lo <= e.lo && again.hi >= e.hi);
	/* fewer than DISP_CI_MIN_WINDOWS windows: no interval, the whole range */
	wq_fill(v, 1000, 100);
	disp_estimate_q_windows(v, 5 * WQ_PER_WINDOW, 5, 250, 1, 7, mult, boot, &e);
	CHECK(!e.ci95);
	CHECK_EQ_I64(e.lo, 1000);
	CHECK_EQ_I64(e.hi, 1000 + 9 + 100 * 14); /* windows 0..4 shift by 0, 7, 14, 5, 12 hundred */
}

static void windowed_intervals_separate_a_real_difference(void)
{
	static struct disp_wval v[WQ_N];
	static int64_t boot[DISP_BOOT_RESAMPLES];
	static uint32_t mult[WQ_WINDOWS];
	struct disp_est e[2];
	int64_t lo, hi;

	/* two handlers whose windows drift alike, the second's delivery 2000 higher: not constant */
	wq_fill(v, 1000, 100);
	disp_estimate_q_windows(v, WQ_N, WQ_WINDOWS, 250, 2, 1, mult, boot, &e[0]);
	wq_fill(v, 3000, 100);
	disp_estimate_q_windows(v, WQ_N, WQ_WINDOWS, 250, 2, 2, mult, boot, &e[1]);
	CHECK(!disp_common_value(e, 2, &lo, &hi));
	/* 200 higher, well inside the drift: constant */
	wq_fill(v, 1200, 100);
	disp_estimate_q_windows(v, WQ_N, WQ_WINDOWS, 250, 2, 2, mult, boot, &e[1]);
	CHECK(disp_common_value(e, 2, &lo, &hi));
}

static void irq_values_by_window(void)
{
	const struct disp_window w[3] = { { 0, 0, 2, 0 }, { 0, 0, 0, 0 }, { 0, 0, 3, 0 } };
	const uint64_t ex[5] = { 1300, 1310, DISP_UNMEASURED, 1330, 1340 };
	const uint64_t di[5] = { 1000, 1000, 1000, 1000, 1000 };
	struct disp_wval v[5];

	CHECK_EQ_U64(disp_irq_values_windows(ex, di, 5, w, 3, DISP_DELIVERY, 0, v), 4);
	CHECK(v[0].v == 300000 && v[0].win == 0 && v[1].v == 310000 && v[1].win == 0);
	CHECK(v[2].v == 330000 && v[2].win == 2 && v[3].v == 340000 && v[3].win == 2);
	/* fewer pairs than the windows counted (the raw buffers were full): the rest is left out */
	CHECK_EQ_U64(disp_irq_values_windows(ex, di, 3, w, 3, DISP_DELIVERY, 0, v), 2);
}

TEST_SUITE(displace_stats) = {
	{ "windowed_quartile_and_its_interval", windowed_quartile_and_its_interval },
	{ "windowed_intervals_separate_a_real_difference", windowed_intervals_separate_a_real_difference },
	{ "irq_values_by_window", irq_values_by_window },
	{ "window_values_known_cost", window_values_known_cost },
	{ "irq_values_pair_and_skip_unmeasured", irq_values_pair_and_skip_unmeasured },
	{ "median_ci_ranks_match_binomial_tables", median_ci_ranks_match_binomial_tables },
	{ "estimate_is_robust_to_one_window", estimate_is_robust_to_one_window },
	{ "agreement_and_common_value", agreement_and_common_value },
	{ 0, 0 },
};
