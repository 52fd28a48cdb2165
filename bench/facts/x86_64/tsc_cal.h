/* TSC frequency calibration against reference clocks of known frequency (ACPI PM timer, HPET).
 * All references are read in the same window, each bracketed by two TSC reads whose midpoint is
 * its time stamp, and polled throughout so counter wrap is followed. A reference that stops
 * moving is dropped instead of waited for. Pure logic over read callbacks: unit-tested with model
 * clocks. */
#ifndef BENCH_TSC_CAL_H
#define BENCH_TSC_CAL_H

#include <stdbool.h>
#include <stdint.h>

#define TSC_CAL_MAX_REFS 4

struct ref_clock {
	const char *name;
	uint64_t hz;
	uint64_t mask; /* counter width: ticks wrap at mask + 1 */
	uint64_t (*read)(void *ctx);
	void *ctx;
};

struct tsc_cal_result {
	bool ok;
	uint64_t ref_ticks;
	uint64_t tsc_ticks;
	uint64_t hz; /* tsc_ticks * ref hz / ref_ticks */
};

/* Polls of a reference that show no change before it is declared stopped. */
#define TSC_CAL_STUCK_POLLS 2000000u

/* One window of window_ms milliseconds (as the first live reference counts it). */
void tsc_cal_window(const struct ref_clock *refs, unsigned nrefs, uint64_t window_ms,
		    uint64_t (*tsc_read)(void), struct tsc_cal_result *out);

/* Parts per million between two frequencies (|a - b| / min(a, b)). */
uint64_t tsc_cal_ppm(uint64_t a, uint64_t b);

#endif
