/* Helpers shared by the PMU units (pmu.c, pmu_plan.c, pmu_quirks.c, pmu_pmi.c): not an interface of
 * their own. */
#ifndef ARCH_X86_64_PMU_INTERNAL_H
#define ARCH_X86_64_PMU_INTERNAL_H

#include "arch/pmu.h"
#include "arch/x86_64/msr.h"
#include "arch/x86_64/pmu_regs.h"

static inline uint64_t pmu_width_mask(unsigned width)
{
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}

static inline bool pmu_is_intel(const struct pmu_info *pi)
{
	return pi->kind == PMU_INTEL;
}

/* An MSR read through the ops; 0 when it faulted. */
static inline uint64_t pmu_rd(const struct pmu_info *pi, uint32_t msr)
{
	uint64_t v = 0;

	if (pi->ops->rdmsr(pi->ops->ctx, msr, &v) != MSR_OK)
		return 0;
	return v;
}

/* The MSR general-purpose counter i is read at. */
static inline uint32_t pmu_ctr_read_msr(const struct pmu_info *pi, unsigned i)
{
	return pmu_is_intel(pi) ? MSR_IA32_PMC0 + i : pi->ctr_base + pi->msr_stride * i;
}

/* The general-purpose counters (bit i = counter i) `ev` may be programmed on: those the model's
 * counter constraints allow, among those the PMU has. */
static inline uint32_t pmu_gp_allowed(const struct pmu_info *pi, const struct pmu_event *ev)
{
	return pmu_constraint_counters(pi->constraints, ev) & (uint32_t)pmu_width_mask(pi->num_gp);
}

static inline bool pmu_str_same(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

#endif
