/* Counter-overflow sampling on x86 (see pmu_pmi.h). The vendors' documents followed:
 *  - Intel SDM vol. 3B ch. 20 "Performance Monitoring": "Architectural Performance Monitoring
 *    Version 2" (IA32_PERF_GLOBAL_CTRL / _STATUS / _OVF_CTRL), "... Version 4" (the same 390H
 *    renamed IA32_PERF_GLOBAL_STATUS_RESET, with more bits), "Full-Width Writes to Performance
 *    Counter Registers" (IA32_A_PMCx, PERF_CAPABILITIES[13]), and "Generating an Interrupt on
 *    Overflow" (preload a negative count; the PMI masks the LVT entry);
 *  - AMD APM vol. 2 section 13.2 "Performance-Monitoring Counters" (PerfEvtSel Int bit 20, the
 *    counters count up and interrupt on overflow) and its PerfMonV2 registers PerfCntrGlobalCtl
 *    C000_0301, PerfCntrGlobalStatus C000_0300, PerfCntrGlobalStatusClr C000_0302.
 * Register layouts: pmu_regs.h. Every access goes through pi->ops (the unit tests' register model,
 * tests/unit/pmu_model.c, implements the documented semantics). */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "arch/x86_64/pmu_pmi.h"

#include "arch/x86_64/msr.h"
#include "arch/x86_64/pmu_internal.h"
#include "arch/x86_64/pmu_regs.h"

#define PMI_EVTSEL_FLAGS (EVTSEL_USR | EVTSEL_OS | EVTSEL_INT | EVTSEL_EN)

static bool wr(const struct pmu_pmi *p, uint32_t msr, uint64_t v)
{
	return p->pi->ops->wrmsr(p->pi->ops->ctx, msr, v) == MSR_OK;
}

static bool rd(const struct pmu_pmi *p, uint32_t msr, uint64_t *v)
{
	*v = 0;
	return p->pi->ops->rdmsr(p->pi->ops->ctx, msr, v) == MSR_OK;
}

static bool refuse(const char **why, const char *reason)
{
	if (why)
		*why = reason;
	return false;
}

/* Intel v2+ and AMD PerfMonV2 have a global control and a global overflow status; Intel v1 and
 * AMD's legacy and core-extension counters have neither. */
static bool has_global(const struct pmu_pmi *p)
{
	return p->pi->global_ctrl;
}

static uint32_t global_ctrl_msr(const struct pmu_pmi *p)
{
	return pmu_is_intel(p->pi) ? MSR_IA32_PERF_GLOBAL_CTRL : MSR_AMD_PERF_CNTR_GLOBAL_CTL;
}

static uint32_t global_status_msr(const struct pmu_pmi *p)
{
	return pmu_is_intel(p->pi) ? MSR_IA32_PERF_GLOBAL_STATUS : MSR_AMD_PERF_CNTR_GLOBAL_STATUS;
}

/* Intel: IA32_PERF_GLOBAL_OVF_CTRL (v2, v3) and IA32_PERF_GLOBAL_STATUS_RESET (v4+) are one MSR,
 * 390H, write 1 to clear; v4 only widened the bits it clears. AMD: PerfCntrGlobalStatusClr. */
static uint32_t global_clear_msr(const struct pmu_pmi *p)
{
	if (!pmu_is_intel(p->pi))
		return MSR_AMD_PERF_CNTR_GLOBAL_STATUS_CLR;
	return p->pi->status_reset ? MSR_IA32_PERF_GLOBAL_STATUS_RESET : MSR_IA32_PERF_GLOBAL_OVF_CTRL;
}

/* The status bits that can be ours or another counter's: AMD's status has reserved bits that
 * old Zen 4 microcode sets (pmu_regs.h), so only its counter bits count; Intel's other
 * indicators (fixed counters, PEBS buffer, CondChgd, ...) are all real events and clearable. */
static uint64_t status_meaningful(const struct pmu_pmi *p)
{
	return pmu_is_intel(p->pi) ? ~0ull : pmu_width_mask(p->pi->num_gp);
}

static uint64_t our_bit(const struct pmu_pmi *p)
{
	return 1ull << p->counter;
}

/* The counter is read back through its architectural address (IA32_PMCx: reads return the full
 * width; the A_PMCx alias matters only for writes). */
static uint32_t ctr_read_msr(const struct pmu_pmi *p)
{
	return pmu_is_intel(p->pi) ? MSR_IA32_PMC0 + p->counter : p->ctr_msr;
}

static uint64_t clamp_period(const struct pmu_pmi *p, uint64_t period)
{
	if (!period)
		return 1;
	return period > p->max_period ? p->max_period : period;
}

/* -period within the counter width: it overflows (wraps to 0) after exactly `period` events. */
static uint64_t preload(const struct pmu_pmi *p, uint64_t period)
{
	return (0 - clamp_period(p, period)) & p->ctr_mask;
}

static unsigned count_bits(uint64_t v)
{
	unsigned n = 0;

	for (; v; v &= v - 1) /* no popcount builtin: libgcc is not linked into the firmware */
		n++;
	return n;
}

static const struct pmu_event *find_event(const struct pmu_info *pi, const char *name)
{
	const struct pmu_event *ev = pmu_table_find(pi->family, name);

	return ev ? ev : pmu_table_find(pi->base, name);
}

bool pmu_pmi_setup(struct pmu_pmi *p, const struct pmu_info *pi, const char *event, const char **why)
{
	const struct pmu_event *ev;
	uint64_t sel = 0;
	uint32_t allowed;
	unsigned i;

	*p = (struct pmu_pmi){ 0 };
	if (!pi || !pi->present || !pi->ops)
		return refuse(why, pi && pi->reason ? pi->reason : "no core PMU");
	if (!event || !*event)
		return refuse(why, "no event named");
	ev = find_event(pi, event);
	if (!ev)
		return refuse(why, "no such event in this CPU model's event tables");
	if (pmu_is_intel(pi) && ev->arch_bit >= 0 && !(pi->arch_events & (1u << ev->arch_bit)))
		return refuse(why, "CPUID 0xA marks this architectural event unavailable");
	if (ev->flags & PMU_EV_FIXED_ONLY)
		return refuse(why, "counted only by its fixed counter: overflow sampling needs a general-purpose counter");
	if (!pi->num_gp)
		return refuse(why, "no general-purpose counter");
	allowed = pmu_gp_allowed(pi, ev);
	if (!allowed)
		return refuse(why, "none of the counters this event is restricted to on this CPU model "
				   "(Linux's counter constraints) exists here");
	p->pi = pi;
	p->ev = ev;
	/* The last free one it may use: the runner's counter sets take counters from 0 up. */
	for (i = pi->num_gp; i-- > 0;) {
		if (!(allowed & (1u << i)))
			continue;
		p->counter = i;
		p->evtsel_msr = pmu_is_intel(pi) ? MSR_IA32_PERFEVTSEL0 + i : pi->ctl_base + pi->msr_stride * i;
		if (!rd(p, p->evtsel_msr, &sel)) {
			p->pi = 0;
			return refuse(why, "the event select cannot be read (a hypervisor filters the PMU?)");
		}
		if (!(sel & EVTSEL_EN))
			break;
	}
	if (sel & EVTSEL_EN) {
		p->pi = 0;
		return refuse(why, allowed == pmu_width_mask(pi->num_gp)
				   ? "every general-purpose counter is in use (its event select enabled)"
				   : "every counter this event is restricted to on this CPU model (Linux's counter "
				     "constraints) is in use (its event select enabled)");
	}
	if (pmu_is_intel(pi))
		p->ctr_msr = (pi->full_width ? MSR_IA32_A_PMC0 : MSR_IA32_PMC0) + i;
	else
		p->ctr_msr = pi->ctr_base + pi->msr_stride * i;
	p->evtsel = (pmu_is_intel(pi) ? pmu_intel_evtsel(ev) : pmu_amd_evtsel(ev)) | PMI_EVTSEL_FLAGS;
	p->ctr_mask = pmu_width_mask(pi->gp_width);
	p->max_period = pi->gp_width ? pmu_width_mask(pi->gp_width - 1) : 0;
	if (pmu_is_intel(pi) && !pi->full_width && p->max_period > pmu_width_mask(PMC_LEGACY_WRITE_BITS - 1))
		p->max_period = pmu_width_mask(PMC_LEGACY_WRITE_BITS - 1);
	if (!p->max_period) {
		p->pi = 0;
		return refuse(why, "the counter width is unknown");
	}
	/* A filtering hypervisor may refuse the select: find out now, leave it disabled. */
	if (!wr(p, p->evtsel_msr, p->evtsel & ~EVTSEL_EN) || !wr(p, p->evtsel_msr, 0)) {
		p->pi = 0;
		return refuse(why, "the event select refused the write (a hypervisor filters the PMU?)");
	}
	return true;
}

/* Leave the counter disabled after a refused write, with the reason. */
static bool give_up(struct pmu_pmi *p, const char *reason, const char **why)
{
	(void)wr(p, p->evtsel_msr, 0);
	p->armed = false;
	p->fault = reason;
	return refuse(why, reason);
}

bool pmu_pmi_arm(struct pmu_pmi *p, uint64_t period, const char **why)
{
	uint64_t ctrl;

	if (!p->pi)
		return refuse(why, "pmu_pmi_setup did not succeed");
	p->fault = 0;
	/* Disabled while it is preloaded: the value written is the value it starts from. */
	if (!wr(p, p->evtsel_msr, 0))
		return give_up(p, "the event select refused the write", why);
	if (!wr(p, p->ctr_msr, preload(p, period)))
		return give_up(p, "the counter refused the preload", why);
	if (has_global(p) && !wr(p, global_clear_msr(p), our_bit(p)))
		return give_up(p, "the overflow status clear refused the write", why);
	if (!wr(p, p->evtsel_msr, p->evtsel))
		return give_up(p, "the event select refused the write", why);
	if (has_global(p)) {
		/* Counting needs the global enable too (ANDed with the select's): keep the others' bits. */
		if (!rd(p, global_ctrl_msr(p), &ctrl))
			ctrl = 0;
		if (!wr(p, global_ctrl_msr(p), ctrl | our_bit(p)))
			return give_up(p, "the global counter control refused the write", why);
	}
	p->armed = true;
	return true;
}

/* Did our counter overflow? With a global status: its bit (the others are counted and cleared).
 * Without: its top bit is clear again after counting up from -period (period < 2^(width-1)). */
static bool overflowed(struct pmu_pmi *p, uint64_t *status)
{
	uint64_t v;

	if (!has_global(p)) {
		if (!rd(p, ctr_read_msr(p), &v))
			return false;
		return !(v & (1ull << (p->pi->gp_width - 1)));
	}
	if (!rd(p, global_status_msr(p), status))
		return false;
	*status &= status_meaningful(p);
	p->foreign += count_bits(*status & ~our_bit(p));
	if (*status & ~our_bit(p) && !(*status & our_bit(p)) && !wr(p, global_clear_msr(p), *status))
		(void)wr(p, global_clear_msr(p), *status & pmu_width_mask(p->pi->num_gp));
	return *status & our_bit(p);
}

/* Stop, preload, clear the status, restart; NULL, or the write that was refused. */
static const char *rearm(struct pmu_pmi *p, uint64_t status, uint64_t next_period)
{
	if (!wr(p, p->evtsel_msr, p->evtsel & ~EVTSEL_EN))
		return "the event select refused the write";
	if (!wr(p, p->ctr_msr, preload(p, next_period)))
		return "the counter refused the preload";
	/* Cleared while the counter is stopped. A bit the clear register refuses (none should) must
	 * not keep our own bit set: then ours alone. */
	if (has_global(p) && !wr(p, global_clear_msr(p), status) && !wr(p, global_clear_msr(p), our_bit(p)))
		return "the overflow status clear refused the write";
	if (!wr(p, p->evtsel_msr, p->evtsel))
		return "the event select refused the write";
	return 0;
}

bool pmu_pmi_ack(struct pmu_pmi *p, uint64_t next_period)
{
	uint64_t status = 0;
	const char *refused;

	if (!p->pi || !p->armed || !overflowed(p, &status))
		return false;
	p->overflows++;
	refused = rearm(p, status, next_period);
	if (refused)
		(void)give_up(p, refused, 0);
	return true;
}

void pmu_pmi_stop(struct pmu_pmi *p)
{
	uint64_t ctrl;

	if (!p->pi)
		return;
	(void)wr(p, p->evtsel_msr, 0);
	if (has_global(p)) {
		if (rd(p, global_ctrl_msr(p), &ctrl) && (ctrl & our_bit(p)))
			(void)wr(p, global_ctrl_msr(p), ctrl & ~our_bit(p));
		(void)wr(p, global_clear_msr(p), our_bit(p));
	}
	p->armed = false;
}
