/* Generic-timer read methods and their back-to-back sample loops (arch/cycles.h). */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "arch/cycles.h"
#include "arch/cycles_b2b.h"

#include "arch/pmu.h"

static const char *const method_names[CYCLES_NUM_METHODS] = {
	"cntvct", "isb_cntvct", "begin_end", "pmccntr", "isb_pmccntr",
};

static bool is_pmccntr(enum cycles_method m)
{
	return m == CYCLES_PMCCNTR || m == CYCLES_ISB_PMCCNTR;
}

const char *cycles_method_name(enum cycles_method m)
{
	return m < CYCLES_NUM_METHODS ? method_names[m] : "unknown";
}

const char *cycles_method_unit(enum cycles_method m)
{
	return is_pmccntr(m) ? "pmu_cycles" : "cycles";
}

/* The generic timer is architectural: its methods always exist. PMCCNTR_EL0 needs the PMU. */
const char *cycles_method_unavailable(enum cycles_method m)
{
	if (!is_pmccntr(m) || a64_pmu_cycles_on()) {
		if (is_pmccntr(m))
			a64_pmu_cycles_restore();
		return 0;
	}
	return "no usable PMU cycle counter (plat kind=pmu says why)";
}

void cycles_b2b_samples(enum cycles_method m, uint64_t *out, size_t n)
{
	switch (m) {
	case CYCLES_CNTVCT:
		B2B_LOOP(cycles_read, cycles_read);
		break;
	case CYCLES_ISB_CNTVCT:
		B2B_LOOP(cycles_isb_cntvct, cycles_isb_cntvct);
		break;
	case CYCLES_BEGIN_END:
		B2B_LOOP(cycles_begin, cycles_end);
		break;
	case CYCLES_PMCCNTR:
	case CYCLES_ISB_PMCCNTR:
		if (!a64_pmu_cycles_on())
			break;
		if (m == CYCLES_PMCCNTR)
			B2B_LOOP(cycles_pmccntr, cycles_pmccntr)
		else
			B2B_LOOP(cycles_isb_pmccntr, cycles_isb_pmccntr)
		a64_pmu_cycles_restore();
		break;
	default:
		break;
	}
}
