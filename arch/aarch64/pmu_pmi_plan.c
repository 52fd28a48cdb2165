/* The pure part of AArch64 overflow sampling (see pmu_pmi.h): which event counter, its
 * PMEVTYPER<n>_EL0 value and the preload. No register access: the host unit tests run it
 * (tests/unit/aarch64/test_pmi.c). */
#include "arch/aarch64/pmu_pmi.h"

#include "arch/aarch64/pmu_regs.h"

static bool refuse(const char **why, const char *reason)
{
	*why = reason;
	return false;
}

bool a64_pmi_plan(struct a64_pmi *p, const struct pmu_info *pi, const char *event, uint32_t enabled,
		  const char **why)
{
	const char *arm_name = 0, *ev_why = 0;
	unsigned n, m;
	int ev;

	*p = (struct a64_pmi){ 0 };
	if (!pi || !pi->present)
		return refuse(why, pi && pi->reason ? pi->reason : "no PMU");
	if (!event || !*event)
		return refuse(why, "no event named");
	ev = a64_pmu_event_for(pi, event, &arm_name, &ev_why);
	if (ev < 0)
		return refuse(why, ev_why);
	n = pi->num_counters < A64_PMU_MAX_EVENT_COUNTERS ? pi->num_counters : A64_PMU_MAX_EVENT_COUNTERS;
	if (!n)
		return refuse(why, "no event counter (PMCR_EL0.N = 0): the cycle counter alone cannot sample other events");
	/* The last free one: counter sets take counters from 0 up. */
	while (n-- > 0) {
		if ((enabled | pi->counters_reserved) & (1u << n))
			continue;
		p->pi = pi;
		p->counter = n;
		p->event = (unsigned)ev;
		p->arm_name = arm_name;
		p->typer = a64_pmu_evtyper(pi->filter, (unsigned)ev, pi->evt_mask);
		p->ctr_mask = a64_pmu_width_mask(pi->counter_width ? pi->counter_width : A64_PMU_COUNTER_BITS_V3);
		p->max_period = p->ctr_mask;
		for (m = n; m-- > 0;) {
			if (!((enabled | pi->counters_reserved) & (1u << m))) {
				p->nudge = true;
				p->nudge_counter = m;
				break;
			}
		}
		return true;
	}
	return refuse(why, "every event counter is in use (PMCNTENSET_EL0) or reserved");
}

uint64_t a64_pmi_preload(const struct a64_pmi *p, uint64_t period)
{
	if (!period)
		period = 1;
	if (period > p->max_period)
		period = p->max_period;
	return (0 - period) & p->ctr_mask;
}

uint64_t a64_pmi_nudge_preload(const struct a64_pmi *p, uint64_t period)
{
	return (a64_pmi_preload(p, period) - 1) & p->ctr_mask;
}

uint32_t a64_pmi_bit(const struct a64_pmi *p)
{
	return 1u << p->counter;
}

uint32_t a64_pmi_counters(const struct a64_pmi *p)
{
	return a64_pmi_bit(p) | (p->nudge ? 1u << p->nudge_counter : 0);
}
