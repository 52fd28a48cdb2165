/* The counter-set interface of arch/aarch64/pmu.h with no PMU behind it (PMUv3 not ported yet):
 * nothing is usable, no event is planned, and the operations that only run on a planned group
 * refuse everything they are given, so a caller that got past pmu_usable() by mistake still
 * gets refused counters, never values. */
#include "arch/aarch64/pmu.h"

#define WHY "AArch64 PMUv3 support not ported yet"

static uint32_t all_counters(const struct pmu_group *g)
{
	return g->n >= 32 ? ~0u : (1u << g->n) - 1;
}

static uint32_t refuse(const struct pmu_group *g, struct pmu_faults *f)
{
	if (f) {
		f->mask |= all_counters(g);
		for (unsigned k = 0; k < g->n && k < PMU_MAX_EVENTS; k++)
			f->why[k] = WHY;
	}
	return all_counters(g);
}

unsigned pmu_plan_events(const struct pmu_info *pi, const char *const *names, unsigned n,
			 struct pmu_plan *plan)
{
	(void)pi;
	*plan = (struct pmu_plan){ 0 };
	for (unsigned i = 0; i < n && i < PMU_MAX_EVENTS; i++) {
		plan->refused[plan->nrefused] = names[i];
		plan->refused_why[plan->nrefused++] = WHY;
	}
	return 0;
}

uint32_t pmu_program(const struct pmu_info *pi, const struct pmu_group *g, struct pmu_faults *f)
{
	(void)pi;
	return refuse(g, f);
}

uint32_t pmu_start(const struct pmu_info *pi, const struct pmu_group *g, struct pmu_faults *f)
{
	(void)pi;
	return refuse(g, f);
}

uint64_t pmu_stop(const struct pmu_info *pi, const struct pmu_group *g)
{
	(void)pi;
	(void)g;
	return 0;
}

uint32_t pmu_read(const struct pmu_info *pi, const struct pmu_group *g, uint64_t *out)
{
	(void)pi;
	for (unsigned k = 0; k < g->n && k < PMU_MAX_EVENTS; k++)
		out[k] = 0;
	return all_counters(g);
}

const char *pmu_read_fault_why(const struct pmu_counter *c)
{
	(void)c;
	return WHY;
}

bool pmu_usable(const struct pmu_info *pi)
{
	(void)pi;
	return false;
}

void pmu_cpu_prepare(const struct pmu_info *pi)
{
	(void)pi;
}

void pmu_release(const struct pmu_info *pi, const struct pmu_group *g)
{
	(void)pi;
	(void)g;
}
