/* EL1 generic timers (see gtimer.h). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "drivers/timer/aarch64/gtimer.h"

static const enum gtimer_reg ctl_reg[] = { GT_CNTV_CTL, GT_CNTP_CTL };
static const enum gtimer_reg cval_reg[] = { GT_CNTV_CVAL, GT_CNTP_CVAL };

void gtimer_measure_offset(struct gtimer *t)
{
	uint64_t best = ~0ull;

	for (unsigned i = 0; i < GTIMER_OFFSET_TRIES; i++) {
		uint64_t v0 = t->io->read(t->io->ctx, GT_CNTVCT);
		uint64_t p = t->io->read(t->io->ctx, GT_CNTPCT);
		uint64_t v1 = t->io->read(t->io->ctx, GT_CNTVCT);

		if (v1 >= v0 && v1 - v0 < best) {
			best = v1 - v0;
			/* CNTPCT was read somewhere in [v0, v1]: the midpoint, +- half the bracket */
			t->cntvoff = (int64_t)(p - v0 - (v1 - v0) / 2);
			t->cntvoff_uncertainty = (v1 - v0 + 1) / 2;
		}
	}
}

void gtimer_arm(const struct gtimer *t, enum gtimer_which w, uint64_t deadline)
{
	uint64_t cval = w == GT_PHYS ? deadline + (uint64_t)t->cntvoff : deadline;

	t->io->write(t->io->ctx, cval_reg[w], cval);
	t->io->write(t->io->ctx, ctl_reg[w], CNT_CTL_ENABLE);
}

void gtimer_stop(const struct gtimer *t, enum gtimer_which w)
{
	t->io->write(t->io->ctx, ctl_reg[w], 0);
}

bool gtimer_enabled(const struct gtimer *t, enum gtimer_which w)
{
	return (t->io->read(t->io->ctx, ctl_reg[w]) & CNT_CTL_ENABLE) != 0;
}

uint64_t gtimer_cval(const struct gtimer *t, enum gtimer_which w)
{
	return t->io->read(t->io->ctx, cval_reg[w]);
}

uint64_t gtimer_next_period(uint64_t cval, uint64_t period, uint64_t now, unsigned max_skips)
{
	uint64_t next = cval + period;

	for (unsigned i = 0; next <= now && i < max_skips; i++)
		next += period;
	return next;
}
