/* TSC calibration (see tsc_cal.h). */
#include "bench/facts/x86_64/tsc_cal.h"

#define MS_PER_S 1000u
/* Bound on polls: no reference read takes under a nanosecond, so a window can never need more. */
#define TSC_CAL_POLLS_PER_MS 1000000u

struct ref_state {
	uint64_t last, acc, tsc_start, unchanged;
	bool live;
};

static uint64_t stamp(const struct ref_clock *c, uint64_t (*tsc_read)(void), uint64_t *ref)
{
	uint64_t a = tsc_read();

	*ref = c->read(c->ctx) & c->mask;
	return a + (tsc_read() - a) / 2;
}

static void poll(const struct ref_clock *c, struct ref_state *s)
{
	uint64_t now = c->read(c->ctx) & c->mask;
	uint64_t d = (now - s->last) & c->mask;

	if (d) {
		s->acc += d;
		s->last = now;
		s->unchanged = 0;
	} else if (++s->unchanged >= TSC_CAL_STUCK_POLLS) {
		s->live = false;
	}
}

void tsc_cal_window(const struct ref_clock *refs, unsigned nrefs, uint64_t window_ms,
		    uint64_t (*tsc_read)(void), struct tsc_cal_result *out)
{
	struct ref_state st[TSC_CAL_MAX_REFS];
	unsigned i;
	uint64_t want, polls = 0, max_polls = (window_ms + 1) * TSC_CAL_POLLS_PER_MS;

	if (nrefs > TSC_CAL_MAX_REFS)
		nrefs = TSC_CAL_MAX_REFS;
	for (i = 0; i < nrefs; i++) {
		out[i] = (struct tsc_cal_result){ false, 0, 0, 0 };
		st[i].acc = 0;
		st[i].unchanged = 0;
		st[i].live = true;
		st[i].tsc_start = stamp(&refs[i], tsc_read, &st[i].last);
	}
	for (;;) {
		bool any = false, done = true;

		for (i = 0; i < nrefs; i++) {
			if (!st[i].live)
				continue;
			any = true;
			poll(&refs[i], &st[i]);
			want = refs[i].hz * window_ms / MS_PER_S;
			if (st[i].acc < want)
				done = false;
		}
		if (!any || done || ++polls > max_polls)
			break;
	}
	for (i = 0; i < nrefs; i++) {
		uint64_t ref, cycles_end;

		if (!st[i].live)
			continue;
		cycles_end = stamp(&refs[i], tsc_read, &ref);
		st[i].acc += (ref - st[i].last) & refs[i].mask;
		out[i].ref_ticks = st[i].acc;
		out[i].tsc_ticks = cycles_end - st[i].tsc_start;
		/* ticks * hz stays below 2^64 for windows up to 5 s at 10 GHz and a 100 MHz reference
		 * only if split: divide first by the reference ticks' share of a second. */
		if (out[i].ref_ticks) {
			out[i].hz = out[i].tsc_ticks / out[i].ref_ticks * refs[i].hz +
				    (out[i].tsc_ticks % out[i].ref_ticks) * refs[i].hz / out[i].ref_ticks;
			out[i].ok = true;
		}
	}
}

uint64_t tsc_cal_ppm(uint64_t a, uint64_t b)
{
	uint64_t lo = a < b ? a : b, d = a > b ? a - b : b - a;

	if (!lo)
		return 0;
	return d * 1000000 / lo;
}
