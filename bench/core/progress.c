/* The run's progress (see progress.h). */
/* OPT_SMALL: -Os (Makefile): reads the counter for the progress line, between probes. */
#include "bench/core/progress.h"

#include "arch/cycles.h"

#define SECONDS_PER_MINUTE 60u
#define SECONDS_PER_HOUR 3600u

static struct progress run;
static progress_sink_fn sink, line_sink;
static uint64_t last_line; /* counter at the last plain line; 0: none yet */

void progress_set_sink(progress_sink_fn fn)
{
	sink = fn;
}

void progress_set_line_sink(progress_sink_fn fn)
{
	line_sink = fn;
}

bool progress_line_due(uint64_t last, uint64_t now, uint64_t hz, bool probe_start)
{
	if (!hz)
		return probe_start; /* no clock to pace by: a line per probe, never per set */
	return !last || now - last >= hz * PROGRESS_LINE_MIN_S;
}

/* The status as one plain line: the two screen lines joined by "; " (no control characters). */
static void put_line(const char *text)
{
	char line[PROGRESS_TEXT_MAX + 32];
	struct sbuf sb;

	sb_init(&sb, line, sizeof(line));
	sb_puts(&sb, "baremetric progress: ");
	for (; *text; text++) {
		if (*text == '\n')
			sb_puts(&sb, "; ");
		else
			sb_putc(&sb, *text);
	}
	line_sink(line);
}

static void update(bool probe_start)
{
	char text[PROGRESS_TEXT_MAX];
	struct sbuf sb;
	uint64_t now;

	if (!sink && !line_sink)
		return;
	now = cycles_read();
	sb_init(&sb, text, sizeof(text));
	progress_format(&run, now, &sb);
	if (sink)
		sink(text);
	if (line_sink && progress_line_due(last_line, now, run.hz, probe_start)) {
		last_line = now ? now : 1;
		put_line(text);
	}
}

void progress_begin(const char *probe_list, uint64_t passes, uint64_t hz)
{
	run = (struct progress){ .hz = hz, .t0 = cycles_read() };
	last_line = 0;
	for (const char *p = probe_list; *p; p++)
		run.probes += *p == ',';
	run.probes += *probe_list != 0;
	run.probes *= (unsigned)(passes ? passes : 1);
}

void progress_probe(const char *name)
{
	run.probe_k++;
	run.probe = name;
	run.probe_sets = 0;
	update(true);
}

void progress_set(void)
{
	run.probe_sets++;
	run.sets++;
	update(false);
}

static void two_digits(struct sbuf *out, uint64_t v)
{
	sb_putc(out, (char)('0' + v / 10));
	sb_putc(out, (char)('0' + v % 10));
}

void progress_time(struct sbuf *out, uint64_t s)
{
	if (s >= SECONDS_PER_HOUR) {
		sb_u64(out, s / SECONDS_PER_HOUR);
		sb_putc(out, ':');
		two_digits(out, s % SECONDS_PER_HOUR / SECONDS_PER_MINUTE);
	} else {
		sb_u64(out, s / SECONDS_PER_MINUTE);
	}
	sb_putc(out, ':');
	two_digits(out, s % SECONDS_PER_MINUTE);
}

uint64_t progress_estimate(uint64_t elapsed, unsigned done, unsigned total)
{
	if (!done || done >= total)
		return 0;
	/* counter ticks: no overflow for runs of years at GHz rates and thousands of probes */
	return elapsed * (2 * (uint64_t)(total - done) - 1) / (2 * (uint64_t)done + 1);
}

void progress_format(const struct progress *p, uint64_t now, struct sbuf *out)
{
	unsigned done = p->probe_k ? p->probe_k - 1 : 0;

	sb_puts(out, "probe ");
	sb_u64(out, p->probe_k);
	sb_puts(out, " of ");
	sb_u64(out, p->probes);
	if (p->probe) {
		sb_puts(out, ": ");
		sb_puts(out, p->probe);
	}
	sb_puts(out, ", set ");
	sb_u64(out, p->probe_sets);
	sb_puts(out, " of this probe (");
	sb_u64(out, p->sets);
	sb_puts(out, " in the run)\n");
	if (!p->hz) {
		sb_puts(out, "elapsed: unknown (no counter rate)");
		return;
	}
	sb_puts(out, "elapsed ");
	progress_time(out, (now - p->t0) / p->hz);
	if (!done) {
		sb_puts(out, ", time left: estimated after the first probe");
		return;
	}
	sb_puts(out, ", about ");
	progress_time(out, progress_estimate(now - p->t0, done, p->probes) / p->hz);
	sb_puts(out, " left (from the probes so far)");
}
