/* TSC calibration against model clocks: a simulated timeline where every read advances time. */
#include "bench/facts/x86_64/tsc_cal.h"
#include "tests/unit/test.h"

/* Simulated time in picoseconds; each read costs some time. */
static uint64_t now_ps;
static uint64_t tsc_hz_model = 2445000000ull;

static uint64_t model_tsc(void)
{
	now_ps += 20000; /* 20 ns per TSC read */
	return now_ps * (tsc_hz_model / 1000000) / 1000000;
}

struct model_ref {
	uint64_t hz, mask, read_cost_ps;
	int stuck;
};

static uint64_t model_ref_read(void *ctx)
{
	struct model_ref *r = ctx;

	now_ps += r->read_cost_ps;
	if (r->stuck)
		return 12345;
	return (now_ps / 1000 * r->hz / 1000000000ull) & r->mask;
}

static void two_references_agree(void)
{
	struct model_ref pm = { 3579545, 0xFFFFFF, 250000, 0 }, hpet = { 100000000, ~0ull, 470000, 0 };
	struct ref_clock refs[2] = {
		{ "pm_timer", 3579545, 0xFFFFFF, model_ref_read, &pm },
		{ "hpet", 100000000, ~0ull, model_ref_read, &hpet },
	};
	struct tsc_cal_result res[2];

	now_ps = 1000000000000ull; /* start at 1 s, PM timer mid-wrap */
	tsc_cal_window(refs, 2, 100, model_tsc, res);
	CHECK(res[0].ok && res[1].ok);
	CHECK(tsc_cal_ppm(res[0].hz, tsc_hz_model) < 100);
	CHECK(tsc_cal_ppm(res[1].hz, tsc_hz_model) < 100);
	CHECK(res[0].ref_ticks >= 357954);
}

static void follows_wrap(void)
{
	/* A 24-bit counter at 3.58 MHz wraps every 4.7 s: a 5 s window must still be right. */
	struct model_ref pm = { 3579545, 0xFFFFFF, 250000, 0 };
	struct ref_clock refs[1] = { { "pm_timer", 3579545, 0xFFFFFF, model_ref_read, &pm } };
	struct tsc_cal_result res[1];

	now_ps = 0;
	tsc_cal_window(refs, 1, 5000, model_tsc, res);
	CHECK(res[0].ok);
	CHECK(res[0].ref_ticks > 0xFFFFFF);
	CHECK(tsc_cal_ppm(res[0].hz, tsc_hz_model) < 10);
}

static void stuck_reference_is_dropped(void)
{
	struct model_ref pm = { 3579545, 0xFFFFFF, 250000, 0 }, dead = { 100000000, ~0ull, 1000, 1 };
	struct ref_clock refs[2] = {
		{ "pm_timer", 3579545, 0xFFFFFF, model_ref_read, &pm },
		{ "hpet", 100000000, ~0ull, model_ref_read, &dead },
	};
	struct tsc_cal_result res[2];

	now_ps = 0;
	tsc_cal_window(refs, 2, 50, model_tsc, res);
	CHECK(res[0].ok);
	CHECK(!res[1].ok);
	CHECK(tsc_cal_ppm(res[0].hz, tsc_hz_model) < 200);
}

static void ppm(void)
{
	CHECK_EQ_U64(tsc_cal_ppm(1000000, 1000001), 1);
	CHECK_EQ_U64(tsc_cal_ppm(2000, 1000), 1000000);
	CHECK_EQ_U64(tsc_cal_ppm(0, 5), 0);
}

TEST_SUITE(tsc_cal) = {
	{ "two_references_agree", two_references_agree },
	{ "follows_wrap", follows_wrap },
	{ "stuck_reference_is_dropped", stuck_reference_is_dropped },
	{ "ppm", ppm },
	{ 0, 0 },
};
