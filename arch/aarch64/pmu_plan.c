/* The AArch64 event table and the allocation of named events to counters and passes (see pmu.h,
 * a64_pmu_plan_events; pmu.c offers it as pmu_plan_events). Pure, and named apart from the x86
 * planner, so the host unit tests link both and plan against hand-made pmu_info values.
 *
 * Table: the counter-set vocabulary (bench/core/options.c) onto PMUv3 common events ("Common event
 * numbers" in the Arm ARM), each taken only where PMCEID0/1_EL0 mark it implemented. Where the
 * common events have no honest equivalent of a name (ref_cycles, the demand-only misses, x86's
 * free-running MSR counters) the name is refused with the reason, never mapped to a neighbour.
 * `cycles` rides on the cycle counter PMCCNTR_EL0 (one per pass), else on an event counter as
 * CPU_CYCLES. */
#include "arch/aarch64/include/cpu/pmu.h"

#include "arch/aarch64/pmu_regs.h"

#define NO_EVENT (-1)

struct a64_event {
	const char *name;
	int event;            /* common event number, or NO_EVENT */
	const char *arm_name; /* or the reason for NO_EVENT */
};

static const struct a64_event events[] = {
	{ "cycles", A64_EV_CPU_CYCLES, "CPU_CYCLES" },
	{ "instructions", A64_EV_INST_RETIRED, "INST_RETIRED" },
	{ "branches", A64_EV_BR_RETIRED, "BR_RETIRED" },
	{ "branch_misses", A64_EV_BR_MIS_PRED_RETIRED, "BR_MIS_PRED_RETIRED" }, /* else see fallbacks[] */
	{ "l1d_misses", A64_EV_L1D_CACHE_REFILL, "L1D_CACHE_REFILL" },
	{ "l1i_misses", A64_EV_L1I_CACHE_REFILL, "L1I_CACHE_REFILL" },
	{ "l2_misses", A64_EV_L2D_CACHE_REFILL, "L2D_CACHE_REFILL" },
	{ "llc_references", A64_EV_LL_CACHE_RD, "LL_CACHE_RD" },
	{ "llc_misses", A64_EV_LL_CACHE_MISS_RD, "LL_CACHE_MISS_RD" },
	{ "dtlb_misses", A64_EV_DTLB_WALK, "DTLB_WALK" },
	{ "itlb_misses", A64_EV_ITLB_WALK, "ITLB_WALK" },
	{ "stall_cycles", A64_EV_STALL, "STALL" },
	{ "ref_cycles", NO_EVENT, "no reference-cycle event on AArch64 (the generic timer is the reference clock)" },
	{ "l1d_demand_misses", NO_EVENT, "no common event counts demand-only L1D misses (PMCEID cannot offer one)" },
	{ "l2_demand_misses", NO_EVENT, "no common event counts demand-only L2 misses (PMCEID cannot offer one)" },
	{ "aperf", NO_EVENT, "x86 MSR counter: no AArch64 equivalent" },
	{ "mperf", NO_EVENT, "x86 MSR counter: no AArch64 equivalent" },
	{ "energy_pkg", NO_EVENT, "x86 RAPL counter: no AArch64 equivalent" },
	{ "energy_dram", NO_EVENT, "x86 RAPL counter: no AArch64 equivalent" },
	{ "energy_core", NO_EVENT, "x86 RAPL counter: no AArch64 equivalent" },
};

#define NUM_EVENTS (sizeof(events) / sizeof(events[0]))

/* Where PMCEID lacks a name's preferred event, the one taken instead. `branches` is BR_RETIRED
 * (architecturally executed branches), so its misses are preferably the retired ones too
 * (BR_MIS_PRED_RETIRED); BR_MIS_PRED counts speculatively executed mispredictions, a different
 * population, taken only where 0x22 is not offered and said so (a64_pmu_branch_ratio). */
static const struct a64_event fallbacks[] = {
	{ "branch_misses", A64_EV_BR_MIS_PRED, "BR_MIS_PRED" },
};

#define NUM_FALLBACKS (sizeof(fallbacks) / sizeof(fallbacks[0]))

static bool same(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* Why PMCEID's answer leaves an event out: INST_RETIRED's absence has a known cause under QEMU. */
static const char *not_offered(int event)
{
	return event == A64_EV_INST_RETIRED
		       ? "INST_RETIRED not implemented here (PMCEID0_EL0 bit 8 clear; QEMU TCG offers it only with -icount)"
		       : "not implemented here (PMCEID0/1_EL0 clear for its common event)";
}

int a64_pmu_event_for(const struct pmu_info *pi, const char *name, const char **arm_name, const char **why)
{
	for (unsigned i = 0; i < NUM_EVENTS; i++) {
		if (!same(events[i].name, name))
			continue;
		if (events[i].event == NO_EVENT) {
			*why = events[i].arm_name;
			return NO_EVENT;
		}
		if (a64_pmu_event_implemented(pi->pmceid0, pi->pmceid1, (unsigned)events[i].event)) {
			*arm_name = events[i].arm_name;
			return events[i].event;
		}
		for (unsigned f = 0; f < NUM_FALLBACKS; f++)
			if (same(fallbacks[f].name, name) &&
			    a64_pmu_event_implemented(pi->pmceid0, pi->pmceid1, (unsigned)fallbacks[f].event)) {
				*arm_name = fallbacks[f].arm_name;
				return fallbacks[f].event;
			}
		*why = not_offered(events[i].event);
		return NO_EVENT;
	}
	*why = "no such event in the AArch64 event table";
	return NO_EVENT;
}

const char *a64_pmu_branch_ratio(const struct pmu_info *pi)
{
	const char *arm = 0, *why = 0;
	int miss, all;

	if (!pi || !pi->present)
		return "none";
	miss = a64_pmu_event_for(pi, "branch_misses", &arm, &why);
	all = a64_pmu_event_for(pi, "branches", &arm, &why);
	if (miss == NO_EVENT || all == NO_EVENT)
		return "none";
	return miss == A64_EV_BR_MIS_PRED_RETIRED ? "retired" : "mixed";
}

bool a64_pmu_has_event(const struct pmu_info *pi, const char *name)
{
	const char *arm, *why;

	if (!pi || !pi->present)
		return false;
	if (same(name, "cycles") && pi->cycle_counter)
		return true;
	return a64_pmu_event_for(pi, name, &arm, &why) != NO_EVENT;
}

static void refuse(struct pmu_plan *plan, const char *name, const char *why)
{
	if (plan->nrefused < PMU_MAX_EVENTS) {
		plan->refused[plan->nrefused] = name;
		plan->refused_why[plan->nrefused++] = why;
	}
}

static bool planned(const struct pmu_plan *plan, const char *name)
{
	for (unsigned p = 0; p < plan->npasses; p++)
		for (unsigned i = 0; i < plan->pass[p].n; i++)
			if (same(plan->pass[p].c[i].name, name))
				return true;
	return false;
}

/* Event counters a counter set may use: those below the lowest reserved one. */
static unsigned counters_usable(const struct pmu_info *pi)
{
	unsigned n = 0;

	while (n < pi->num_counters && n < A64_PMU_MAX_EVENT_COUNTERS && !(pi->counters_reserved & (1u << n)))
		n++;
	return n;
}

static bool place(const struct pmu_info *pi, struct pmu_plan *plan, const char *name, unsigned event,
		  const char *arm_name, unsigned *used, bool *cycle_used)
{
	bool cyc = same(name, "cycles") && pi->cycle_counter;

	for (unsigned p = 0; p < PMU_MAX_PASSES; p++) {
		struct pmu_group *g = &plan->pass[p];
		struct pmu_counter *c;

		if (g->n >= PMU_MAX_EVENTS)
			continue;
		if (cyc && cycle_used[p])
			continue; /* one cycle counter per pass: the next pass has its own */
		if (!cyc && used[p] >= counters_usable(pi))
			continue;
		c = &g->c[g->n++];
		if (p + 1 > plan->npasses)
			plan->npasses = p + 1;
		*c = (struct pmu_counter){ .name = name, .event = (uint16_t)event };
		if (cyc) {
			cycle_used[p] = true;
			c->arm_name = "PMCCNTR_EL0";
			c->idx = A64_PMU_CYCLE_IDX;
			c->typer = pi->filter; /* PMCCFILTR_EL0: filter bits only */
			c->mask = a64_pmu_width_mask(pi->cycle_width);
		} else {
			c->arm_name = arm_name;
			c->idx = used[p]++;
			c->typer = a64_pmu_evtyper(pi->filter, event, pi->evt_mask);
			c->mask = a64_pmu_width_mask(pi->counter_width);
		}
		return true;
	}
	return false;
}

unsigned a64_pmu_plan_events(const struct pmu_info *pi, const char *const *names, unsigned n,
			     struct pmu_plan *plan)
{
	unsigned used[PMU_MAX_PASSES] = { 0 };
	bool cycle_used[PMU_MAX_PASSES] = { false };

	*plan = (struct pmu_plan){ 0 };
	for (unsigned k = 0; k < n && k < PMU_MAX_EVENTS; k++) {
		const char *name = names[k], *arm_name = 0, *why = 0;
		int ev;

		if (planned(plan, name))
			continue;
		if (!pi->present) {
			refuse(plan, name, pi->reason ? pi->reason : "no PMU");
			continue;
		}
		ev = same(name, "cycles") && pi->cycle_counter ? A64_EV_CPU_CYCLES
							       : a64_pmu_event_for(pi, name, &arm_name, &why);
		if (ev == NO_EVENT) {
			refuse(plan, name, why);
			continue;
		}
		if (!place(pi, plan, name, (unsigned)ev, arm_name, used, cycle_used))
			refuse(plan, name, "more events than counters in every pass");
	}
	return plan->npasses;
}
