/* Gap detector of the platform-noise probe (hwlat-style): fed the TSC from a tight loop, it
 * counts every step between consecutive readings longer than a threshold (time the loop did not
 * run: SMIs, hypervisor exits, interrupts where they cannot be masked), sums them, keeps the
 * longest, and stores each gap's start (relative to the window start) and length while room
 * lasts. Pure arithmetic: unit-tested on synthetic traces. */
#ifndef BENCH_GAP_DETECT_H
#define BENCH_GAP_DETECT_H

#include <stddef.h>
#include <stdint.h>

#define GAP_AUTO_FACTOR 10 /* default threshold: this many loop steps (the slow pace, below) */
/* The loop step the default threshold scales: its 90th percentile, not its median. A loop with
 * two paces (a counter that ticks in coarse steps, as TCG's, whose steps read 24 or 49 cycles in
 * proportions that change from boot to boot; an SMT sibling) has a median that jumps between
 * them, and the threshold, the gap count and the stream's size with it (2x threshold, 10x
 * gaps); its 90th percentile is the slow pace in every boot. On a one-pace loop both agree. */
#define GAP_STEP_PERMILLE 900

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

/* The loop step of a calibration trace (GAP_STEP_PERMILLE quantile; sorts `steps`). */
uint64_t gap_loop_step(uint64_t *steps, size_t n);
/* The threshold: `fixed` cycles when non-zero, else GAP_AUTO_FACTOR x the loop step (at least
 * 1 cycle). */
uint64_t gap_threshold(uint64_t loop_step, uint64_t fixed);

#endif
