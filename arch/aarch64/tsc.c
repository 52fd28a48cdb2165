/* Generic-timer read methods and their back-to-back sample loops (see tsc.h). */
#include "arch/aarch64/tsc.h"

#include "arch/aarch64/pmu.h"

static const char *const method_names[TSC_NUM_METHODS] = {
	"cntvct", "isb_cntvct", "begin_end", "pmccntr", "isb_pmccntr",
};

static bool is_pmccntr(enum tsc_method m)
{
	return m == TSC_PMCCNTR || m == TSC_ISB_PMCCNTR;
}

const char *tsc_method_name(enum tsc_method m)
{
	return m < TSC_NUM_METHODS ? method_names[m] : "unknown";
}

const char *tsc_method_unit(enum tsc_method m)
{
	return is_pmccntr(m) ? "pmu_cycles" : "cycles";
}

/* The generic timer is architectural: its methods always exist. PMCCNTR_EL0 needs the PMU. */
const char *tsc_method_unavailable(enum tsc_method m)
{
	if (!is_pmccntr(m) || a64_pmu_cycles_on()) {
		if (is_pmccntr(m))
			a64_pmu_cycles_restore();
		return 0;
	}
	return "no usable PMU cycle counter (plat kind=pmu says why)";
}

/* One loop per method so each read is inlined and the loop adds nothing between the two reads. */
#define B2B_LOOP(read_first, read_second)                          \
	for (size_t i = 0; i < n; i++) {                           \
		uint64_t t0 = read_first();                        \
		uint64_t t1 = read_second();                       \
		out[i] = t1 - t0;                                  \
	}

void tsc_b2b_samples(enum tsc_method m, uint64_t *out, size_t n)
{
	switch (m) {
	case TSC_CNTVCT:
		B2B_LOOP(tsc_rdtsc, tsc_rdtsc);
		break;
	case TSC_ISB_CNTVCT:
		B2B_LOOP(tsc_isb_cntvct, tsc_isb_cntvct);
		break;
	case TSC_BEGIN_END:
		B2B_LOOP(tsc_begin, tsc_end);
		break;
	case TSC_PMCCNTR:
	case TSC_ISB_PMCCNTR:
		if (!a64_pmu_cycles_on())
			break;
		if (m == TSC_PMCCNTR)
			B2B_LOOP(tsc_pmccntr, tsc_pmccntr)
		else
			B2B_LOOP(tsc_isb_pmccntr, tsc_isb_pmccntr)
		a64_pmu_cycles_restore();
		break;
	default:
		break;
	}
}
