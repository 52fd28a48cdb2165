/* Randomised sampling periods (DCPI section 4.1): each period is drawn uniformly from
 * [period - period/16, period] (DCPI's 60K..64K cycles for 64K), so samples cannot synchronise
 * with a loop whose length divides the period. Integer only (firmware); reproducible from the
 * seed the records state. */
#ifndef BENCH_PROF_PERIOD_H
#define BENCH_PROF_PERIOD_H

#include <stdint.h>

#include "lib/rand.h"

#define PROF_PERIOD_WINDOW_DIV 16 /* the window is period / 16 wide */

struct prof_period {
	uint64_t min, max; /* inclusive */
	struct rand_state r;
};

/* period >= 1; a period below PROF_PERIOD_WINDOW_DIV has a window of one value. */
void prof_period_init(struct prof_period *p, uint64_t period, uint64_t seed);
/* The next period, uniform in [min, max]. */
uint64_t prof_period_next(struct prof_period *p);

#endif
