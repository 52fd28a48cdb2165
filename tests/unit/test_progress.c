/* The run's progress text (bench/core/progress.c): time formatting, the estimate of the time
 * left, the status lines, and the counting through the suite's and the sets' calls. */
#include "test.h"

#include "bench/core/progress.h"

static char shown[PROGRESS_TEXT_MAX];
static unsigned updates;

static void capture(const char *text)
{
	snprintf(shown, sizeof(shown), "%s", text);
	updates++;
}

static const char *fmt_time(uint64_t s)
{
	static char buf[32];
	struct sbuf sb;

	sb_init(&sb, buf, sizeof(buf));
	progress_time(&sb, s);
	return buf;
}

static const char *fmt(const struct progress *p, uint64_t now)
{
	static char buf[PROGRESS_TEXT_MAX];
	struct sbuf sb;

	sb_init(&sb, buf, sizeof(buf));
	progress_format(p, now, &sb);
	CHECK(!sb.overflow);
	return buf;
}

static void times_and_estimates(void)
{
	CHECK_STR(fmt_time(0), "0:00");
	CHECK_STR(fmt_time(61), "1:01");
	CHECK_STR(fmt_time(3599), "59:59");
	CHECK_STR(fmt_time(3600), "1:00:00");
	CHECK_STR(fmt_time(3725), "1:02:05");
	CHECK_STR(fmt_time(36000 + 59), "10:00:59");
	/* 1 of 5 done in 30 s, the second half done: 30 x 3.5 / 1.5 = 70 */
	CHECK_EQ_U64(progress_estimate(30, 1, 5), 70);
	CHECK_EQ_U64(progress_estimate(90, 4, 5), 10); /* the last one: 90 x 0.5 / 4.5 */
	CHECK_EQ_U64(progress_estimate(30, 0, 5), 0);  /* nothing finished: nothing to go by */
	CHECK_EQ_U64(progress_estimate(30, 5, 5), 0);
}

static void status_lines(void)
{
	struct progress p = { .hz = 1000, .t0 = 5000, .probes = 14, .probe_k = 5, .probe = "membw",
			      .probe_sets = 37, .sets = 112 };

	/* 83 s in, 4 done: 83 x 9.5 / 4.5 = 175 s left */
	CHECK_STR(fmt(&p, 5000 + 83000), "probe 5 of 14: membw, set 37 of this probe (112 in the run)\n"
					  "elapsed 1:23, about 2:55 left (from the probes so far)");
	p.probe_k = 1;
	CHECK_STR(fmt(&p, 5000 + 2000), "probe 1 of 14: membw, set 37 of this probe (112 in the run)\n"
					 "elapsed 0:02, time left: estimated after the first probe");
	p.hz = 0;
	CHECK_STR(fmt(&p, 9999), "probe 1 of 14: membw, set 37 of this probe (112 in the run)\n"
				 "elapsed: unknown (no counter rate)");
}

static void counted_by_the_calls(void)
{
	updates = 0;
	progress_set_sink(capture);
	progress_begin("timer,membw,latency", 1, 0);
	CHECK_EQ_U64(updates, 0); /* nothing shown before the first probe */
	progress_probe("timer");
	CHECK(!strncmp(shown, "probe 1 of 3: timer, set 0 of this probe (0 in the run)\n", 56));
	progress_set();
	progress_set();
	progress_probe("membw");
	progress_set();
	CHECK(!strncmp(shown, "probe 2 of 3: membw, set 1 of this probe (3 in the run)\n", 56));
	CHECK_EQ_U64(updates, 5);
	progress_begin("", 1, 0);
	progress_probe("x");
	CHECK(!strncmp(shown, "probe 1 of 0: x,", 16));
	progress_set_sink(0);
	progress_set();
	CHECK_EQ_U64(updates, 6); /* no sink: counted, not shown */
}

static char line_shown[PROGRESS_TEXT_MAX + 32];
static unsigned lines;

static void capture_line(const char *text)
{
	snprintf(line_shown, sizeof(line_shown), "%s", text);
	lines++;
}

/* The serial console's plain lines: one a second at most by the counter, once per probe without
 * a rate, one line each (no newline, no control character), and passes multiply the probe count. */
static void plain_lines_paced(void)
{
	const uint64_t hz = 1000;

	CHECK(progress_line_due(0, 5, hz, false));           /* the first one */
	CHECK(!progress_line_due(100, 100 + hz - 1, hz, true)); /* under a second: none, not even at a probe */
	CHECK(progress_line_due(100, 100 + hz, hz, false));
	CHECK(progress_line_due(100, 101, 0, true) && !progress_line_due(100, 101, 0, false));

	lines = 0;
	progress_set_sink(0);
	progress_set_line_sink(capture_line);
	progress_begin("timer,spin", 3, 0); /* no rate: a line per probe start */
	progress_probe("timer");
	progress_set();
	progress_set();
	CHECK_EQ_U64(lines, 1);
	CHECK_STR(line_shown, "baremetric progress: probe 1 of 6: timer, set 0 of this probe (0 in the run); "
			      "elapsed: unknown (no counter rate)");
	for (const char *c = line_shown; *c; c++)
		CHECK(*c >= 0x20 && *c < 0x7F);
	progress_probe("spin");
	CHECK_EQ_U64(lines, 2);
	progress_set_line_sink(0);
}

TEST_SUITE(progress) = {
	{ "plain_lines_paced", plain_lines_paced },
	{ "times_and_estimates", times_and_estimates },
	{ "status_lines", status_lines },
	{ "counted_by_the_calls", counted_by_the_calls },
	{ 0, 0 },
};
