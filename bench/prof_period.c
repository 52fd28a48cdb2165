/* TEMP (lead's stand-in until profcore lands) */
#include "bench/prof_period.h"
void prof_period_init(struct prof_period *p, uint64_t period, uint64_t seed)
{
	p->max = period;
	p->min = period - period / PROF_PERIOD_WINDOW_DIV;
	rand_seed(&p->r, seed);
}
uint64_t prof_period_next(struct prof_period *p)
{
	return p->min + rand_below(&p->r, p->max - p->min + 1);
}
