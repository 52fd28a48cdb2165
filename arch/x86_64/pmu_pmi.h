/* Counter-overflow sampling on x86 (the PMI): one general-purpose counter programmed to count an
 * event with its interrupt-on-overflow bit, preloaded with -period so it overflows after `period`
 * events, the overflow delivered through the local APIC's performance-counter LVT entry. The
 * handler acknowledges the overflow (Intel: IA32_PERF_GLOBAL_STATUS and its reset register,
 * architectural perfmon v2, v4+; AMD: the counter's sign bit, or PerfMonV2's global status and
 * clear MSRs), preloads the next randomised period and re-enables. Intel also masks the LVT entry
 * on every PMI: the caller unmasks it after pmu_pmi_ack (drivers/lapic_timer.h).
 * Every MSR access goes through the pmu_info's pmu_ops, so the unit tests run this against a
 * register model that implements the vendors' documented semantics. */
#ifndef ARCH_X86_64_PMU_PMI_H
#define ARCH_X86_64_PMU_PMI_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/pmu.h"

struct pmu_pmi {
	const struct pmu_info *pi;
	const struct pmu_event *ev;
	unsigned counter;       /* general-purpose counter index used */
	uint32_t evtsel_msr, ctr_msr;
	uint64_t evtsel;        /* with enable and INT set */
	uint64_t ctr_mask;      /* the counter's width */
	bool armed;
	uint64_t overflows;     /* acknowledged overflows of our counter */
	uint64_t foreign;       /* PMIs without our counter's overflow bit (counted, acknowledged) */
};

/* Pick a free general-purpose counter for `event` (a pmu_events name) and compute its encoding.
 * False with *why: no PMU, event unknown or not on a GP counter, the counter refused. */
bool pmu_pmi_setup(struct pmu_pmi *p, const struct pmu_info *pi, const char *event, const char **why);
/* Preload -period and enable (global control too where the PMU has one). False with *why when an
 * MSR write faulted. */
bool pmu_pmi_arm(struct pmu_pmi *p, uint64_t period, const char **why);
/* In the PMI handler: true when our counter overflowed; its status is then cleared and the
 * counter preloaded with -next_period and running again. */
bool pmu_pmi_ack(struct pmu_pmi *p, uint64_t next_period);
/* Disable the counter and clear its overflow status. */
void pmu_pmi_stop(struct pmu_pmi *p);

#endif
