/* Instructions retired through the PMU, programmed directly (see insn_count.h). */
#include "arch/insn_count.h"

bool insn_count_open(struct insn_count *ic, const struct pmu_info *pi, struct pmu_plan *plan, const char **why)
{
	static const char *const names[] = { "instructions" };

	*ic = (struct insn_count){ .pi = pi, .plan = plan, .fd = -1 };
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
	ic->source = ic->g->c[0].kind == PMU_CTR_FIXED ? "pmu_fixed" : "pmu_gp";
	{
		struct pmu_faults f = { 0 };
		uint64_t v;

		/* A refused write or a faulting read is a skip with its reason, not a count. */
		if (pmu_program(pi, ic->g, &f) | pmu_start(pi, ic->g, &f)) {
			*why = f.why[0];
			insn_count_close(ic);
			return false;
		}
		if (pmu_read(pi, ic->g, &v)) {
			*why = pmu_read_fault_why(&ic->g->c[0]);
			insn_count_close(ic);
			return false;
		}
	}
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
