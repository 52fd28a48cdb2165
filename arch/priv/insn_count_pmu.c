/* The bare-metal insn_count's shared part (arch/insn_count_internal.h): the plan, and read, delta
 * and close on the planned counter, the same on every CPU's PMU driver (arch/pmu.h). */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "arch/insn_count_internal.h"

bool insn_count_plan(struct insn_count *ic, const struct pmu_info *pi, struct pmu_plan *plan, const char *source,
		     const char **why)
{
	static const char *const names[] = { "instructions" };

	*ic = (struct insn_count){ .pi = pi, .plan = plan, .fd = -1, .source = source };
	if (!pi || !pi->present) {
		*why = pi ? pi->reason : "PMU not discovered in this build";
		return false;
	}
	pmu_plan_events(pi, names, 1, plan);
	if (plan->npasses != 1 || plan->pass[0].n != 1) {
		*why = plan->nrefused ? plan->refused_why[0] : "instructions cannot be counted";
		return false;
	}
	ic->g = &plan->pass[0];
	return true;
}

uint64_t insn_count_read(const struct insn_count *ic)
{
	uint64_t v;

	(void)pmu_read(ic->pi, ic->g, &v);
	return v;
}

uint64_t insn_count_delta(const struct insn_count *ic, uint64_t start, uint64_t end)
{
	return pmu_delta(start, end, ic->g->c[0].mask);
}

void insn_count_close(struct insn_count *ic)
{
	(void)pmu_stop(ic->pi, ic->g);
	pmu_release(ic->pi, ic->g);
}
