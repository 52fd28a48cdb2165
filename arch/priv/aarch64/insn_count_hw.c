/* Instructions retired through PMUv3's INST_RETIRED (see insn_count.h; the plan, reads and close:
 * arch/priv/insn_count_pmu.c). */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "arch/insn_count_internal.h"

bool insn_count_open(struct insn_count *ic, const struct pmu_info *pi, struct pmu_plan *plan, const char **why)
{
	uint64_t v;

	if (!insn_count_plan(ic, pi, plan, "pmu_event", why))
		return false;
	(void)pmu_program(pi, ic->g, 0);
	(void)pmu_start(pi, ic->g, 0);
	(void)pmu_read(pi, ic->g, &v);
	return true;
}
