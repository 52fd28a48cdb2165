/* Allocation of named events to counters and passes (see pmu.h, pmu_plan_events): free-running
 * MSR counters ride in pass 0; Intel events go to their fixed counter where one is free (and only
 * there for the fixed-only ones), the rest to general-purpose counters, pass after pass, each on
 * a counter the model's constraints allow it (pmu_constraints.h): within a pass the counters are
 * re-matched so a restricted event listed late still finds one. */
#include "arch/pmu.h"

#include "arch/x86_64/pmu_internal.h"
#include "arch/x86_64/pmu_regs.h"

struct freerun_desc {
	const char *name;
	uint32_t (*msr)(const struct pmu_info *pi, const char **why);
	unsigned width;
};

static uint32_t aperf_msr(const struct pmu_info *pi, const char **why)
{
	*why = pi->aperf_why;
	return pi->aperf_mperf ? MSR_IA32_APERF : 0;
}

static uint32_t mperf_msr(const struct pmu_info *pi, const char **why)
{
	*why = pi->aperf_why;
	return pi->aperf_mperf ? MSR_IA32_MPERF : 0;
}

static uint32_t pkg_msr(const struct pmu_info *pi, const char **why)
{
	*why = pi->rapl_pkg_why;
	return pi->rapl_pkg_msr;
}

static uint32_t dram_msr(const struct pmu_info *pi, const char **why)
{
	*why = pi->rapl_dram_why;
	return pi->rapl_dram_msr;
}

static uint32_t core_msr(const struct pmu_info *pi, const char **why)
{
	*why = pi->rapl_core_why;
	return pi->rapl_core_msr;
}

static const struct freerun_desc freerun[] = {
	{ "aperf", aperf_msr, APERF_MPERF_WIDTH },
	{ "mperf", mperf_msr, APERF_MPERF_WIDTH },
	{ "energy_pkg", pkg_msr, RAPL_ENERGY_WIDTH },
	{ "energy_dram", dram_msr, RAPL_ENERGY_WIDTH },
	{ "energy_core", core_msr, RAPL_ENERGY_WIDTH },
};

#define NUM_FREERUN (sizeof(freerun) / sizeof(freerun[0]))

static void refuse(struct pmu_plan *plan, const char *name, const char *why)
{
	if (plan->nrefused < PMU_MAX_EVENTS) {
		plan->refused[plan->nrefused] = name;
		plan->refused_why[plan->nrefused++] = why;
	}
}

static struct pmu_counter *add(struct pmu_plan *plan, unsigned p, const char *name)
{
	struct pmu_group *g = &plan->pass[p];
	struct pmu_counter *c = &g->c[g->n++];

	*c = (struct pmu_counter){ .name = name };
	if (p + 1 > plan->npasses)
		plan->npasses = p + 1;
	return c;
}

static bool planned(const struct pmu_plan *plan, const char *name)
{
	for (unsigned p = 0; p < plan->npasses; p++)
		for (unsigned i = 0; i < plan->pass[p].n; i++)
			if (pmu_str_same(plan->pass[p].c[i].name, name))
				return true;
	return false;
}

/* General-purpose counters a counter set may use: every one not kept for overflow sampling. */
static uint32_t gp_usable(const struct pmu_info *pi)
{
	return (uint32_t)pmu_width_mask(pi->num_gp) & ~pi->gp_reserved;
}

static uint32_t gp_may_use(const struct pmu_info *pi, const struct pmu_event *ev)
{
	return pmu_gp_allowed(pi, ev) & gp_usable(pi);
}

/* The group's general-purpose counter on index k, other than `self`, or NULL. */
static struct pmu_counter *gp_holder(struct pmu_group *g, unsigned k, const struct pmu_counter *self)
{
	for (unsigned i = 0; i < g->n; i++)
		if (&g->c[i] != self && g->c[i].kind == PMU_CTR_GP && g->c[i].idx == k)
			return &g->c[i];
	return 0;
}

/* Give c a general-purpose counter of the group, within its allowed ones: a free one (the
 * lowest) if any, else one whose holder can move to another of its own allowed counters, along
 * a chain (an augmenting path of bipartite matching; the events are few, the counters 8 at
 * most). Counters are moved only when the chain succeeds. */
static bool gp_assign(const struct pmu_info *pi, struct pmu_group *g, struct pmu_counter *c, uint32_t *seen)
{
	uint32_t allowed = gp_may_use(pi, c->ev) & ~*seen;

	for (unsigned k = 0; k < pi->num_gp; k++)
		if ((allowed & (1u << k)) && !gp_holder(g, k, c)) {
			c->idx = k;
			return true;
		}
	for (unsigned k = 0; k < pi->num_gp; k++) {
		if (!(allowed & (1u << k)) || (*seen & (1u << k)))
			continue;
		*seen |= 1u << k; /* each counter tried once per chain (Kuhn's algorithm) */
		if (gp_assign(pi, g, gp_holder(g, k, c), seen)) {
			c->idx = k;
			return true;
		}
	}
	return false;
}

static bool place_fixed(const struct pmu_info *pi, struct pmu_plan *plan, unsigned p, const char *name,
			const struct pmu_event *ev, uint32_t *fixed_used)
{
	struct pmu_counter *c;

	if (!pmu_is_intel(pi) || ev->fixed < 0 || !(pi->fixed_avail & (1u << ev->fixed)) ||
	    (fixed_used[p] & (1u << ev->fixed)))
		return false;
	fixed_used[p] |= 1u << ev->fixed;
	c = add(plan, p, name);
	c->ev = ev;
	c->kind = PMU_CTR_FIXED;
	c->idx = (unsigned)ev->fixed;
	c->mask = pmu_width_mask(pi->fixed_width);
	return true;
}

static bool place_gp(const struct pmu_info *pi, struct pmu_plan *plan, unsigned p, const char *name,
		     const struct pmu_event *ev)
{
	struct pmu_counter trial = { .name = name, .ev = ev, .kind = PMU_CTR_GP, .idx = PMU_MAX_GP };
	uint32_t seen = 0;
	struct pmu_counter *c;

	if (!gp_assign(pi, &plan->pass[p], &trial, &seen))
		return false;
	c = add(plan, p, name);
	*c = trial;
	c->mask = pmu_width_mask(pi->gp_width);
	c->config = pmu_is_intel(pi) ? pmu_intel_evtsel(ev) : pmu_amd_evtsel(ev);
	return true;
}

/* Why no pass took it: no counter at all, or none it may use, or all taken in every pass. */
static const char *unplaced_why(const struct pmu_info *pi, const struct pmu_event *ev)
{
	if (!gp_usable(pi))
		return "more events than counters in every pass";
	if (!gp_may_use(pi, ev))
		return "the counters this event is restricted to on this CPU model (Linux's counter "
		       "constraints) are absent or kept for sampling";
	if (gp_may_use(pi, ev) != gp_usable(pi))
		return "the counters this event is restricted to on this CPU model (Linux's counter "
		       "constraints) are taken in every pass";
	return "more events than counters in every pass";
}

static bool place_counter(const struct pmu_info *pi, struct pmu_plan *plan, const char *name,
			  const struct pmu_event *ev, uint32_t *fixed_used)
{
	for (unsigned p = 0; p < PMU_MAX_PASSES; p++) {
		if (plan->pass[p].n >= PMU_MAX_EVENTS)
			continue;
		if (place_fixed(pi, plan, p, name, ev, fixed_used))
			return true;
		if (ev->flags & PMU_EV_FIXED_ONLY)
			continue; /* its fixed counter is taken in this pass: try the next */
		if (place_gp(pi, plan, p, name, ev))
			return true;
	}
	return false;
}

unsigned pmu_plan_events(const struct pmu_info *pi, const char *const *names, unsigned n,
			 struct pmu_plan *plan)
{
	uint32_t fixed_used[PMU_MAX_PASSES] = { 0 };

	*plan = (struct pmu_plan){ 0 };
	for (unsigned k = 0; k < n && k < PMU_MAX_EVENTS; k++) {
		const char *name = names[k];
		const struct pmu_event *ev;
		unsigned f;

		if (planned(plan, name))
			continue;
		for (f = 0; f < NUM_FREERUN; f++)
			if (pmu_str_same(freerun[f].name, name))
				break;
		if (f < NUM_FREERUN) {
			const char *why = 0;
			uint32_t msr = freerun[f].msr(pi, &why);
			struct pmu_counter *c;

			if (!msr || plan->pass[0].n >= PMU_MAX_EVENTS) {
				refuse(plan, name, msr ? "too many events in one set"
						       : why ? why : "not discovered on this CPU");
				continue;
			}
			c = add(plan, 0, name);
			c->kind = PMU_CTR_MSR;
			c->msr = msr;
			c->mask = pmu_width_mask(freerun[f].width);
			continue;
		}
		if (!pi->present) { /* the free-running counters may still be there, the core PMU is not */
			refuse(plan, name, pi->reason ? pi->reason : "no core PMU");
			continue;
		}
		ev = pmu_table_find(pi->family, name);
		if (!ev)
			ev = pmu_table_find(pi->base, name);
		if (!ev) {
			refuse(plan, name, "no such event in this CPU model's event tables");
			continue;
		}
		if (pmu_is_intel(pi) && ev->arch_bit >= 0 && !(pi->arch_events & (1u << ev->arch_bit))) {
			refuse(plan, name, "CPUID 0xA marks this architectural event unavailable");
			continue;
		}
		if ((ev->flags & PMU_EV_FIXED_ONLY) && (!pmu_is_intel(pi) || ev->fixed < 0 ||
							 !(pi->fixed_avail & (1u << ev->fixed)))) {
			refuse(plan, name, "counted only by its fixed counter, which this CPU does not offer "
					   "(a general-purpose counter would count another clock)");
			continue;
		}
		if (!place_counter(pi, plan, name, ev, fixed_used))
			refuse(plan, name, unplaced_why(pi, ev));
	}
	return plan->npasses;
}


bool pmu_has_event(const struct pmu_info *pi, const char *name)
{
	return pi && pi->present && (pmu_table_find(pi->family, name) || pmu_table_find(pi->base, name));
}
