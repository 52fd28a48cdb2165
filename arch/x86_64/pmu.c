/* PMU discovery, programming and reading (see pmu.h; allocation: pmu_plan.c; free-running MSR
 * counters: pmu_freerun.c; per-CPU settings: pmu_quirks.c). Register layouts: pmu_regs.h.
 *
 * Programming order (both vendors): with a global control, first stop everything through it, then
 * program each counter disabled -> zeroed -> enabled event select, then clear the overflow status;
 * counting starts and stops with single writes of the global control. Without one (Intel v1, AMD
 * legacy and core-extension counters), the event selects are written without the enable bit and
 * start/stop set and clear it counter by counter. */
#include "arch/pmu.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/msr.h"
#include "arch/x86_64/pmu_internal.h"
#include "arch/x86_64/pmu_regs.h"

#define SELFTEST_SPIN 20000 /* loop iterations the liveness check counts */

static uint32_t field(uint32_t v, unsigned shift, unsigned bits)
{
	return (v >> shift) & ((1u << bits) - 1);
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
	if (ci->is_intel && ci->max_leaf >= PMU_LEAF_STRUCT_EXT)
		cpu_cpuid(PMU_LEAF_STRUCT_EXT, 0, &a, &b, &c, &id->leaf7_edx);
	if (id->leaf7_edx & CPUID7_EDX_HYBRID) {
		if (ci->max_leaf >= PMU_LEAF_HYBRID)
			cpu_cpuid(PMU_LEAF_HYBRID, 0, &id->leaf1a_eax, &b, &c, &d);
		if (ci->max_leaf >= PMU_LEAF_ARCH_PERFMON_EXT)
			cpu_cpuid(PMU_LEAF_ARCH_PERFMON_EXT, 0, &id->leaf23[0], &b, &c, &d);
		if (id->leaf23[0] & PERFMON_EXT_EAX_COUNTERS_VALID)
			cpu_cpuid(PMU_LEAF_ARCH_PERFMON_EXT, PERFMON_EXT_SUBLEAF_COUNTERS, &id->leaf23[1], &id->leaf23[2], &c, &d);
	}
	if (ci->max_ext_leaf >= PMU_LEAF_EXT_FEATURES1)
		cpu_cpuid(PMU_LEAF_EXT_FEATURES1, 0, &a, &b, &id->ext1_ecx, &d);
	if (ci->max_ext_leaf >= PMU_LEAF_EXT_POWER)
		cpu_cpuid(PMU_LEAF_EXT_POWER, 0, &a, &b, &c, &id->ext7_edx);
	if (ci->max_ext_leaf >= PMU_LEAF_AMD_PERFMON)
		cpu_cpuid(PMU_LEAF_AMD_PERFMON, 0, &id->ext22[0], &id->ext22[1], &c, &d);
}

/* ---- register addresses ------------------------------------------------------------------------ */

static uint32_t ctl_msr(const struct pmu_info *pi, unsigned i)
{
	return pmu_is_intel(pi) ? MSR_IA32_PERFEVTSEL0 + i : pi->ctl_base + pi->msr_stride * i;
}

/* Intel counters are written through the full-width alias when PERF_CAPABILITIES allows it:
 * the legacy address takes only 32 bits, sign-extended. */
static uint32_t ctr_write_msr(const struct pmu_info *pi, unsigned i)
{
	if (pmu_is_intel(pi))
		return (pi->full_width ? MSR_IA32_A_PMC0 : MSR_IA32_PMC0) + i;
	return pi->ctr_base + pi->msr_stride * i;
}

static uint32_t ctr_read_msr(const struct pmu_info *pi, unsigned i)
{
	return pmu_is_intel(pi) ? MSR_IA32_PMC0 + i : pi->ctr_base + pi->msr_stride * i;
}

/* A register write; false when it was refused (faulted). */
static bool wr(const struct pmu_info *pi, uint32_t msr, uint64_t v)
{
	return pi->ops->wrmsr(pi->ops->ctx, msr, v) == MSR_OK;
}

static uint64_t rd(const struct pmu_info *pi, uint32_t msr)
{
	uint64_t v = 0;

	if (pi->ops->rdmsr(pi->ops->ctx, msr, &v) != MSR_OK)
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

/* Counters 0..n-1 all present in a bitmap: n (the planner uses counters from 0 up). */
static unsigned low_run(uint32_t bitmap)
{
	unsigned n = 0;

	while (n < 32 && (bitmap >> n) & 1u)
		n++;
	return n;
}

/* An Intel hybrid part: leaf 0xA gave the counters common to every core type; this core's type
 * (leaf 1AH) and, where leaf 23H enumerates them, its own counter bitmaps replace them. Without
 * leaf 23H an Alder / Raptor Lake P-core has two general-purpose counters more (Linux's count;
 * the self-test drops any that do not count). Not hybrid: nothing changes. */
static void discover_hybrid(struct pmu_info *pi, const struct pmu_cpuid *id)
{
	if (!(id->leaf7_edx & CPUID7_EDX_HYBRID))
		return;
	pi->core_type = pmu_hybrid_core_type(id->leaf1a_eax);
	if (id->leaf23[0] & PERFMON_EXT_EAX_COUNTERS_VALID) {
		pi->num_gp = low_run(id->leaf23[1]);
		if (pi->version >= 2 && pi->fixed_width) {
			pi->num_fixed = low_run(id->leaf23[2]);
			pi->fixed_avail = id->leaf23[2] & ((1u << PMU_MAX_FIXED) - 1);
		}
	} else if (pi->core_type == PMU_CORE_P) {
		pi->num_gp += HYBRID_P_CORE_EXTRA_GP;
	}
	if (pi->num_gp > PMU_MAX_GP)
		pi->num_gp = PMU_MAX_GP;
}

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
	discover_hybrid(pi, id);
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

static void selftest_spin(void)
{
	for (volatile unsigned i = 0; i < SELFTEST_SPIN; i++)
		;
}

/* One counter of a self-test group. */
static void selftest_counter(const struct pmu_info *pi, struct pmu_group *g, const struct pmu_event *ev,
			     enum pmu_ctr_kind kind, unsigned idx)
{
	struct pmu_counter *c = &g->c[g->n++];

	*c = (struct pmu_counter){ .name = ev->name, .ev = ev, .kind = kind, .idx = idx };
	c->mask = pmu_width_mask(kind == PMU_CTR_FIXED ? pi->fixed_width : pi->gp_width);
	if (kind == PMU_CTR_GP)
		c->config = pmu_is_intel(pi) ? pmu_intel_evtsel(ev) : pmu_amd_evtsel(ev);
}

/* Does the core PMU really count, through what the probes use? First general-purpose counter 0,
 * read back with rdmsr: an emulator may accept the MSRs and never count, and may raise #UD on
 * rdpmc (QEMU TCG), so rdpmc is not tried on a PMU that only pretends. Then every general-purpose
 * and fixed counter at once, read with rdpmc as pmu_read does. rdpmc faulting everywhere (a
 * hypervisor intercepting it) makes the PMU unusable; a counter whose writes are refused, whose
 * rdpmc faults or that does not move is dropped: general-purpose counters from the first such one
 * on, fixed counters one by one (fixed_dead). Returns NULL when the PMU counts, else the reason. */
static const char *selftest(struct pmu_info *pi)
{
	const struct pmu_event *ev = pmu_table_find(pi->base, "cycles");
	struct pmu_group g = { 0 };
	uint64_t a[PMU_MAX_EVENTS], b[PMU_MAX_EVENTS], v;
	uint32_t bad, unread, all;
	unsigned gp_alive;

	if (!ev || (pmu_is_intel(pi) && ev->arch_bit >= 0 && !(pi->arch_events & (1u << ev->arch_bit))))
		return 0; /* no cycles event to test with: trust CPUID */
	selftest_counter(pi, &g, ev, PMU_CTR_GP, 0);
	bad = pmu_program(pi, &g, 0) | pmu_start(pi, &g, 0);
	selftest_spin();
	pmu_stop(pi, &g);
	v = rd(pi, ctr_read_msr(pi, 0)) & g.c[0].mask;
	pmu_release(pi, &g);
	if (bad)
		return "counter MSRs refuse writes (a hypervisor filters the PMU)";
	if (!v)
		return "counter MSRs accept writes but do not count (emulated or hidden PMU)";

	g.n = 0;
	for (unsigned i = 0; i < pi->num_gp; i++)
		selftest_counter(pi, &g, ev, PMU_CTR_GP, i);
	for (unsigned j = 0; j < PMU_MAX_FIXED && pmu_is_intel(pi); j++)
		if (pi->fixed_avail & (1u << j))
			selftest_counter(pi, &g, ev, PMU_CTR_FIXED, j);
	all = (uint32_t)((1ull << g.n) - 1);
	bad = pmu_program(pi, &g, 0) | pmu_start(pi, &g, 0);
	unread = pmu_read(pi, &g, a);
	selftest_spin();
	unread |= pmu_read(pi, &g, b);
	pmu_stop(pi, &g);
	pmu_release(pi, &g);
	if (unread == all)
		return "rdpmc faults (intercepted, e.g. by a hypervisor): the counters cannot be read";
	gp_alive = pi->num_gp;
	for (unsigned k = g.n; k-- > 0;) {
		if (!((bad | unread) & (1u << k)) && pmu_delta(a[k], b[k], g.c[k].mask))
			continue;
		if (g.c[k].kind == PMU_CTR_GP) {
			gp_alive = g.c[k].idx;
		} else {
			pi->fixed_avail &= ~(1u << g.c[k].idx);
			pi->fixed_dead |= 1u << g.c[k].idx;
		}
	}
	pi->num_gp = gp_alive;
	if (!gp_alive)
		return "general-purpose counter 0 does not count when read with rdpmc";
	return 0;
}

void pmu_discover(struct pmu_info *pi, const struct cpu_info *ci, const struct pmu_cpuid *id,
		  const struct pmu_ops *ops)
{
	const char *why;

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
		pi->lfence_serializing = pi->freeze_while_smm = pi->rdpmc = "unknown";
		return;
	}
	/* Settings and free-running counters of their own: with or without a core PMU. rdpmc is
	 * fault-safe: try it once, so the record says whether this machine lets it through. */
	pmu_discover_quirks(pi, ci, id);
	{
		uint64_t v;
		int st = ops->rdpmc(ops->ctx, 0, &v);

		pi->rdpmc = st == MSR_OK ? "ok" : st == MSR_FAULT ? "faults" : "unknown";
	}
	pmu_discover_freerun(pi, ci, id);
	if (!pi->present)
		return;
	pi->base = pmu_base_events(ci->is_intel, ci->is_amd);
	pi->family = pmu_family_events(ci->is_intel, ci->is_amd, ci->family, ci->model, pi->core_type);
	pi->constraints = pmu_constraint_table_for(ci->is_intel, ci->family, ci->model);
	why = selftest(pi);
	if (why) {
		pi->present = false;
		pi->reason = why;
	}
}

bool pmu_usable(const struct pmu_info *pi)
{
	return pi && (pi->present || pi->aperf_mperf || pi->rapl_pkg_msr || pi->rapl_dram_msr || pi->rapl_core_msr);
}

/* ---- programming ------------------------------------------------------------------------------- */

/* Bits of this group in the global control / status registers. */
static uint64_t global_bits(const struct pmu_info *pi, const struct pmu_group *g)
{
	uint64_t m = 0;

	for (unsigned i = 0; i < g->n; i++) {
		if (g->c[i].kind == PMU_CTR_GP)
			m |= 1ull << g->c[i].idx;
		else if (g->c[i].kind == PMU_CTR_FIXED && pmu_is_intel(pi))
			m |= 1ull << (GLOBAL_FIXED_SHIFT + g->c[i].idx);
	}
	return m;
}

/* Counters kept for overflow sampling (pmu_pmi.h): every global-control write leaves them
 * enabled, so a counter set measured during a profiled probe does not stop the sampling. */
static uint64_t reserved_bits(const struct pmu_info *pi)
{
	return pi->gp_reserved;
}

static uint32_t global_ctrl_msr(const struct pmu_info *pi)
{
	return pmu_is_intel(pi) ? MSR_IA32_PERF_GLOBAL_CTRL : MSR_AMD_PERF_CNTR_GLOBAL_CTL;
}

static uint32_t global_status_msr(const struct pmu_info *pi)
{
	return pmu_is_intel(pi) ? MSR_IA32_PERF_GLOBAL_STATUS : MSR_AMD_PERF_CNTR_GLOBAL_STATUS;
}

static uint32_t global_clear_msr(const struct pmu_info *pi)
{
	if (!pmu_is_intel(pi))
		return MSR_AMD_PERF_CNTR_GLOBAL_STATUS_CLR;
	return pi->status_reset ? MSR_IA32_PERF_GLOBAL_STATUS_RESET : MSR_IA32_PERF_GLOBAL_OVF_CTRL;
}

/* Mark counters refused: bit k of `which`, with the reason (the first reason stays). */
static uint32_t mark(struct pmu_faults *f, uint32_t which, const char *why)
{
	if (f) {
		for (unsigned k = 0; k < PMU_MAX_EVENTS; k++)
			if ((which & (1u << k)) && !(f->mask & (1u << k)))
				f->why[k] = why;
		f->mask |= which;
	}
	return which;
}

static uint32_t group_mask_msr(const struct pmu_group *g)
{
	uint32_t m = 0;

	for (unsigned k = 0; k < g->n; k++)
		if (g->c[k].kind == PMU_CTR_MSR)
			m |= 1u << k;
	return m;
}

static uint32_t group_mask(const struct pmu_group *g, bool fixed_only)
{
	uint32_t m = 0;

	for (unsigned k = 0; k < g->n; k++)
		if (!fixed_only || g->c[k].kind == PMU_CTR_FIXED)
			m |= 1u << k;
	return m;
}

#define WHY_GLOBAL "the global counter control refused the write"
#define WHY_SELECT "the event select or counter refused the write (event filtered?)"
#define WHY_FIXED "the fixed-counter control refused the write"

uint32_t pmu_program(const struct pmu_info *pi, const struct pmu_group *g, struct pmu_faults *f)
{
	uint64_t fixed_ctrl = 0;
	bool any_fixed = false;
	uint32_t bad = 0;

	if (pi->global_ctrl && !wr(pi, global_ctrl_msr(pi), reserved_bits(pi)))
		bad |= mark(f, group_mask(g, false), WHY_GLOBAL);
	for (unsigned i = 0; i < g->n; i++) {
		const struct pmu_counter *c = &g->c[i];

		if (c->kind == PMU_CTR_GP) {
			bool ok = wr(pi, ctl_msr(pi, c->idx), 0);

			ok = wr(pi, ctr_write_msr(pi, c->idx), 0) && ok;
			/* With a global control the select can be enabled now: nothing counts until the
			 * global enable. Without one, the enable bit is the start. */
			ok = wr(pi, ctl_msr(pi, c->idx), c->config | (pi->global_ctrl ? EVTSEL_EN : 0)) && ok;
			if (!ok)
				bad |= mark(f, 1u << i, WHY_SELECT);
		} else if (c->kind == PMU_CTR_FIXED) {
			fixed_ctrl |= FIXED_CTRL_EN_OS << (FIXED_CTRL_FIELD_BITS * c->idx);
			if (!wr(pi, MSR_IA32_FIXED_CTR0 + c->idx, 0))
				bad |= mark(f, 1u << i, WHY_SELECT);
			any_fixed = true;
		}
	}
	if (any_fixed && !wr(pi, MSR_IA32_FIXED_CTR_CTRL, fixed_ctrl))
		bad |= mark(f, group_mask(g, true), WHY_FIXED);
	/* A refused status clear leaves stale overflow bits, not wrong counts: not a refusal. */
	if (pi->global_ctrl)
		(void)wr(pi, global_clear_msr(pi), global_bits(pi, g) | (pmu_is_intel(pi) ? GLOBAL_STATUS_COND_CHGD : 0));
	return bad;
}

uint32_t pmu_start(const struct pmu_info *pi, const struct pmu_group *g, struct pmu_faults *f)
{
	uint32_t bad = 0;

	if (pi->global_ctrl) {
		if (!wr(pi, global_ctrl_msr(pi), global_bits(pi, g) | reserved_bits(pi)))
			bad = mark(f, group_mask(g, false) & ~group_mask_msr(g), WHY_GLOBAL);
		return bad;
	}
	for (unsigned i = 0; i < g->n; i++)
		if (g->c[i].kind == PMU_CTR_GP && !wr(pi, ctl_msr(pi, g->c[i].idx), g->c[i].config | EVTSEL_EN))
			bad |= mark(f, 1u << i, WHY_SELECT);
	return bad;
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
	wr(pi, global_ctrl_msr(pi), reserved_bits(pi));
	ovf = rd(pi, global_status_msr(pi)) & global_bits(pi, g);
	if (ovf)
		wr(pi, global_clear_msr(pi), ovf);
	return ovf;
}

uint32_t pmu_read(const struct pmu_info *pi, const struct pmu_group *g, uint64_t *out)
{
	const struct pmu_ops *o = pi->ops;
	uint32_t bad = 0;

	for (unsigned i = 0; i < g->n; i++) {
		const struct pmu_counter *c = &g->c[i];
		uint64_t v = 0;
		int st;

		if (c->kind == PMU_CTR_GP)
			st = o->rdpmc(o->ctx, c->idx, &v);
		else if (c->kind == PMU_CTR_FIXED)
			st = o->rdpmc(o->ctx, RDPMC_FIXED | c->idx, &v);
		else
			st = o->rdmsr(o->ctx, c->msr, &v);
		if (st != MSR_OK) {
			v = 0;
			bad |= 1u << i;
		}
		out[i] = v & c->mask;
	}
	return bad;
}

const char *pmu_read_fault_why(const struct pmu_counter *c)
{
	return c->kind == PMU_CTR_MSR ? "rdmsr of the counter faulted on this CPU"
				      : "rdpmc faulted on this CPU (intercepted, e.g. by a hypervisor)";
}

void pmu_release(const struct pmu_info *pi, const struct pmu_group *g)
{
	bool any_fixed = false;

	if (pi->global_ctrl)
		wr(pi, global_ctrl_msr(pi), reserved_bits(pi));
	for (unsigned i = 0; i < g->n; i++) {
		if (g->c[i].kind == PMU_CTR_GP)
			wr(pi, ctl_msr(pi, g->c[i].idx), 0);
		else if (g->c[i].kind == PMU_CTR_FIXED)
			any_fixed = true;
	}
	if (any_fixed)
		wr(pi, MSR_IA32_FIXED_CTR_CTRL, 0);
}
