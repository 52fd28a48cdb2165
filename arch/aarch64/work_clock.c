/* The AArch64 work clock (see work_clock.h): arch_spin's rate on PMCCNTR_EL0. */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "arch/work_clock.h"

#include "arch/pmu.h"
#include "arch/cycles.h"
#include "lib/sort.h"

#define NO_PMU_CYCLES "no usable PMU cycle counter (plat kind=pmu says why): work counted in counter ticks"

/* isb on both sides, as cycles_begin: the spin's instructions complete inside the pair. */
static inline uint64_t pmccntr_fenced(void)
{
	uint64_t v = cycles_isb_pmccntr();

	cpu_isb();
	return v;
}

void work_clock_spin_rate(struct work_clock *wc, uint64_t iters, uint64_t *scratch, unsigned n, uint64_t *spin_ticks,
			  uint64_t tick_overhead)
{
	uint64_t empty, spin, ticks;

	if (!n || !a64_pmu_cycles_on()) {
		*wc = (struct work_clock){ *spin_ticks, WORK_UNIT_TICKS, WORK_UNIT_TICKS, NO_PMU_CYCLES };
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t t0 = pmccntr_fenced();

		scratch[i] = pmccntr_fenced() - t0;
	}
	empty = median_u64(scratch, n);
	/* Both clocks time the same spins (the counter's reads nested inside the tick pair), so the
	 * two rates' ratio is the clocks' ratio, not the drift of emulated time between two
	 * calibrations taken apart (under TCG a loaded host moves each on its own). */
	for (unsigned i = 0; i < n; i++) {
		uint64_t t0 = cycles_begin(), c0 = pmccntr_fenced();

		arch_spin(iters);
		scratch[i] = pmccntr_fenced() - c0;
		scratch[n + i] = cycles_end() - t0;
	}
	spin = median_u64(scratch, n);
	ticks = median_u64(scratch + n, n);
	a64_pmu_cycles_restore();
	*spin_ticks = ticks > tick_overhead ? ticks - tick_overhead : 1;
	*wc = (struct work_clock){ spin > empty ? spin - empty : 1, WORK_UNIT_PMU, WORK_UNIT_TICKS, 0 };
}
