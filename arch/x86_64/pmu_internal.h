/* Helpers shared by the PMU units (pmu.c, pmu_plan.c, pmu_quirks.c, pmu_pmi.c): not an interface of
 * their own. */
#ifndef ARCH_X86_64_PMU_INTERNAL_H
#define ARCH_X86_64_PMU_INTERNAL_H

#include "arch/pmu.h"

static inline uint64_t pmu_width_mask(unsigned width)
{
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}

static inline bool pmu_is_intel(const struct pmu_info *pi)
{
	return pi->kind == PMU_INTEL;
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
