/* Gap detector of the platform-noise probe (hwlat-style): fed the TSC from a tight loop, it
 * counts every step between consecutive readings longer than a threshold (time the loop did not
 * run: SMIs, hypervisor exits, interrupts where they cannot be masked), sums them, keeps the
 * longest, and stores each gap's start (relative to the window start) and length while room
 * lasts. Pure arithmetic: unit-tested on synthetic traces. */
#ifndef BENCH_GAP_DETECT_H
#define BENCH_GAP_DETECT_H

#include <stddef.h>
#include <stdint.h>

#define GAP_AUTO_FACTOR 10 /* default threshold: this many median loop times */

struct gap_detector {
	uint64_t threshold; /* cycles: a step above it is a gap */
	uint64_t start;     /* TSC at the window start */
	uint64_t prev;
	uint64_t *starts, *lens; /* storage for the first `cap` gaps */
	size_t cap, stored;
	uint64_t count, total, longest, dropped, steps;
};

void gap_init(struct gap_detector *d, uint64_t *starts, uint64_t *lens, size_t cap, uint64_t threshold,
	      uint64_t t0);
void gap_record(struct gap_detector *d, uint64_t now, uint64_t step);

static inline void gap_feed(struct gap_detector *d, uint64_t now)
{
	uint64_t step = now - d->prev;

	d->steps++;
	if (step > d->threshold)
		gap_record(d, now, step);
	d->prev = now;
}

/* The threshold: `fixed` cycles when non-zero, else GAP_AUTO_FACTOR x the median loop step
 * (at least 1 cycle above it). */
uint64_t gap_threshold(uint64_t median_step, uint64_t fixed);

#endif
