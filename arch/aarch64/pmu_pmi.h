/* Counter-overflow sampling on AArch64 (PMUv3; the role arch/x86_64/pmu_pmi.h has on x86): one
 * event counter, the highest-numbered one not enabled (the runner's counter sets fill from 0 up
 * and stay below a reserved one: pmu_info.counters_reserved), programmed through PMEVTYPER<n>_EL0
 * to count an event at EL1, preloaded with 2^width - period so that it overflows after `period`
 * events (width: 64 with PMCR_EL0.LP, else 32 — "Counter size" in the Arm ARM), with its overflow
 * interrupt enabled in PMINTENSET_EL1. The overflow sets its PMOVSSET_EL0 bit and asserts the
 * PMU's interrupt request (a level: PPI 23 on QEMU virt, the MADT GICC entry's "Performance
 * Interrupt GSIV") until PMOVSCLR_EL0 clears the bit; the handler (a64_pmi_ack) clears it before
 * the EOI and preloads the next period.
 *
 * QEMU (7.2, TCG) arms its overflow timer for one event short of the wrap (target/arm
 * pmevcntr_op_finish: delta = -(count + 1)); under -icount the timer then fires exactly there,
 * finds no overflow and is not armed again (delta 0), so the overflow would only be seen at the
 * next PMU register access. A second counter, the "nudge", counts the same event one event
 * behind ours (preload - 1) with no interrupt: its own timer fires one event later, when ours
 * has wrapped, and QEMU's update of all counters then raises our overflow. On hardware the nudge
 * just counts. It is taken only where a second counter is free (else sampling goes on without).
 *
 * The pure part (which counters, the PMEVTYPER value, the preloads, the clamp) is in
 * pmu_pmi_plan.c, host-tested against the Arm ARM's rules (tests/unit/aarch64/test_pmi.c); the
 * register accesses are in pmu_pmi.c. The counter is reached through PMSELR_EL0 and
 * PMXEVTYPER/PMXEVCNTR_EL0 (its number is known only at run time); the handler saves and
 * restores PMSELR_EL0 around its own use.
 *
 * Use (each CPU that samples on itself): a64_pmi_setup, pi->counters_reserved |= a64_pmi_counters,
 * route the PMU PPI, a64_pmi_arm; in the handler a64_pmi_ack(next period); at the end
 * a64_pmi_stop and clear the reserved bit. */
#ifndef ARCH_AARCH64_PMU_PMI_H
#define ARCH_AARCH64_PMU_PMI_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/aarch64/include/cpu/pmu.h"

struct a64_pmi {
	const struct pmu_info *pi;
	unsigned counter;       /* event counter n */
	bool nudge;             /* a second counter, nudge_counter, counts one event behind (above) */
	unsigned nudge_counter;
	unsigned event;         /* common event number */
	const char *arm_name;   /* its Arm ARM name (INST_RETIRED, CPU_CYCLES, ...) */
	uint32_t typer;         /* PMEVTYPER<n>_EL0: the EL1-only filter | event */
	uint64_t ctr_mask;      /* the overflow width: 2^32 - 1, or all ones with PMCR_EL0.LP */
	uint64_t max_period;    /* = ctr_mask: a larger period is clamped to it, 0 taken as 1 */
	/* What a64_pmi_setup found, put back by a64_pmi_stop. */
	uint32_t typer_prev, nudge_typer_prev;
	uint64_t pmcr_prev;
	bool armed;
	uint64_t overflows;     /* acknowledged overflows of our counter */
	uint64_t not_ours;      /* interrupts with our overflow bit clear (another counter's, or spurious) */
};

/* ---- pure (pmu_pmi_plan.c) -------------------------------------------------------------------- */

/* Choose the counters and encode: the highest event counter below min(PMCR_EL0.N, 31) whose bit
 * is clear in `enabled` (PMCNTENSET_EL0 as read) and in pi->counters_reserved, and the next such
 * one below it as the nudge (none: nudge false); the event's number
 * from the AArch64 event table ("cycles" is CPU_CYCLES here: overflow sampling needs an event
 * counter, not PMCCNTR_EL0), implemented per PMCEID0/1. False with *why: no PMU, no such event or
 * not implemented, no event counter, all in use. Leaves typer_prev, pmcr_prev zero. */
bool a64_pmi_plan(struct a64_pmi *p, const struct pmu_info *pi, const char *event, uint32_t enabled,
		  const char **why);
/* The value to write to the counter so that it overflows after `period` events:
 * (2^width - period) mod 2^width, period clamped to [1, max_period]. */
uint64_t a64_pmi_preload(const struct a64_pmi *p, uint64_t period);
/* The nudge counter's preload: one event more to go than a64_pmi_preload's. */
uint64_t a64_pmi_nudge_preload(const struct a64_pmi *p, uint64_t period);
/* The sampling counter's bit in PMCNTENSET/CLR, PMINTENSET/CLR and PMOVSSET/CLR. */
uint32_t a64_pmi_bit(const struct a64_pmi *p);
/* The bits of every counter used (with the nudge's): what counter sets must leave alone. */
uint32_t a64_pmi_counters(const struct a64_pmi *p);

/* ---- the machine (pmu_pmi.c) ------------------------------------------------------------------ */

/* a64_pmi_plan against PMCNTENSET_EL0 as it reads now; then the counters are left disabled, their
 * interrupts disabled, overflow bits cleared and PMEVTYPER written (the previous values kept). */
bool a64_pmi_setup(struct a64_pmi *p, const struct pmu_info *pi, const char *event, const char **why);
/* Preload (both counters) for `period`, PMCR_EL0 to the PMU's enable value (E, LC, LP as discovered: the width
 * the preload assumes), interrupt on overflow enabled, counting started. */
void a64_pmi_arm(struct a64_pmi *p, uint64_t period);
/* In the overflow handler, before the EOI: true when our counter's overflow bit is set; it is then
 * cleared (the interrupt request drops) and the counters preloaded for next_period. False when
 * the bit was clear (counted in not_ours) or not armed. */
bool a64_pmi_ack(struct a64_pmi *p, uint64_t next_period);
/* Counting and the interrupt off, the overflow bit cleared, PMEVTYPER and PMCR_EL0 as found. */
void a64_pmi_stop(struct a64_pmi *p);

#endif
