/* The run's progress (see progress.h). */
/* OPT_SMALL: -Os (Makefile): reads the counter for the progress line, between probes. */
#include "bench/core/progress.h"

#include "arch/cycles.h"

#define SECONDS_PER_MINUTE 60u
#define SECONDS_PER_HOUR 3600u

static struct progress run;
static progress_sink_fn sink;

void progress_set_sink(progress_sink_fn fn)
{
	sink = fn;
}

static void update(void)
{
	char text[PROGRESS_TEXT_MAX];
	struct sbuf sb;

	if (!sink)
		return;
	sb_init(&sb, text, sizeof(text));
	progress_format(&run, cycles_read(), &sb);
	sink(text);
}

void progress_begin(const char *probe_list, uint64_t hz)
{
	run = (struct progress){ .hz = hz, .t0 = cycles_read() };
	for (const char *p = probe_list; *p; p++)
		run.probes += *p == ',';
	run.probes += *probe_list != 0;
}

void progress_probe(const char *name)
{
	run.probe_k++;
	run.probe = name;
	run.probe_sets = 0;
	update();
}

void progress_set(void)
{
	run.probe_sets++;
	run.sets++;
	update();
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
