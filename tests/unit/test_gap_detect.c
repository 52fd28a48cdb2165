/* The noise probe's gap detector on synthetic TSC traces: steady loops with no gap, gaps of known
 * places and lengths, the threshold edge, storage overflow, and the automatic threshold. */
#include "bench/stats/gap_detect.h"
#include "tests/unit/test.h"

#define STEP 40

/* Feed `steps` readings STEP apart starting after t, inserting `extra` cycles before reading
 * number `at` (none when at == 0); returns the last TSC. */
static uint64_t feed(struct gap_detector *d, uint64_t t, unsigned steps, unsigned at, uint64_t extra)
{
	for (unsigned i = 1; i <= steps; i++) {
		t += STEP + (i == at ? extra : 0);
		gap_feed(d, t);
	}
	return t;
}

static void steady_trace_has_no_gaps(void)
{
	struct gap_detector d;
	uint64_t s[4], l[4];

	gap_init(&d, s, l, 4, gap_threshold(STEP, 0), 1000);
	feed(&d, 1000, 10000, 0, 0);
	CHECK_EQ_U64(d.steps, 10000);
	CHECK_EQ_U64(d.count, 0);
	CHECK_EQ_U64(d.total, 0);
	CHECK_EQ_U64(d.longest, 0);
}

static void gaps_found_where_and_how_long(void)
{
	struct gap_detector d;
	uint64_t s[4], l[4], t;

	gap_init(&d, s, l, 4, gap_threshold(STEP, 0), 5000);
	t = feed(&d, 5000, 100, 50, 100000);  /* a 100 us-ish gap at the 50th step */
	t = feed(&d, t, 100, 10, 3000);
	CHECK_EQ_U64(d.count, 2);
	CHECK_EQ_U64(d.stored, 2);
	CHECK_EQ_U64(l[0], STEP + 100000);
	CHECK_EQ_U64(s[0], 49 * STEP);       /* began after 49 normal steps */
	CHECK_EQ_U64(l[1], STEP + 3000);
	CHECK_EQ_U64(s[1], 100 * STEP + 100000 + 9 * STEP);
	CHECK_EQ_U64(d.total, 2 * STEP + 103000);
	CHECK_EQ_U64(d.longest, STEP + 100000);
}

static void threshold_is_strict(void)
{
	struct gap_detector d;
	uint64_t s[2], l[2];

	gap_init(&d, s, l, 2, 10 * STEP, 0);
	feed(&d, 0, 3, 2, 9 * STEP);      /* step == threshold: not a gap */
	CHECK_EQ_U64(d.count, 0);
	feed(&d, 1000000, 3, 2, 9 * STEP + 1);
	CHECK_EQ_U64(d.count, 2); /* the jump to 1000000 itself, then the step one above */
}

static void overflow_counts_but_does_not_store(void)
{
	struct gap_detector d;
	uint64_t s[2], l[2], t = 0;

	gap_init(&d, s, l, 2, gap_threshold(STEP, 0), 0);
	for (int i = 0; i < 5; i++)
		t = feed(&d, t, 10, 5, 1000 * (uint64_t)(i + 1));
	CHECK_EQ_U64(d.count, 5);
	CHECK_EQ_U64(d.stored, 2);
	CHECK_EQ_U64(d.dropped, 3);
	CHECK_EQ_U64(d.longest, STEP + 5000); /* from a gap that was not stored */
	CHECK_EQ_U64(d.total, 5 * STEP + 15000);
}

static void automatic_threshold(void)
{
	CHECK_EQ_U64(gap_threshold(25, 0), 250);
	CHECK_EQ_U64(gap_threshold(25, 777), 777);
	CHECK_EQ_U64(gap_threshold(0, 0), 1);
}

/* Two paces in the calibration trace, as TCG's counter gives (steps of 24/25 or 49 cycles, their
 * shares changing from boot to boot): the loop step is the slow pace whichever pace is the
 * majority, so the default threshold does not halve from one boot to the next. */
static void loop_step_is_the_slow_pace(void)
{
	uint64_t v[1000];

	for (int i = 0; i < 1000; i++)
		v[i] = i < 650 ? 25 : 49; /* fast pace the majority: the median would be 25 */
	CHECK_EQ_U64(gap_loop_step(v, 1000), 49);
	for (int i = 0; i < 1000; i++)
		v[i] = i < 350 ? 25 : 49;
	CHECK_EQ_U64(gap_loop_step(v, 1000), 49);
	for (int i = 0; i < 1000; i++)
		v[i] = i < 5 ? 100000 : 30; /* a few real gaps in the calibration do not move it */
	CHECK_EQ_U64(gap_loop_step(v, 1000), 30);
	CHECK_EQ_U64(gap_loop_step(v, 0), 0);
}

TEST_SUITE(gap_detect) = {
	{ "steady_trace_has_no_gaps", steady_trace_has_no_gaps },
	{ "gaps_found_where_and_how_long", gaps_found_where_and_how_long },
	{ "threshold_is_strict", threshold_is_strict },
	{ "overflow_counts_but_does_not_store", overflow_counts_but_does_not_store },
	{ "automatic_threshold", automatic_threshold },
	{ "loop_step_is_the_slow_pace", loop_step_is_the_slow_pace },
	{ 0, 0 },
};
