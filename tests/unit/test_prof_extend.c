/* The profile's run extension (bench/profile/extend.h) and the muted stream it relies on. */
#include <string.h>

#include "bench/profile/extend.h"
#include "lib/emit.h"
#include "tests/unit/test.h"

#define HZ 1000000000ull /* 1 GHz: one cycle per ns */

static void stops_at_min_samples(void)
{
	struct prof_extend e;

	prof_extend_init(&e, true, HZ);
	CHECK(prof_extend_next(&e, true, 4, 3000000, 3000000));
	CHECK(prof_extend_next(&e, true, 999, 6000000, 3000000));
	CHECK(!prof_extend_next(&e, true, 1000, 9000000, 3000000));
	CHECK_EQ_U64(e.stop, PROF_EXTEND_SAMPLES);
	CHECK_EQ_U64(e.runs, 3);
	CHECK_STR(prof_extend_stop_name(e.stop), "samples");
}

static void time_bound_counts_the_next_run(void)
{
	struct prof_extend e;
	uint64_t bound = HZ / 1000 * PROF_EXTEND_MAX_MS;

	prof_extend_init(&e, true, HZ);
	CHECK_EQ_U64(e.max_cycles, bound);
	/* a run of 40% of the bound: a second fits (80%), a third would not */
	CHECK(prof_extend_next(&e, true, 10, bound / 10 * 4, bound / 10 * 4));
	CHECK(!prof_extend_next(&e, true, 20, bound / 10 * 8, bound / 10 * 4));
	CHECK_EQ_U64(e.stop, PROF_EXTEND_TIME);
	/* unknown counter rate: no extension */
	prof_extend_init(&e, true, 0);
	CHECK(!prof_extend_next(&e, true, 1, 1, 1));
	CHECK_EQ_U64(e.stop, PROF_EXTEND_TIME);
}

static void fixed_period_runs_once(void)
{
	struct prof_extend e;

	prof_extend_init(&e, false, HZ);
	CHECK(!prof_extend_next(&e, true, 1, 1, 1));
	CHECK_EQ_U64(e.stop, PROF_EXTEND_FIXED_PERIOD);
	CHECK_EQ_U64(e.runs, 1);
	CHECK_STR(prof_extend_stop_name(e.stop), "fixed_period");
}

static void failed_run_and_run_bound(void)
{
	struct prof_extend e;

	prof_extend_init(&e, true, HZ);
	CHECK(prof_extend_next(&e, true, 1, 10, 10));
	CHECK(!prof_extend_next(&e, false, 2, 20, 10));
	CHECK_EQ_U64(e.stop, PROF_EXTEND_FAILED);
	CHECK(!prof_extend_next(&e, true, 3, 30, 10)); /* stays stopped */
	prof_extend_init(&e, true, HZ);
	for (unsigned i = 1; i < PROF_EXTEND_MAX_RUNS; i++)
		CHECK(prof_extend_next(&e, true, 0, i, 1));
	CHECK(!prof_extend_next(&e, true, 0, PROF_EXTEND_MAX_RUNS, 1));
	CHECK_EQ_U64(e.stop, PROF_EXTEND_RUNS);
}

static unsigned sent;
static char last[REC_MAX_LINE];

static void sink(const char *line, unsigned len)
{
	memcpy(last, line, len);
	last[len] = '\0';
	sent++;
}

/* Muted: nothing sent, no sequence number or skip counted; a fault still goes out. */
static void muted_stream(void)
{
	emit_init(sink);
	sent = 0;
	emit_msg(MSG_INFO, "before");
	emit_mute(true);
	CHECK(emit_muted());
	emit_msg(MSG_INFO, "muted");
	emit_skip("spin", "muted");
	CHECK_EQ_U64(sent, 1);
	CHECK_EQ_U64(emit_count(), 1);
	CHECK_EQ_U64(emit_skip_count(), 0);
	(void)emit_start("fault");
	emit_finish();
	CHECK_EQ_U64(sent, 2);
	CHECK(strstr(last, "@BM 2 1 fault") == last);
	emit_mute(false);
	emit_msg(MSG_INFO, "after");
	CHECK(strstr(last, "@BM 2 2 msg") == last);
	emit_init(0);
}

TEST_SUITE(prof_extend) = {
	{ "stops_at_min_samples", stops_at_min_samples },
	{ "time_bound_counts_the_next_run", time_bound_counts_the_next_run },
	{ "fixed_period_runs_once", fixed_period_runs_once },
	{ "failed_run_and_run_bound", failed_run_and_run_bound },
	{ "muted_stream", muted_stream },
	{ 0, 0 },
};
