/* Randomised sampling periods (see bench/profile/period.h). The handler draws one per sample: one
 * rand_below() call (its two 64-bit divisions are the only ones on the handler path). */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "bench/profile/period.h"

void prof_period_init(struct prof_period *p, uint64_t period, uint64_t seed)
{
	if (period == 0)
		period = 1; /* the contract says >= 1; a zero period would mean an interrupt storm */
	p->max = period;
	p->min = period - period / PROF_PERIOD_WINDOW_DIV;
	rand_seed(&p->r, seed);
}

uint64_t prof_period_next(struct prof_period *p)
{
	/* max - min + 1 cannot overflow: min >= max - max/16 > 0 for max >= 1. */
	return p->min + rand_below(&p->r, p->max - p->min + 1);
}
