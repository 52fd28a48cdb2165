/* The footprint probe's integer statistics: integer square root, the trimmed mean and its CI,
 * the stopping rule, and the calibration curve (saturation, inversion, the held-out verdict). */
#include "lib/intmath.h"
#include "bench/probes/mem/chain.h"
#include "bench/stats/footprint.h"
#include "bench/core/options.h"
#include "tests/unit/test.h"

static void isqrt_exact_and_floor(void)
{
	CHECK_EQ_U64(u64_isqrt(0), 0);
	CHECK_EQ_U64(u64_isqrt(1), 1);
	CHECK_EQ_U64(u64_isqrt(15), 3);
	CHECK_EQ_U64(u64_isqrt(16), 4);
	CHECK_EQ_U64(u64_isqrt(1000000000000ull), 1000000);
	CHECK_EQ_U64(u64_isqrt(UINT64_MAX), 4294967295ull);
}

static void trimmed_mean_drops_outliers(void)
{
	int64_t v[20];
	uint64_t scratch[20];
	struct fp_est e;

	for (int i = 0; i < 20; i++)
		v[i] = 100 + (i % 2 ? 1 : -1); /* 99, 101, ... */
	v[3] = 100000;                          /* one high outlier (a context switch) */
	v[7] = -50000;                          /* one low outlier */
	CHECK(fp_estimate(v, 20, scratch, &e));
	CHECK_EQ_U64(e.used, 16);
	CHECK(e.mean_m >= 99000 && e.mean_m <= 101000);
	CHECK(e.ci_m > 0 && e.ci_m < 1500);
	CHECK(!fp_estimate(v, 2, scratch, &e));
}

static void negative_values_and_constant_sets(void)
{
	int64_t v[16];
	uint64_t scratch[16];
	struct fp_est e;

	for (int i = 0; i < 16; i++)
		v[i] = -250;
	CHECK(fp_estimate(v, 16, scratch, &e));
	CHECK(e.mean_m == -250000);
	CHECK(e.ci_m == 0);
	CHECK(fp_converged(&e, 16, 0));
	CHECK(!fp_converged(&e, 15, 0)); /* fewer than the paper's 16 repetitions */
}

/* A wide spread (an L2 lap disturbed by a context switch: 10^7 cycles) must not overflow the
 * sum of squares: the CI stays the right size. */
static void wide_spread_no_overflow(void)
{
	int64_t v[200];
	uint64_t scratch[200];
	struct fp_est e;

	for (int i = 0; i < 200; i++)
		v[i] = i % 2 ? 20000000 : 0; /* mean 10^7, sd ~10^7 */
	CHECK(fp_estimate(v, 200, scratch, &e));
	CHECK(e.mean_m == 10000000000ll);
	/* t(159) * 10^7 / sqrt(160) ~ 1.56e6 cycles */
	CHECK(e.ci_m > 1500000000ll && e.ci_m < 1650000000ll);
}

static void stopping_rule(void)
{
	struct fp_est e = { .mean_m = 100000, .ci_m = 5000, .used = 30 };

	CHECK(fp_converged(&e, 32, 0));
	e.ci_m = 5001;
	CHECK(!fp_converged(&e, 32, 0));
	CHECK(fp_converged(&e, 32, 6000)); /* within one line's cost */
	e.mean_m = 0;
	e.ci_m = 100;
	CHECK(!fp_converged(&e, 32, 50));
}

/* m = 2K up to K = 400, then flat: a level that saturates after 400 foreign lines. */
static void make_curve(struct fp_curve *c)
{
	static const uint64_t k[] = { 0, 50, 100, 200, 400, 600, 800 };
	static const int64_t m[] = { 0, 100, 200, 400, 800, 850, 860 };

	*c = (struct fp_curve){ .n = 7 };
	for (unsigned i = 0; i < 7; i++) {
		c->k[i] = k[i];
		c->m[i] = m[i] * FP_MILLI;
		c->ci[i] = 5 * FP_MILLI;
	}
	fp_curve_saturation(c);
}

static void curve_saturation_and_inversion(void)
{
	struct fp_curve c;
	int64_t k;

	make_curve(&c);
	CHECK_EQ_U64(c.valid, 4);
	CHECK_EQ_U64(fp_curve_sat_k(&c), 600);
	CHECK(fp_curve_invert(&c, 300 * FP_MILLI, 0, &k) == FP_INV_OK);
	CHECK(k == 150 * FP_MILLI);
	CHECK(fp_curve_invert(&c, 801 * FP_MILLI, 0, &k) == FP_INV_SATURATED);
	CHECK(fp_curve_invert(&c, -3 * FP_MILLI, 5 * FP_MILLI, &k) == FP_INV_BELOW && k == 0);
	CHECK(fp_curve_invert(&c, 50 * FP_MILLI, 0, &k) == FP_INV_BELOW && k == 25 * FP_MILLI);
	CHECK(fp_curve_invert(&c, 100 * FP_MILLI, 0, &k) == FP_INV_OK && k == 50 * FP_MILLI);
	CHECK(fp_curve_invert(&c, -30 * FP_MILLI, 5 * FP_MILLI, &k) == FP_INV_NEGATIVE);
	/* a flat stretch below a later rise is not saturation */
	CHECK_EQ_U64(c.lo, 1);
	c.m[2] = 110 * FP_MILLI;
	fp_curve_saturation(&c);
	CHECK_EQ_U64(c.valid, 4);
	CHECK_EQ_U64(c.lo, 2); /* ... but the calibrated range starts above it */
	CHECK(fp_curve_invert(&c, 105 * FP_MILLI, 0, &k) == FP_INV_BELOW);
	CHECK(fp_judge(&c, 80, FP_INV_OK, 80 * FP_MILLI, 0, 0, true) == FP_BELOW);
}

/* A first point measured at or below K = 0's zero (noise at a time-bounded level) is no anchor:
 * the range starts at the next point, and a held-out K under it is below_range, not a number
 * interpolated from the negative point (the shape of a guest's 2 MiB L2 curve: 1,536 measured
 * -248 lines, 1,920 came out 2,788 and failed). */
static void curve_starts_above_zero(void)
{
	struct fp_curve c;
	int64_t k;

	make_curve(&c);
	c.m[1] = -248 * FP_MILLI;        /* K = 50 */
	fp_curve_saturation(&c);
	CHECK_EQ_U64(c.valid, 4);
	CHECK_EQ_U64(c.lo, 2);           /* from K = 100 */
	CHECK(fp_curve_invert(&c, 120 * FP_MILLI, 0, &k) == FP_INV_BELOW);
	CHECK(fp_judge(&c, 60, FP_INV_BELOW, k, 0, 0, false) == FP_BELOW);
	CHECK(fp_curve_invert(&c, 300 * FP_MILLI, 0, &k) == FP_INV_OK && k == 150 * FP_MILLI);
	c.m[1] = 0;                      /* zero: no anchor either */
	fp_curve_saturation(&c);
	CHECK_EQ_U64(c.lo, 2);
	for (unsigned i = 1; i < 7; i++) /* nothing measured: the range shrinks to its top point */
		c.m[i] = -(int64_t)i * FP_MILLI;
	fp_curve_saturation(&c);
	CHECK(c.lo <= c.valid);
}

static void held_out_verdicts(void)
{
	struct fp_curve c;

	make_curve(&c);
	CHECK(fp_judge(&c, 150, FP_INV_OK, 170 * FP_MILLI, 0, 0, true) == FP_PASS);
	CHECK(fp_judge(&c, 150, FP_INV_OK, 181 * FP_MILLI, 0, 0, true) == FP_FAIL);  /* +20.7% */
	CHECK(fp_judge(&c, 150, FP_INV_OK, 120 * FP_MILLI, 0, 0, true) == FP_PASS);  /* -20% exactly */
	CHECK(fp_judge(&c, 150, FP_INV_SATURATED, 0, 0, 0, true) == FP_FAIL);
	CHECK(fp_judge(&c, 150, FP_INV_NEGATIVE, 0, 0, 0, true) == FP_FAIL);
	CHECK(fp_judge(&c, 700, FP_INV_SATURATED, 0, 0, 0, true) == FP_SATURATED);
	CHECK(fp_judge(&c, 700, FP_INV_OK, 390 * FP_MILLI, 0, 0, true) == FP_SATURATED); /* at the top: flat */
	CHECK(fp_judge(&c, 700, FP_INV_OK, 100 * FP_MILLI, 0, 0, true) == FP_FAIL);      /* absurdly small */
	CHECK(fp_judge(&c, 700, FP_INV_NEGATIVE, 0, 0, 0, true) == FP_FAIL);
	CHECK(fp_judge(&c, 30, FP_INV_BELOW, 20 * FP_MILLI, 0, 0, true) == FP_BELOW); /* under k[1] = 50 */
	CHECK(fp_judge(&c, 30, FP_INV_NEGATIVE, 0, 0, 0, true) == FP_FAIL);
	CHECK(fp_judge(&c, 60, FP_INV_BELOW, 40 * FP_MILLI, 0, 0, true) == FP_FAIL);  /* in range, came back below */
	CHECK_STR(fp_verdict_name(FP_BELOW), "below_range");
	/* off the band: fail when precise; imprecise only when the series hit its time bound and
	 * its CI still reaches into the band */
	CHECK(fp_judge(&c, 150, FP_INV_OK, 190 * FP_MILLI, 170 * FP_MILLI, 230 * FP_MILLI, false) == FP_IMPRECISE);
	CHECK(fp_judge(&c, 150, FP_INV_OK, 190 * FP_MILLI, 170 * FP_MILLI, 230 * FP_MILLI, true) == FP_FAIL);
	CHECK(fp_judge(&c, 150, FP_INV_OK, 220 * FP_MILLI, 200 * FP_MILLI, 240 * FP_MILLI, false) == FP_FAIL);
	CHECK_STR(fp_verdict_name(FP_IMPRECISE), "imprecise");
	CHECK_STR(fp_verdict_name(FP_SATURATED), "saturated");
}

/* The reverse links walk the forward chain's lines backwards: the reverse walk started for a
 * forward lap from head touches the forward lap's lines in the opposite order. */
static void reverse_links_walk_backwards(void)
{
	enum { NODES = 64, LINE = 64 };
	static uint64_t buf[NODES * LINE / 8] __attribute__((aligned(64)));
	uint8_t *fwd[NODES], *p;
	struct rand_state rng;
	void *head;

	rand_seed(&rng, 7);
	head = chain_build_random(buf, NODES, LINE, &rng);
	chain_link_reverse(head, NODES);
	p = head;
	for (unsigned i = 0; i < NODES; i++) {
		fwd[i] = p;
		p = (uint8_t *)(uintptr_t)*(uint64_t *)p;
	}
	CHECK(p == head);
	p = chain_reverse_start(head);
	for (unsigned i = NODES; i-- > 0;) {
		CHECK(p == fwd[i] + CHAIN_REV_OFFSET);
		p = (uint8_t *)(uintptr_t)*(uint64_t *)p;
	}
	CHECK(chain_cycle_length(head, buf, NODES, LINE) == NODES); /* forward links untouched */
}

static void held_out_option(void)
{
	struct config c;
	struct config_parser p = { .cfg = &c };

	config_defaults(&c);
	CHECK_EQ_U64(c.irq_fp_k.n, 0); /* auto */
	CHECK(config_set(&p, "irq_fp_k", "40,300,5000", "test"));
	CHECK(c.irq_fp_k.n == 3 && c.irq_fp_k.v[0] == 40 && c.irq_fp_k.v[1] == 300 && c.irq_fp_k.v[2] == 5000);
	CHECK(!config_set(&p, "irq_fp_k", "40,,3", "test"));
	CHECK(!config_set(&p, "irq_fp_k", "0", "test"));
	CHECK(!config_set(&p, "irq_fp_k", "1,2,3,4,5,6,7,8,9", "test"));
	CHECK(!config_set(&p, "irq_fp_k", "12,", "test"));
	CHECK(!config_set(&p, "irq_fp_k", "999999999", "test"));
	CHECK(!config_set(&p, "irq_fp_k", "40,40", "test"));
	CHECK_EQ_U64(c.irq_fp_k.n, 3); /* a bad value keeps the last good one */
	CHECK(config_set(&p, "irq_fp_k", "auto", "test") && c.irq_fp_k.n == 0);
	CHECK(config_set(&p, "irq_fp_ms", "250", "test") && c.irq_fp_ms == 250);
}

TEST_SUITE(fp_stats) = {
	{ "reverse_links_walk_backwards", reverse_links_walk_backwards },
	{ "held_out_option", held_out_option },
	{ "isqrt_exact_and_floor", isqrt_exact_and_floor },
	{ "trimmed_mean_drops_outliers", trimmed_mean_drops_outliers },
	{ "negative_values_and_constant_sets", negative_values_and_constant_sets },
	{ "wide_spread_no_overflow", wide_spread_no_overflow },
	{ "stopping_rule", stopping_rule },
	{ "curve_saturation_and_inversion", curve_saturation_and_inversion },
	{ "curve_starts_above_zero", curve_starts_above_zero },
	{ "held_out_verdicts", held_out_verdicts },
	{ 0, 0 },
};
