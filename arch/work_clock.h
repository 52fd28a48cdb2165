/* The clock a handler's known work is counted in (irq_displace's irq_disp_work), for code outside
 * arch/; the CPU's part is <cpu/work_clock.h> (arch/<cpu>/include/cpu/work_clock.h). x86_64: the
 * TSC, the build's own clock, so work and results share one unit and the records say nothing
 * more. AArch64: the PMU cycle counter PMCCNTR_EL0 where it counts (CPU cycles, comparable with
 * x86's TSC cycles), else the generic timer's ticks; the results stay in the build's clock
 * (CNTVCT ticks) and the records say both units. */
#ifndef ARCH_WORK_CLOCK_H
#define ARCH_WORK_CLOCK_H

#include <stdint.h>

/* What a work clock measured: arch_spin's rate in its unit, and the names records carry. */
struct work_clock {
	uint64_t spin;         /* work-clock cycles of arch_spin(iters) (the rate measured) */
	const char *work_unit; /* unit of work values; NULL: the build's clock (records unchanged) */
	const char *time_unit; /* unit of the results (the build's clock); NULL as above */
	const char *why;       /* why the work clock is the build's clock (NULL: it is the PMU's) */
};

#include <cpu/work_clock.h>

/* Work w (work-clock cycles) in the build's clock, by the two rates of the same spin:
 * w * spin_ticks / spin_work, rounded down; w itself when spin_work is 0 (nothing measured). Pure
 * (the unit tests run it): w <= 10^9 and rates of 20000 spin iterations stay far from 2^64. */
static inline uint64_t work_clock_scale(uint64_t w, uint64_t spin_ticks, uint64_t spin_work)
{
	return spin_work ? w * spin_ticks / spin_work : w;
}

/* work_clock_scale where the work clock is not the build's (identity on x86_64). */
static inline uint64_t work_clock_to_ticks(const struct work_clock *wc, uint64_t w, uint64_t spin_ticks)
{
	if (!WORK_CLOCK_SEPARATE || !wc->work_unit)
		return w;
	return work_clock_scale(w, spin_ticks, wc->spin);
}

#endif
