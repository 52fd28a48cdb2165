/* Counter-overflow sampling on x86 (the PMI): one general-purpose counter programmed to count an
 * event with its interrupt-on-overflow bit, preloaded with -period so it overflows after `period`
 * events, the overflow delivered through the local APIC's performance-counter LVT entry. The
 * handler acknowledges the overflow (Intel: IA32_PERF_GLOBAL_STATUS and its reset register,
 * architectural perfmon v2, v4+; AMD: the counter's sign bit, or PerfMonV2's global status and
 * clear MSRs), preloads the next randomised period and re-enables. Intel also masks the LVT entry
 * on every PMI: the caller unmasks it after pmu_pmi_ack (drivers/irqchip/x86_64/lapic_perf.h).
 * Every MSR access goes through the pmu_info's pmu_ops, so the unit tests run this against a
 * register model that implements the vendors' documented semantics.
 *
 * The counters are per logical CPU: each CPU that samples has its own struct pmu_pmi and calls
 * these on itself. Use: pmu_pmi_setup, then set pi->gp_reserved |= 1u << p.counter (counter sets
 * then stay off it and keep it enabled, pmu.h), lapic_perf_lvt_set(vector), pmu_pmi_arm. In the
 * handler: if (pmu_pmi_ack(p, next period)) record the sample; lapic_perf_lvt_set (the unmask);
 * lapic_eoi. At the end: pmu_pmi_stop, lapic_perf_lvt_mask, clear the gp_reserved bit. */
#ifndef ARCH_X86_64_PMU_PMI_H
#define ARCH_X86_64_PMU_PMI_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/pmu.h"

struct pmu_pmi {
	const struct pmu_info *pi;
	const struct pmu_event *ev;
	unsigned counter;       /* general-purpose counter index used */
	uint32_t evtsel_msr, ctr_msr;
	uint64_t evtsel;        /* with enable and INT set */
	uint64_t ctr_mask;      /* the counter's width */
	/* The largest period the counter can be preloaded with (larger ones are clamped to it, 0 is
	 * taken as 1): 2^31 - 1 on Intel without full-width writes (IA32_PMCx sign-extends bit 31),
	 * else 2^(width-1) - 1 (AMD's overflow test is the counter's top bit). */
	uint64_t max_period;
	bool armed;
	const char *fault;      /* why pmu_pmi_ack had to leave the counter stopped, else NULL */
	uint64_t overflows;     /* acknowledged overflows of our counter */
	/* Global status bits other than ours that pmu_pmi_ack found set (other counters' overflows;
	 * on Intel also the PEBS-buffer, CondChgd, ... indicators), one per bit, each cleared; 0
	 * where the PMU has no global status (AMD legacy/core-ext, Intel v1). */
	uint64_t foreign;
};

/* Pick a free general-purpose counter for `event` (a pmu_events name) and compute its encoding:
 * the highest-numbered one the event may use on this model (pmu_constraints.h) whose event
 * select is not enabled (counter sets fill from 0 up). Writes its event select (our value
 * without the enable bit, then 0) to see it is accepted. False with *why: no PMU, event unknown
 * or not on a GP counter, every counter it may use in use, the counter refused. */
bool pmu_pmi_setup(struct pmu_pmi *p, const struct pmu_info *pi, const char *event, const char **why);
/* Preload -period and enable (global control too where the PMU has one); a stale overflow bit
 * of our counter is cleared first. False with *why when an MSR write faulted (the counter is
 * then left disabled). */
bool pmu_pmi_arm(struct pmu_pmi *p, uint64_t period, const char **why);
/* In the PMI handler: true when our counter overflowed; its status is then cleared and the
 * counter preloaded with -next_period and running again. Other counters' overflow bits are
 * cleared and counted in `foreign`. False when it was not ours, or not armed; a refused write
 * leaves the counter disabled, armed false and `fault` saying why. */
bool pmu_pmi_ack(struct pmu_pmi *p, uint64_t next_period);
/* Disable the counter and clear its overflow status. */
void pmu_pmi_stop(struct pmu_pmi *p);

#endif
