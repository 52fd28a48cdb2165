/* Gap detector (see gap_detect.h). */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "bench/stats/gap_detect.h"
#include "lib/sort.h"

void gap_init(struct gap_detector *d, uint64_t *starts, uint64_t *lens, size_t cap, uint64_t threshold,
	      uint64_t t0)
{
	*d = (struct gap_detector){ 0 };
	d->threshold = threshold;
	d->start = d->prev = t0;
	d->starts = starts;
	d->lens = lens;
	d->cap = cap;
}

void gap_record(struct gap_detector *d, uint64_t now, uint64_t step)
{
	d->count++;
	d->total += step;
	if (step > d->longest)
		d->longest = step;
	if (d->stored < d->cap && d->starts && d->lens) {
		d->starts[d->stored] = now - step - d->start; /* where the gap began, window-relative */
		d->lens[d->stored] = step;
		d->stored++;
	} else {
		d->dropped++;
	}
}

uint64_t gap_loop_step(uint64_t *steps, size_t n)
{
	return quantile_u64(steps, n, GAP_STEP_PERMILLE);
}

uint64_t gap_threshold(uint64_t loop_step, uint64_t fixed)
{
	if (fixed)
		return fixed;
	return loop_step ? loop_step * GAP_AUTO_FACTOR : 1;
}
