/* Counter constraints of Intel core PMUs: which general-purpose counters an event may be
 * programmed on. Some events count correctly on a few counters only (on Skylake the retired-load
 * events run on counters 0-3 alone, which matters with Hyper-Threading off, when 8 counters
 * exist); programmed on another counter they count nothing useful. Kept the way Linux keeps them
 * (arch/x86/events/intel/core.c, intel_<uarch>_event_constraints, chosen by family and model in
 * intel_pmu_init): per micro-architecture, rules matching the event select alone, the event
 * select and unit mask, or a range of event selects, the first match deciding; an event no
 * rule matches may use every counter. pmu_plan.c assigns counters within these masks, pmu_pmi.c
 * picks its sampling counter within them. */
#ifndef ARCH_X86_64_PMU_CONSTRAINTS_H
#define ARCH_X86_64_PMU_CONSTRAINTS_H

#include <stdint.h>

#include "arch/x86_64/pmu_events.h"

enum pmu_constraint_match {
	PMU_CONSTRAINT_EVENT,       /* the event select matches `first` (Linux INTEL_EVENT_CONSTRAINT) */
	PMU_CONSTRAINT_EVENT_UMASK, /* event select `first` and unit mask `umask` (INTEL_UEVENT_CONSTRAINT) */
	PMU_CONSTRAINT_EVENT_RANGE, /* first <= event select <= last (INTEL_EVENT_CONSTRAINT_RANGE) */
};

struct pmu_constraint {
	uint8_t match;      /* enum pmu_constraint_match */
	uint8_t first, last;
	uint8_t umask;
	uint32_t counters;  /* bit i: general-purpose counter i may count the event */
};

struct pmu_constraint_table {
	const char *name;   /* the Linux table it follows: "intel_skl", "intel_icl", "intel_glc" */
	const struct pmu_constraint *rules;
	unsigned n;
};

/* The table for this CPU (NULL: no counter is restricted, or none is known here). */
const struct pmu_constraint_table *pmu_constraint_table_for(bool intel, unsigned family, unsigned model);
/* The counters (bit i = counter i) `ev` may use under `t`: the first matching rule's, or all. */
uint32_t pmu_constraint_counters(const struct pmu_constraint_table *t, const struct pmu_event *ev);

#endif
