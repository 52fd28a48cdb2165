/* Allocation of named events to counters and passes (see pmu.h, pmu_plan_events): free-running
 * MSR counters ride in pass 0; Intel events go to their fixed counter where one is free (and only
 * there for the fixed-only ones), the rest to general-purpose counters, pass after pass. */
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

/* General-purpose counters a counter set may use: those below the lowest reserved one. */
static unsigned gp_usable(const struct pmu_info *pi)
{
	unsigned n = 0;

	while (n < pi->num_gp && !(pi->gp_reserved & (1u << n)))
		n++;
	return n;
}

static bool place_counter(const struct pmu_info *pi, struct pmu_plan *plan, const char *name,
			  const struct pmu_event *ev, unsigned *gp_used, uint32_t *fixed_used)
{
	for (unsigned p = 0; p < PMU_MAX_PASSES; p++) {
		struct pmu_counter *c;

		if (plan->pass[p].n >= PMU_MAX_EVENTS)
			continue;
		if (pmu_is_intel(pi) && ev->fixed >= 0 && (pi->fixed_avail & (1u << ev->fixed)) &&
		    !(fixed_used[p] & (1u << ev->fixed))) {
			fixed_used[p] |= 1u << ev->fixed;
			c = add(plan, p, name);
			c->ev = ev;
			c->kind = PMU_CTR_FIXED;
			c->idx = (unsigned)ev->fixed;
			c->mask = pmu_width_mask(pi->fixed_width);
			return true;
		}
		if (ev->flags & PMU_EV_FIXED_ONLY)
			continue; /* its fixed counter is taken in this pass: try the next */
		if (gp_used[p] < gp_usable(pi)) {
			c = add(plan, p, name);
			c->ev = ev;
			c->kind = PMU_CTR_GP;
			c->idx = gp_used[p]++;
			c->mask = pmu_width_mask(pi->gp_width);
			c->config = pmu_is_intel(pi) ? pmu_intel_evtsel(ev) : pmu_amd_evtsel(ev);
			return true;
		}
	}
	return false;
}

unsigned pmu_plan_events(const struct pmu_info *pi, const char *const *names, unsigned n,
			 struct pmu_plan *plan)
{
	unsigned gp_used[PMU_MAX_PASSES] = { 0 };
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
		if (!place_counter(pi, plan, name, ev, gp_used, fixed_used))
			refuse(plan, name, "more events than counters in every pass");
	}
	return plan->npasses;
}


bool pmu_has_event(const struct pmu_info *pi, const char *name)
{
	return pi && pi->present && (pmu_table_find(pi->family, name) || pmu_table_find(pi->base, name));
}
