/* Counter-overflow sampling on AArch64, the register accesses (see pmu_pmi.h). Arm ARM (DDI 0487)
 * "The Performance Monitors Extension": "Enabling event counters" (PMCR_EL0.E and PMCNTENSET_EL0
 * both), "Counter size" (an event counter overflows at 2^32, or 2^64 with PMCR_EL0.LP),
 * "Overflow" (the overflow sets PMOVSSET_EL0 and, with PMINTENSET_EL1, asserts the PMU interrupt
 * request while the status bit stays set), "Synchronization of changes to the Performance
 * Monitors registers" (an isb after PMSELR_EL0 before the PMXEV* access, and after writes that
 * must take effect before the code that follows). */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "arch/aarch64/pmu_pmi.h"
#include "arch/pmu.h"

#include "arch/aarch64/cpu.h"
#include "arch/aarch64/pmu_regs.h"

#define sysreg_write(name, v) __asm__ volatile("msr " #name ", %0" : : "r"((uint64_t)(v)) : "memory")

/* PMCR_EL0 bits put back at the stop (P and C are write-1-to-reset actions, read as 0). */
#define PMCR_RESTORE_MASK (A64_PMCR_E | A64_PMCR_D | A64_PMCR_X | A64_PMCR_DP | A64_PMCR_LC | A64_PMCR_LP)

static void select_counter(unsigned n)
{
	sysreg_write(pmselr_el0, n & A64_PMSELR_SEL_MASK);
	cpu_isb();
}

static uint32_t swap_typer(unsigned n, uint32_t v)
{
	uint32_t prev;

	select_counter(n);
	prev = (uint32_t)sysreg_read(pmxevtyper_el0);
	sysreg_write(pmxevtyper_el0, v);
	return prev;
}

static void write_counter(unsigned n, uint64_t v)
{
	select_counter(n);
	sysreg_write(pmxevcntr_el0, v);
}

/* Both with the counters stopped: the nudge one event behind ours. */
static void preload(const struct a64_pmi *p, uint64_t period)
{
	if (p->nudge)
		write_counter(p->nudge_counter, a64_pmi_nudge_preload(p, period));
	write_counter(p->counter, a64_pmi_preload(p, period));
}

bool a64_pmi_setup(struct a64_pmi *p, const struct pmu_info *pi, const char *event, const char **why)
{
	uint32_t bits;

	if (!pmu_usable(pi)) {
		*p = (struct a64_pmi){ 0 };
		*why = pi && pi->reason ? pi->reason : "no PMU";
		return false;
	}
	if (!a64_pmi_plan(p, pi, event, (uint32_t)sysreg_read(pmcntenset_el0), why))
		return false;
	bits = a64_pmi_counters(p);
	sysreg_write(pmcntenclr_el0, bits);
	sysreg_write(pmintenclr_el1, bits);
	sysreg_write(pmovsclr_el0, bits);
	p->pmcr_prev = sysreg_read(pmcr_el0);
	p->typer_prev = swap_typer(p->counter, p->typer);
	if (p->nudge)
		p->nudge_typer_prev = swap_typer(p->nudge_counter, p->typer);
	cpu_isb();
	return true;
}

void a64_pmi_arm(struct a64_pmi *p, uint64_t period)
{
	uint32_t bits = a64_pmi_counters(p);

	/* Stopped while preloaded: the values written are the values they start from. */
	sysreg_write(pmcntenclr_el0, bits);
	preload(p, period);
	sysreg_write(pmovsclr_el0, bits);
	sysreg_write(pmcr_el0, p->pi->pmcr); /* E, and the LP the preload's width assumes */
	sysreg_write(pmintenset_el1, a64_pmi_bit(p));
	p->armed = true;
	sysreg_write(pmcntenset_el0, bits);
	cpu_isb();
}

bool a64_pmi_ack(struct a64_pmi *p, uint64_t next_period)
{
	uint32_t bits = a64_pmi_counters(p);
	uint64_t sel;

	if (!p->armed || !(sysreg_read(pmovsclr_el0) & a64_pmi_bit(p))) {
		p->not_ours++;
		return false;
	}
	p->overflows++;
	/* The interrupted code may be between its own PMSELR write and PMXEV* access. */
	sel = sysreg_read(pmselr_el0);
	/* Stopped while preloaded (as at the arm): the nudge stays exactly one event behind ours.
	 * What counted from the overflow to here (the handler's own EL1 instructions) is lost to the
	 * next period's randomisation. */
	sysreg_write(pmcntenclr_el0, bits);
	preload(p, next_period);
	/* Clearing the status drops the level before the EOI: no second interrupt for this one. */
	sysreg_write(pmovsclr_el0, bits);
	sysreg_write(pmselr_el0, sel);
	sysreg_write(pmcntenset_el0, bits);
	cpu_isb();
	return true;
}

void a64_pmi_stop(struct a64_pmi *p)
{
	uint32_t bits;

	if (!p->pi)
		return;
	bits = a64_pmi_counters(p);
	sysreg_write(pmcntenclr_el0, bits);
	sysreg_write(pmintenclr_el1, bits);
	cpu_isb();
	sysreg_write(pmovsclr_el0, bits);
	(void)swap_typer(p->counter, p->typer_prev);
	if (p->nudge)
		(void)swap_typer(p->nudge_counter, p->nudge_typer_prev);
	sysreg_write(pmcr_el0, p->pmcr_prev & PMCR_RESTORE_MASK);
	cpu_isb();
	p->armed = false;
}
