/* PMUv3 register encodings as pure functions (see pmu.h): no register access, so the host unit
 * tests check them against a model of the Arm ARM's rules (tests/unit/aarch64/test_pmu.c). */
#include "arch/aarch64/include/cpu/pmu.h"

#include "arch/aarch64/pmu_regs.h"

#define BITS_PER_WORD 64

uint32_t a64_pmu_filter_el1(bool el3)
{
	/* P = 0: EL1 counted. U = 1: EL0 not. NSH = 0: EL2 not. With EL3: NSK = P (= 0) keeps
	 * Non-secure EL1 counted, NSU = 0 != U keeps Non-secure EL0 out, M = 1 != P keeps EL3 out. */
	uint32_t f = A64_PMEVTYPER_U;

	if (el3)
		f |= A64_PMEVTYPER_M;
	return f;
}

uint32_t a64_pmu_evt_mask(unsigned pmuver)
{
	return pmuver >= A64_PMUVER_V3P1 && pmuver != A64_PMUVER_IMPDEF ? A64_PMEVTYPER_EVT_MASK_V3P1
									   : A64_PMEVTYPER_EVT_MASK_V3;
}

uint32_t a64_pmu_evtyper(uint32_t filter, unsigned event, uint32_t evt_mask)
{
	return filter | ((uint32_t)event & evt_mask);
}

uint32_t a64_pmu_pmcr_enable(unsigned pmuver)
{
	uint32_t v = A64_PMCR_E | A64_PMCR_LC;

	if (pmuver >= A64_PMUVER_V3P5 && pmuver != A64_PMUVER_IMPDEF)
		v |= A64_PMCR_LP;
	return v;
}

unsigned a64_pmu_pmcr_n(uint64_t pmcr)
{
	return (unsigned)(pmcr >> A64_PMCR_N_SHIFT) & A64_PMCR_N_MASK;
}

uint32_t a64_pmu_group_mask(const struct pmu_group *g)
{
	uint32_t m = 0;

	for (unsigned k = 0; k < g->n; k++)
		if (g->c[k].idx <= A64_PMU_CYCLE_IDX)
			m |= 1u << g->c[k].idx;
	return m;
}

bool a64_pmu_event_implemented(uint64_t pmceid0, uint64_t pmceid1, unsigned event)
{
	unsigned half = A64_PMCEID_EVENTS_PER_HALF;
	unsigned base = 0, bit;

	if (event >= A64_PMCEID_EXT_BASE) {
		event -= A64_PMCEID_EXT_BASE;
		base = half; /* the upper halves */
	}
	if (event >= 2 * half)
		return false;
	bit = base + event % half;
	return (((event < half ? pmceid0 : pmceid1) >> bit) & 1) != 0;
}

unsigned a64_pmu_events_implemented(uint64_t pmceid0, uint64_t pmceid1)
{
	unsigned n = 0;

	for (unsigned b = 0; b < BITS_PER_WORD; b++)
		n += (unsigned)((pmceid0 >> b) & 1) + (unsigned)((pmceid1 >> b) & 1);
	return n;
}

const char *a64_pmu_version_name(unsigned pmuver)
{
	switch (pmuver) {
	case A64_PMUVER_NONE:
		return "none";
	case A64_PMUVER_V3:
		return "v3";
	case A64_PMUVER_V3P1:
		return "v3p1";
	case A64_PMUVER_V3P4:
		return "v3p4";
	case A64_PMUVER_V3P5:
		return "v3p5";
	case A64_PMUVER_V3P7:
		return "v3p7";
	case A64_PMUVER_V3P8:
		return "v3p8";
	case A64_PMUVER_V3P9:
		return "v3p9";
	case A64_PMUVER_IMPDEF:
		return "impdef";
	default:
		return "reserved";
	}
}

uint64_t a64_pmu_width_mask(unsigned width)
{
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}
