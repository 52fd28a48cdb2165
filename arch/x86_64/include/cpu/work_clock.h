/* The work clock of the x86_64 build (arch/work_clock.h): the TSC itself, so the rate the caller
 * measured in TSC cycles is the work clock's and nothing is added to its records. Also the hosted
 * build's. */
#ifndef ARCH_X86_64_WORK_CLOCK_H
#define ARCH_X86_64_WORK_CLOCK_H

#define WORK_CLOCK_SEPARATE 0 /* the work clock is the build's clock: unit code folds away */

/* wc gets *spin_ticks (arch_spin(iters) in the build's clock, measured by the caller, left as it
 * is) and no units. */
static inline void work_clock_spin_rate(struct work_clock *wc, uint64_t iters, uint64_t *scratch, unsigned n,
					uint64_t *spin_ticks, uint64_t tick_overhead)
{
	(void)iters, (void)scratch, (void)n, (void)tick_overhead;
	*wc = (struct work_clock){ *spin_ticks, 0, 0, 0 };
}

#endif
