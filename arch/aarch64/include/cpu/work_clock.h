/* The work clock of the AArch64 build (arch/work_clock.h): the PMU cycle counter PMCCNTR_EL0 when
 * the PMU is usable (CPU cycles; under QEMU TCG emulated time at 1 GHz, exact instructions under
 * -icount shift=0), else the generic timer's ticks (CNTVCT_EL0, the build's clock: 62.5 MHz under
 * QEMU, so work values then mean 16 ns each there). */
#ifndef ARCH_AARCH64_WORK_CLOCK_H
#define ARCH_AARCH64_WORK_CLOCK_H

#define WORK_CLOCK_SEPARATE 1 /* work may be counted in another clock than the results */
#define WORK_UNIT_PMU "pmu_cycles"
#define WORK_UNIT_TICKS "counter_ticks"

/* Time arch_spin(iters) n times on the cycle counter and, around the same spins, on the generic
 * timer (scratch: 2n values): wc->spin is the counter's median less the median of n empty read
 * pairs, *spin_ticks is replaced by the ticks' median less tick_overhead (at least 1), so both
 * rates come from one set of spins. Where the counter is not usable wc->spin = *spin_ticks (the
 * caller's rate, left as it is) and wc->why says why. The counter is put back as found. */
void work_clock_spin_rate(struct work_clock *wc, uint64_t iters, uint64_t *scratch, unsigned n, uint64_t *spin_ticks,
			  uint64_t tick_overhead);

#endif
