/* PMU discovery, allocation, programming and reading (see pmu.h). Register layouts: pmu_regs.h.
 *
 * Programming order (both vendors): with a global control, first stop everything through it, then
 * program each counter disabled -> zeroed -> enabled event select, then clear the overflow status;
 * counting starts and stops with single writes of the global control. Without one (Intel v1, AMD
 * legacy and core-extension counters), the event selects are written without the enable bit and
 * start/stop set and clear it counter by counter. */
#include "arch/x86_64/pmu.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/pmu_regs.h"

#define MSR_OK_STATUS 0
#define SELFTEST_SPIN 20000 /* loop iterations the liveness check counts */

static uint32_t field(uint32_t v, unsigned shift, unsigned bits)
{
	return (v >> shift) & ((1u << bits) - 1);
}

static uint64_t width_mask(unsigned width)
{
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}

static bool str_same(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

const char *pmu_kind_name(enum pmu_kind k)
{
	static const char *const names[] = { "none", "intel_arch", "amd_legacy", "amd_core_ext", "amd_perfmon_v2" };

	return k <= PMU_AMD_V2 ? names[k] : "none";
}

void pmu_read_cpuid(const struct cpu_info *ci, struct pmu_cpuid *id)
{
	uint32_t a, b, c, d;

	*id = (struct pmu_cpuid){ 0 };
	cpu_cpuid(PMU_LEAF_FEATURES, 0, &a, &b, &id->leaf1_ecx, &d);
	if (ci->max_leaf >= PMU_LEAF_POWER_MGMT)
		cpu_cpuid(PMU_LEAF_POWER_MGMT, 0, &a, &b, &id->leaf6_ecx, &d);
	if (ci->max_leaf >= PMU_LEAF_ARCH_PERFMON)
		cpu_cpuid(PMU_LEAF_ARCH_PERFMON, 0, &id->leaf_a[0], &id->leaf_a[1], &id->leaf_a[2], &id->leaf_a[3]);
	if (ci->max_ext_leaf >= PMU_LEAF_EXT_FEATURES1)
		cpu_cpuid(PMU_LEAF_EXT_FEATURES1, 0, &a, &b, &id->ext1_ecx, &d);
	if (ci->max_ext_leaf >= PMU_LEAF_EXT_POWER)
		cpu_cpuid(PMU_LEAF_EXT_POWER, 0, &a, &b, &c, &id->ext7_edx);
	if (ci->max_ext_leaf >= PMU_LEAF_AMD_PERFMON)
		cpu_cpuid(PMU_LEAF_AMD_PERFMON, 0, &id->ext22[0], &id->ext22[1], &c, &d);
}

/* ---- register addresses ------------------------------------------------------------------------ */

static bool is_intel(const struct pmu_info *pi)
{
	return pi->kind == PMU_INTEL;
}

static uint32_t ctl_msr(const struct pmu_info *pi, unsigned i)
{
	return is_intel(pi) ? MSR_IA32_PERFEVTSEL0 + i : pi->ctl_base + pi->msr_stride * i;
}

/* Intel counters are written through the full-width alias when PERF_CAPABILITIES allows it:
 * the legacy address takes only 32 bits, sign-extended. */
static uint32_t ctr_write_msr(const struct pmu_info *pi, unsigned i)
{
	if (is_intel(pi))
		return (pi->full_width ? MSR_IA32_A_PMC0 : MSR_IA32_PMC0) + i;
	return pi->ctr_base + pi->msr_stride * i;
}

static uint32_t ctr_read_msr(const struct pmu_info *pi, unsigned i)
{
	return is_intel(pi) ? MSR_IA32_PMC0 + i : pi->ctr_base + pi->msr_stride * i;
}

static void wr(const struct pmu_info *pi, uint32_t msr, uint64_t v)
{
	pi->ops->wrmsr(pi->ops->ctx, msr, v);
}

static uint64_t rd(const struct pmu_info *pi, uint32_t msr)
{
	uint64_t v = 0;

	if (pi->ops->rdmsr(pi->ops->ctx, msr, &v) != MSR_OK_STATUS)
		return 0;
	return v;
}

/* ---- event selects ----------------------------------------------------------------------------- */

static uint64_t common_evtsel(const struct pmu_event *ev)
{
	uint64_t v = ((uint64_t)(ev->event & EVTSEL_EVENT_MASK) << EVTSEL_EVENT_SHIFT) |
		     ((uint64_t)ev->umask << EVTSEL_UMASK_SHIFT) | ((uint64_t)ev->cmask << EVTSEL_CMASK_SHIFT) |
		     EVTSEL_OS; /* the probes run at CPL 0: count there only */

	if (ev->flags & PMU_EV_INV)
		v |= EVTSEL_INV;
	if (ev->flags & PMU_EV_EDGE)
		v |= EVTSEL_EDGE;
	return v;
}

uint64_t pmu_intel_evtsel(const struct pmu_event *ev)
{
	return common_evtsel(ev);
}

uint64_t pmu_amd_evtsel(const struct pmu_event *ev)
{
	/* EventSelect[11:8] lives at bits 35:32; HostOnly/GuestOnly stay 0 (count in both). */
	return common_evtsel(ev) |
	       (((uint64_t)(ev->event >> 8) & AMD_EVTSEL_EVENT_HI_MASK) << AMD_EVTSEL_EVENT_HI_SHIFT);
}

/* ---- discovery --------------------------------------------------------------------------------- */

static void discover_intel(struct pmu_info *pi, const struct cpu_info *ci, const struct pmu_cpuid *id)
{
	uint32_t eax = id->leaf_a[0], ebx = id->leaf_a[1], ecx = id->leaf_a[2], edx = id->leaf_a[3];

	pi->version = field(eax, ARCH_PERFMON_EAX_VERSION_SHIFT, 8);
	pi->num_gp = field(eax, ARCH_PERFMON_EAX_NUM_GP_SHIFT, 8);
	pi->gp_width = field(eax, ARCH_PERFMON_EAX_GP_WIDTH_SHIFT, 8);
	pi->arch_events_len = field(eax, ARCH_PERFMON_EAX_EBX_LEN_SHIFT, 8);
	if (ci->max_leaf < PMU_LEAF_ARCH_PERFMON) {
		pi->reason = "CPUID leaf 0xA not available";
		return;
	}
	if (!pi->version || !pi->num_gp || !pi->gp_width) {
		pi->reason = ci->hypervisor ? "CPUID 0xA reports no counters (hypervisor hides the PMU)"
					    : "CPUID 0xA reports no counters";
		return;
	}
	if (pi->num_gp > PMU_MAX_GP)
		pi->num_gp = PMU_MAX_GP;
	for (unsigned i = 0; i < pi->arch_events_len && i < 32; i++)
		if (!(ebx & (1u << i)))
			pi->arch_events |= 1u << i;
	if (pi->version >= 2) {
		pi->num_fixed = field(edx, ARCH_PERFMON_EDX_NUM_FIXED_SHIFT, ARCH_PERFMON_EDX_NUM_FIXED_BITS);
		pi->fixed_width = field(edx, ARCH_PERFMON_EDX_FIXED_WIDTH_SHIFT, 8);
		for (unsigned j = 0; j < PMU_MAX_FIXED; j++)
			if (j < pi->num_fixed || (pi->version >= 5 && (ecx & (1u << j))))
				pi->fixed_avail |= 1u << j;
		if (!pi->fixed_width)
			pi->fixed_avail = 0;
		pi->global_ctrl = true;
		pi->status_reset = pi->version >= 4;
	}
	if (id->leaf1_ecx & CPUID1_ECX_PDCM)
		pi->full_width = rd(pi, MSR_IA32_PERF_CAPABILITIES) & PERF_CAP_FW_WRITE;
	pi->kind = PMU_INTEL;
	pi->present = true;
	pi->reason = "architectural PMU (CPUID 0xA)";
}

static void discover_amd(struct pmu_info *pi, const struct cpu_info *ci, const struct pmu_cpuid *id)
{
	if (ci->max_ext_leaf >= PMU_LEAF_AMD_PERFMON && (id->ext22[0] & AMD_PERFMON_EAX_V2)) {
		pi->kind = PMU_AMD_V2;
		pi->version = 3;
		pi->num_gp = field(id->ext22[1], AMD_PERFMON_EBX_NUM_CORE_SHIFT, AMD_PERFMON_EBX_NUM_CORE_BITS);
		pi->global_ctrl = true;
		pi->reason = "AMD PerfMonV2 (CPUID 0x80000022)";
	} else if (id->ext1_ecx & EXT1_ECX_PERFCTR_CORE) {
		pi->kind = PMU_AMD_CORE_EXT;
		pi->version = 2;
		pi->num_gp = AMD_CORE_EXT_COUNTERS;
		pi->reason = "AMD core performance counter extensions (CPUID 0x80000001 ECX[23])";
	} else if (ci->hypervisor) {
		pi->reason = "hypervisor does not expose PerfCtrExtCore; legacy counters unverifiable";
		return;
	} else {
		pi->kind = PMU_AMD_LEGACY;
		pi->version = 1;
		pi->num_gp = AMD_LEGACY_COUNTERS;
		pi->reason = "AMD legacy counters (MSR C001_0000..7)";
	}
	if (pi->kind == PMU_AMD_LEGACY) {
		pi->ctl_base = MSR_AMD_PERF_CTL0;
		pi->ctr_base = MSR_AMD_PERF_CTR0;
		pi->msr_stride = MSR_AMD_LEGACY_STRIDE;
	} else {
		pi->ctl_base = MSR_AMD_CORE_PERF_CTL0;
		pi->ctr_base = MSR_AMD_CORE_PERF_CTR0;
		pi->msr_stride = MSR_AMD_CORE_STRIDE;
	}
	if (!pi->num_gp) {
		pi->kind = PMU_NONE;
		pi->reason = "CPUID 0x80000022 reports no core counters";
		return;
	}
	if (pi->num_gp > PMU_MAX_GP)
		pi->num_gp = PMU_MAX_GP;
	pi->gp_width = AMD_COUNTER_WIDTH;
	pi->present = true;
}

static bool msr_readable(const struct pmu_info *pi, uint32_t msr)
{
	uint64_t v;

	return pi->ops->rdmsr(pi->ops->ctx, msr, &v) == MSR_OK_STATUS;
}

/* APERF/MPERF and RAPL: free-running, read with rdmsr. An all-zero RAPL unit register is not a
 * valid value (an emulator that reads every unknown MSR as 0), so it counts as absent. */
static void discover_freerun(struct pmu_info *pi, const struct cpu_info *ci, const struct pmu_cpuid *id)
{
	uint64_t unit = 0;
	uint32_t unit_msr = 0;

	pi->aperf_mperf = (id->leaf6_ecx & CPUID6_ECX_APERFMPERF) && msr_readable(pi, MSR_IA32_APERF) &&
			  msr_readable(pi, MSR_IA32_MPERF);
	if (ci->is_intel)
		unit_msr = MSR_RAPL_POWER_UNIT;
	else if (ci->is_amd && (id->ext7_edx & EXTPWR_EDX_RAPL))
		unit_msr = MSR_AMD_RAPL_POWER_UNIT;
	if (!unit_msr || pi->ops->rdmsr(pi->ops->ctx, unit_msr, &unit) != MSR_OK_STATUS || !unit)
		return;
	pi->rapl = true;
	pi->rapl_esu = (unsigned)((unit >> RAPL_UNIT_ESU_SHIFT) & RAPL_UNIT_ESU_MASK);
	if (ci->is_intel) {
		pi->rapl_pkg_msr = msr_readable(pi, MSR_PKG_ENERGY_STATUS) ? MSR_PKG_ENERGY_STATUS : 0;
		pi->rapl_dram_msr = msr_readable(pi, MSR_DRAM_ENERGY_STATUS) ? MSR_DRAM_ENERGY_STATUS : 0;
	} else {
		pi->rapl_pkg_msr = msr_readable(pi, MSR_AMD_PKG_ENERGY_STATUS) ? MSR_AMD_PKG_ENERGY_STATUS : 0;
		pi->rapl_core_msr = msr_readable(pi, MSR_AMD_CORE_ENERGY_STATUS) ? MSR_AMD_CORE_ENERGY_STATUS : 0;
	}
}

static void selftest_spin(void)
{
	for (volatile unsigned i = 0; i < SELFTEST_SPIN; i++)
		;
}

/* Count cycles on counter 0 for a short loop, read back with rdmsr (never rdpmc: an emulator
 * without a PMU raises #UD on it). A counter that did not move means MSRs that only pretend. */
static bool counters_count(struct pmu_info *pi)
{
	struct pmu_plan plan;
	const char *name = "cycles";
	uint64_t v;

	if (pmu_plan_events(pi, &name, 1, &plan) != 1 || plan.pass[0].n != 1)
		return true; /* no cycles event to test with: trust CPUID */
	plan.pass[0].c[0].kind = PMU_CTR_GP; /* test the programmable counter, not a fixed one */
	plan.pass[0].c[0].idx = 0;
	plan.pass[0].c[0].mask = width_mask(pi->gp_width);
	if (is_intel(pi))
		plan.pass[0].c[0].config = pmu_intel_evtsel(plan.pass[0].c[0].ev);
	pmu_program(pi, &plan.pass[0]);
	pmu_start(pi, &plan.pass[0]);
	selftest_spin();
	pmu_stop(pi, &plan.pass[0]);
	v = rd(pi, ctr_read_msr(pi, 0)) & plan.pass[0].c[0].mask;
	pmu_release(pi, &plan.pass[0]);
	return v != 0;
}

void pmu_discover(struct pmu_info *pi, const struct cpu_info *ci, const struct pmu_cpuid *id,
		  const struct pmu_ops *ops)
{
	*pi = (struct pmu_info){ 0 };
	pi->ops = ops;
	pi->reason = "unknown CPU vendor";
	if (ci->is_intel)
		discover_intel(pi, ci, id);
	else if (ci->is_amd)
		discover_amd(pi, ci, id);
	if (ops->unavailable) {
		/* The CPUID geometry stays in the record for information; nothing is counted. */
		pi->present = false;
		pi->reason = ops->unavailable;
		return;
	}
	if (!pi->present)
		return;
	pi->base = pmu_base_events(ci->is_intel, ci->is_amd);
	pi->family = pmu_family_events(ci->is_intel, ci->is_amd, ci->family, ci->model);
	discover_freerun(pi, ci, id);
	if (!counters_count(pi)) {
		pi->present = false;
		pi->reason = "counter MSRs accept writes but do not count (emulated or hidden PMU)";
	}
}

/* ---- allocation -------------------------------------------------------------------------------- */

struct freerun_desc {
	const char *name;
	uint32_t (*msr)(const struct pmu_info *pi);
	unsigned width;
	const char *why_not;
};

static uint32_t aperf_msr(const struct pmu_info *pi) { return pi->aperf_mperf ? MSR_IA32_APERF : 0; }
static uint32_t mperf_msr(const struct pmu_info *pi) { return pi->aperf_mperf ? MSR_IA32_MPERF : 0; }
static uint32_t pkg_msr(const struct pmu_info *pi) { return pi->rapl_pkg_msr; }
static uint32_t dram_msr(const struct pmu_info *pi) { return pi->rapl_dram_msr; }
static uint32_t core_msr(const struct pmu_info *pi) { return pi->rapl_core_msr; }

static const struct freerun_desc freerun[] = {
	{ "aperf", aperf_msr, APERF_MPERF_WIDTH, "no APERF/MPERF (CPUID 6 ECX[0])" },
	{ "mperf", mperf_msr, APERF_MPERF_WIDTH, "no APERF/MPERF (CPUID 6 ECX[0])" },
	{ "energy_pkg", pkg_msr, RAPL_ENERGY_WIDTH, "no RAPL package energy counter" },
	{ "energy_dram", dram_msr, RAPL_ENERGY_WIDTH, "no RAPL DRAM energy counter on this CPU" },
	{ "energy_core", core_msr, RAPL_ENERGY_WIDTH, "no RAPL core energy counter on this CPU" },
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
			if (str_same(plan->pass[p].c[i].name, name))
				return true;
	return false;
}

static bool place_counter(const struct pmu_info *pi, struct pmu_plan *plan, const char *name,
			  const struct pmu_event *ev, unsigned *gp_used, uint32_t *fixed_used)
{
	for (unsigned p = 0; p < PMU_MAX_PASSES; p++) {
		struct pmu_counter *c;

		if (plan->pass[p].n >= PMU_MAX_EVENTS)
			continue;
		if (is_intel(pi) && ev->fixed >= 0 && (pi->fixed_avail & (1u << ev->fixed)) &&
		    !(fixed_used[p] & (1u << ev->fixed))) {
			fixed_used[p] |= 1u << ev->fixed;
			c = add(plan, p, name);
			c->ev = ev;
			c->kind = PMU_CTR_FIXED;
			c->idx = (unsigned)ev->fixed;
			c->mask = width_mask(pi->fixed_width);
			return true;
		}
		if (gp_used[p] < pi->num_gp) {
			c = add(plan, p, name);
			c->ev = ev;
			c->kind = PMU_CTR_GP;
			c->idx = gp_used[p]++;
			c->mask = width_mask(pi->gp_width);
			c->config = is_intel(pi) ? pmu_intel_evtsel(ev) : pmu_amd_evtsel(ev);
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
			if (str_same(freerun[f].name, name))
				break;
		if (f < NUM_FREERUN) {
			uint32_t msr = freerun[f].msr(pi);
			struct pmu_counter *c;

			if (!msr || plan->pass[0].n >= PMU_MAX_EVENTS) {
				refuse(plan, name, msr ? "too many events in one set" : freerun[f].why_not);
				continue;
			}
			c = add(plan, 0, name);
			c->kind = PMU_CTR_MSR;
			c->msr = msr;
			c->mask = width_mask(freerun[f].width);
			continue;
		}
		ev = pmu_table_find(pi->family, name);
		if (!ev)
			ev = pmu_table_find(pi->base, name);
		if (!ev) {
			refuse(plan, name, "no such event in this CPU model's event tables");
			continue;
		}
		if (is_intel(pi) && ev->arch_bit >= 0 && !(pi->arch_events & (1u << ev->arch_bit))) {
			refuse(plan, name, "CPUID 0xA marks this architectural event unavailable");
			continue;
		}
		if (!place_counter(pi, plan, name, ev, gp_used, fixed_used))
			refuse(plan, name, "more events than counters in every pass");
	}
	return plan->npasses;
}

/* ---- programming ------------------------------------------------------------------------------- */

/* Bits of this group in the global control / status registers. */
static uint64_t global_bits(const struct pmu_info *pi, const struct pmu_group *g)
{
	uint64_t m = 0;

	for (unsigned i = 0; i < g->n; i++) {
		if (g->c[i].kind == PMU_CTR_GP)
			m |= 1ull << g->c[i].idx;
		else if (g->c[i].kind == PMU_CTR_FIXED && is_intel(pi))
			m |= 1ull << (GLOBAL_FIXED_SHIFT + g->c[i].idx);
	}
	return m;
}

static uint32_t global_ctrl_msr(const struct pmu_info *pi)
{
	return is_intel(pi) ? MSR_IA32_PERF_GLOBAL_CTRL : MSR_AMD_PERF_CNTR_GLOBAL_CTL;
}

static uint32_t global_status_msr(const struct pmu_info *pi)
{
	return is_intel(pi) ? MSR_IA32_PERF_GLOBAL_STATUS : MSR_AMD_PERF_CNTR_GLOBAL_STATUS;
}

static uint32_t global_clear_msr(const struct pmu_info *pi)
{
	if (!is_intel(pi))
		return MSR_AMD_PERF_CNTR_GLOBAL_STATUS_CLR;
	return pi->status_reset ? MSR_IA32_PERF_GLOBAL_STATUS_RESET : MSR_IA32_PERF_GLOBAL_OVF_CTRL;
}

void pmu_program(const struct pmu_info *pi, const struct pmu_group *g)
{
	uint64_t fixed_ctrl = 0;
	bool any_fixed = false;

	if (pi->global_ctrl)
		wr(pi, global_ctrl_msr(pi), 0);
	for (unsigned i = 0; i < g->n; i++) {
		const struct pmu_counter *c = &g->c[i];

		if (c->kind == PMU_CTR_GP) {
			wr(pi, ctl_msr(pi, c->idx), 0);
			wr(pi, ctr_write_msr(pi, c->idx), 0);
			/* With a global control the select can be enabled now: nothing counts until the
			 * global enable. Without one, the enable bit is the start. */
			wr(pi, ctl_msr(pi, c->idx), c->config | (pi->global_ctrl ? EVTSEL_EN : 0));
		} else if (c->kind == PMU_CTR_FIXED) {
			fixed_ctrl |= FIXED_CTRL_EN_OS << (FIXED_CTRL_FIELD_BITS * c->idx);
			wr(pi, MSR_IA32_FIXED_CTR0 + c->idx, 0);
			any_fixed = true;
		}
	}
	if (any_fixed)
		wr(pi, MSR_IA32_FIXED_CTR_CTRL, fixed_ctrl);
	if (pi->global_ctrl)
		wr(pi, global_clear_msr(pi), global_bits(pi, g) | (is_intel(pi) ? GLOBAL_STATUS_COND_CHGD : 0));
}

void pmu_start(const struct pmu_info *pi, const struct pmu_group *g)
{
	if (pi->global_ctrl) {
		wr(pi, global_ctrl_msr(pi), global_bits(pi, g));
		return;
	}
	for (unsigned i = 0; i < g->n; i++)
		if (g->c[i].kind == PMU_CTR_GP)
			wr(pi, ctl_msr(pi, g->c[i].idx), g->c[i].config | EVTSEL_EN);
}

uint64_t pmu_stop(const struct pmu_info *pi, const struct pmu_group *g)
{
	uint64_t ovf;

	if (!pi->global_ctrl) {
		for (unsigned i = 0; i < g->n; i++)
			if (g->c[i].kind == PMU_CTR_GP)
				wr(pi, ctl_msr(pi, g->c[i].idx), g->c[i].config);
		return 0;
	}
	wr(pi, global_ctrl_msr(pi), 0);
	ovf = rd(pi, global_status_msr(pi)) & global_bits(pi, g);
	if (ovf)
		wr(pi, global_clear_msr(pi), ovf);
	return ovf;
}

void pmu_read(const struct pmu_info *pi, const struct pmu_group *g, uint64_t *out)
{
	const struct pmu_ops *o = pi->ops;

	for (unsigned i = 0; i < g->n; i++) {
		const struct pmu_counter *c = &g->c[i];
		uint64_t v = 0;

		if (c->kind == PMU_CTR_GP)
			v = o->rdpmc(o->ctx, c->idx);
		else if (c->kind == PMU_CTR_FIXED)
			v = o->rdpmc(o->ctx, RDPMC_FIXED | c->idx);
		else if (o->rdmsr(o->ctx, c->msr, &v) != MSR_OK_STATUS)
			v = 0;
		out[i] = v & c->mask;
	}
}

void pmu_release(const struct pmu_info *pi, const struct pmu_group *g)
{
	bool any_fixed = false;

	if (pi->global_ctrl)
		wr(pi, global_ctrl_msr(pi), 0);
	for (unsigned i = 0; i < g->n; i++) {
		if (g->c[i].kind == PMU_CTR_GP)
			wr(pi, ctl_msr(pi, g->c[i].idx), 0);
		else if (g->c[i].kind == PMU_CTR_FIXED)
			any_fixed = true;
	}
	if (any_fixed)
		wr(pi, MSR_IA32_FIXED_CTR_CTRL, 0);
}
