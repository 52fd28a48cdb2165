/* PMU programming and reading (see pmu.h; discovery: pmu_discover.c; allocation: pmu_plan.c;
 * free-running MSR counters: pmu_freerun.c; per-CPU settings: pmu_quirks.c). Register layouts: pmu_regs.h.
 *
 * Programming order (both vendors): with a global control, first stop everything through it, then
 * program each counter disabled -> zeroed -> enabled event select, then clear the overflow status;
 * counting starts and stops with single writes of the global control. Without one (Intel v1, AMD
 * legacy and core-extension counters), the event selects are written without the enable bit and
 * start/stop set and clear it counter by counter. */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "arch/pmu.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/msr.h"
#include "arch/x86_64/pmu_internal.h"
#include "arch/x86_64/pmu_regs.h"

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

/* A register write; false when it was refused (faulted). */
static bool wr(const struct pmu_info *pi, uint32_t msr, uint64_t v)
{
	return pi->ops->wrmsr(pi->ops->ctx, msr, v) == MSR_OK;
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
	ovf = pmu_rd(pi, global_status_msr(pi)) & global_bits(pi, g);
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
