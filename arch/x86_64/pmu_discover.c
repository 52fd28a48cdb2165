/* PMU discovery (see pmu.h): presence and geometry from CPUID (Intel leaf 0xA and, on hybrid
 * parts, leaves 1AH and 23H; AMD 0x80000001 / 0x80000022), the event tables for the CPU, and the
 * self-test that a counter really counts. Runs before the measurements, never inside a timed
 * window: built for size (the Makefile's FW_SIZE_SRC); programming and reading are pmu.c. */
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

/* CPUID of the calling CPU, through the ops' hook where there is one (the unit tests' model). */
static void q(const struct pmu_ops *ops, uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c,
	      uint32_t *d)
{
	uint32_t r[4];

	if (!ops || !ops->cpuid) {
		cpu_cpuid(leaf, sub, a, b, c, d);
		return;
	}
	ops->cpuid(ops->ctx, leaf, sub, r);
	*a = r[0];
	*b = r[1];
	*c = r[2];
	*d = r[3];
}

static void read_cpuid(const struct cpu_info *ci, struct pmu_cpuid *id, const struct pmu_ops *ops)
{
	uint32_t a, b, c, d;

	*id = (struct pmu_cpuid){ 0 };
	q(ops, PMU_LEAF_FEATURES, 0, &a, &b, &id->leaf1_ecx, &d);
	if (ci->max_leaf >= PMU_LEAF_POWER_MGMT)
		q(ops, PMU_LEAF_POWER_MGMT, 0, &a, &b, &id->leaf6_ecx, &d);
	if (ci->max_leaf >= PMU_LEAF_ARCH_PERFMON)
		q(ops, PMU_LEAF_ARCH_PERFMON, 0, &id->leaf_a[0], &id->leaf_a[1], &id->leaf_a[2], &id->leaf_a[3]);
	if (ci->is_intel && ci->max_leaf >= PMU_LEAF_STRUCT_EXT)
		q(ops, PMU_LEAF_STRUCT_EXT, 0, &a, &b, &c, &id->leaf7_edx);
	if (id->leaf7_edx & CPUID7_EDX_HYBRID) {
		if (ci->max_leaf >= PMU_LEAF_HYBRID)
			q(ops, PMU_LEAF_HYBRID, 0, &id->leaf1a_eax, &b, &c, &d);
		if (ci->max_leaf >= PMU_LEAF_ARCH_PERFMON_EXT)
			q(ops, PMU_LEAF_ARCH_PERFMON_EXT, 0, &id->leaf23[0], &b, &c, &d);
		if (id->leaf23[0] & PERFMON_EXT_EAX_COUNTERS_VALID)
			q(ops, PMU_LEAF_ARCH_PERFMON_EXT, PERFMON_EXT_SUBLEAF_COUNTERS, &id->leaf23[1], &id->leaf23[2], &c, &d);
	}
	if (ci->max_ext_leaf >= PMU_LEAF_EXT_FEATURES1)
		q(ops, PMU_LEAF_EXT_FEATURES1, 0, &a, &b, &id->ext1_ecx, &d);
	if (ci->max_ext_leaf >= PMU_LEAF_EXT_POWER)
		q(ops, PMU_LEAF_EXT_POWER, 0, &a, &b, &c, &id->ext7_edx);
	if (ci->max_ext_leaf >= PMU_LEAF_AMD_PERFMON)
		q(ops, PMU_LEAF_AMD_PERFMON, 0, &id->ext22[0], &id->ext22[1], &c, &d);
}

void pmu_read_cpuid(const struct cpu_info *ci, struct pmu_cpuid *id)
{
	read_cpuid(ci, id, 0);
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
	/* clamped before any return: the record shows the geometry also of a PMU it refuses */
	if (pi->num_gp > PMU_MAX_GP)
		pi->num_gp = PMU_MAX_GP;
	if (ci->max_leaf < PMU_LEAF_ARCH_PERFMON) {
		pi->reason = "CPUID leaf 0xA not available";
		return;
	}
	if (!pi->version || !pi->num_gp || !pi->gp_width) {
		pi->reason = ci->hypervisor ? "CPUID 0xA reports no counters (hypervisor hides the PMU)"
					    : "CPUID 0xA reports no counters";
		return;
	}
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
		pi->full_width = pmu_rd(pi, MSR_IA32_PERF_CAPABILITIES) & PERF_CAP_FW_WRITE;
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
	v = pmu_rd(pi, pmu_ctr_read_msr(pi, 0)) & g.c[0].mask;
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

void pmu_discover_this_cpu(struct pmu_info *pi, const struct cpu_info *ci, const struct pmu_info *boot)
{
	struct pmu_cpuid id;

	read_cpuid(ci, &id, boot->ops);
	pmu_discover(pi, ci, &id, boot->ops);
}
