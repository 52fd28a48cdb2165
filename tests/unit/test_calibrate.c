/* The runner's iteration calibration against model clocks. */
#include "bench/core/calibrate.h"
#include "bench/core/runner.h"
#include "tests/unit/test.h"

struct model {
	uint64_t per_iter, fixed; /* cycles = fixed + per_iter * iters */
	uint64_t first_extra;     /* a cold first call */
	unsigned calls;
};

static uint64_t model_time(void *ctx, uint64_t iters)
{
	struct model *m = ctx;
	uint64_t t = m->fixed + m->per_iter * iters;

	if (m->calls++ == 0)
		t += m->first_extra;
	return t;
}

static void reaches_target_minimally(void)
{
	struct model m = { 3, 40, 0, 0 };
	struct calib_result r = calibrate_iterations(model_time, &m, 100000, 1ull << 40);

	CHECK(!r.capped);
	CHECK(r.last_cycles >= 100000);
	/* no more than ~10% above the smallest count that reaches the target (plus rounding) */
	CHECK(r.iters <= (100000 - 40) / 3 * 12 / 10 + 2);
	CHECK(r.steps < 20);
}

static void slow_operation_needs_one_iteration(void)
{
	struct model m = { 500000, 40, 0, 0 };
	struct calib_result r = calibrate_iterations(model_time, &m, 100000, 1ull << 40);

	CHECK_EQ_U64(r.iters, 1);
	CHECK_EQ_U64(r.steps, 1);
}

static void zero_cost_operation_is_capped(void)
{
	struct model m = { 0, 30, 0, 0 };
	struct calib_result r = calibrate_iterations(model_time, &m, 100000, 1ull << 20);

	CHECK(r.capped);
	CHECK(r.iters <= 1ull << 20);
	CHECK(r.steps <= CALIB_MAX_STEPS);
}

static void honours_max_iters(void)
{
	struct model m = { 1, 0, 0, 0 };
	struct calib_result r = calibrate_iterations(model_time, &m, 1000000, 5000);

	CHECK(r.capped);
	CHECK_EQ_U64(r.iters, 5000);
}

static void target_conversion(void)
{
	/* 50 us at 2.5 GHz = 125000 cycles */
	CHECK_EQ_U64(calibrate_target_cycles(50000, 2500000000ull, 30), 125000);
	/* auto: 1000x the overhead */
	CHECK_EQ_U64(calibrate_target_cycles(0, 2500000000ull, 30), 30000);
	CHECK_EQ_U64(calibrate_target_cycles(50000, 0, 30), 30000);
	/* large values do not overflow: 10 s at 5 GHz */
	CHECK_EQ_U64(calibrate_target_cycles(10000000000ull, 5000000000ull, 30), 50000000000ull);
}

TEST_SUITE(calibrate) = {
	{ "reaches_target_minimally", reaches_target_minimally },
	{ "slow_operation_needs_one_iteration", slow_operation_needs_one_iteration },
	{ "zero_cost_operation_is_capped", zero_cost_operation_is_capped },
	{ "honours_max_iters", honours_max_iters },
	{ "target_conversion", target_conversion },
	{ 0, 0 },
};
