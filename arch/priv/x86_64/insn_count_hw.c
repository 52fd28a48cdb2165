/* Instructions retired through the PMU, programmed directly (see insn_count.h; the plan, reads and
 * close: arch/priv/insn_count_pmu.c). */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "arch/insn_count_internal.h"

bool insn_count_open(struct insn_count *ic, const struct pmu_info *pi, struct pmu_plan *plan, const char **why)
{
	struct pmu_faults f = { 0 };
	uint64_t v;

	if (!insn_count_plan(ic, pi, plan, 0, why))
		return false;
	ic->source = ic->g->c[0].kind == PMU_CTR_FIXED ? "pmu_fixed" : "pmu_gp";
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
	return true;
}
