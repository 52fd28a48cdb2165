/* The PMU of the AArch64 build (arch/pmu.h): PMUv3, programmed directly at EL1. It offers the
 * counter-set interface bench/core/counters.c programs against (declared in arch/pmu.h; this
 * is the AArch64 part, included there): discovery (ID_AA64DFR0_EL1.PMUVer, PMCR_EL0.N event counters, PMCEID0/1_EL0
 * common events, the cycle counter PMCCNTR_EL0), allocation of named events into passes
 * (`cycles` on the cycle counter, the others on event counters, only events PMCEID says exist),
 * programming for EL1 only, start/stop through PMCNTENSET/CLR_EL0, isb-ordered reads and
 * width-masked deltas.
 *
 * The encodings (PMEVTYPER filter and event values, PMCR, the enable masks), the event table and
 * the planning are pure functions (pmu_encode.c, pmu_plan.c: the host unit tests run them against
 * a model of the architecture's rules); only pmu.c touches the registers.
 *
 * Faults: a hypervisor may trap the PMU registers (MDCR_EL2.TPM / TPMCR) and inject an undefined
 * instruction. Discovery makes every first access under a recovery point of our vectors: a trap
 * becomes present=false with the reason (and the `fault` record the vectors emit), never a hang.
 * Once discovery has counted, later accesses are not guarded (a probe's own recovery point
 * catches the impossible). At EL2 (no vectors of ours) the PMU is left alone. */
#ifndef ARCH_AARCH64_PMU_H
#define ARCH_AARCH64_PMU_H

#include <stdbool.h>
#include <stdint.h>

/* struct pmu_info's CPU tail (arch/pmu_info.h, included right after: this part is complete on its
 * own, as the host's unit tests include it by path; they build the AArch64 units on x86_64). */
#define PMU_INFO_CPU_FIELDS \
	unsigned pmuver;            /* ID_AA64DFR0_EL1.PMUVer */ \
	unsigned num_counters;      /* PMCR_EL0.N: event counters usable at EL1 */ \
	unsigned counter_width;     /* 32, or 64 with PMUv3p5's PMCR_EL0.LP */ \
	bool cycle_counter;         /* PMCCNTR_EL0 counts (verified at discovery) */ \
	unsigned cycle_width;       /* 64 with PMCR_EL0.LC, else 32 */ \
	bool el2, el3;              /* ID_AA64PFR0_EL1: EL2 / EL3 implemented (the filter depends on it) */ \
	uint64_t pmceid0, pmceid1;  /* common events implemented */ \
	uint64_t pmcr_found;        /* PMCR_EL0 as the firmware left it */ \
	uint32_t pmcr;              /* what we write to enable: E | LC | (LP) */ \
	uint32_t filter;            /* PMEVTYPER / PMCCFILTR filter bits: count EL1 only */ \
	uint32_t evt_mask;          /* evtCount width: 10 bits (PMUv3) or 16 (PMUv3p1+) */ \
	uint32_t counters_reserved; /* event counters kept from counter sets (a sampler's), bit n */ \
	unsigned fault_vector;      /* discovery: the ESR.EC + 1 of a trapped access, 0 = none */

#include "arch/pmu_info.h"

struct pmu_counter {
	const char *name;     /* the counter-set vocabulary (bench/core/options.c) */
	const char *arm_name; /* the Arm ARM's event name, or "PMCCNTR_EL0" */
	unsigned idx;         /* event counter n, or A64_PMU_CYCLE_IDX (31) for the cycle counter */
	uint16_t event;       /* common event number (CPU_CYCLES for the cycle counter) */
	uint32_t typer;       /* PMEVTYPER<n>_EL0 / PMCCFILTR_EL0 value */
	uint64_t mask;        /* counter width */
};

#include "arch/pmu_sets.h" /* struct pmu_group, pmu_plan, pmu_faults over this pmu_counter */

/* ---- pure encodings (pmu_encode.c) ----------------------------------------------------------- */

/* The filter bits that count EL1 (Non-secure, where EL3 exists) and nothing else: P = 0 and
 * NSK = P (EL1 counted), U = 1 and NSU = 0 != U (EL0 not counted, either state), NSH = 0 (EL2 not
 * counted), M = 1 != P (EL3 not counted; M and NSK/NSU are RES0 without EL3, so written 0). */
uint32_t a64_pmu_filter_el1(bool el3);
/* PMEVTYPER<n>_EL0 = filter | event within evtCount's width (evt_mask). */
uint32_t a64_pmu_evtyper(uint32_t filter, unsigned event, uint32_t evt_mask);
/* evtCount's width for a PMUVer (16 bits from PMUv3p1). */
uint32_t a64_pmu_evt_mask(unsigned pmuver);
/* The PMCR_EL0 value that enables counting: E | LC, and LP from PMUv3p5 (64-bit counters). */
uint32_t a64_pmu_pmcr_enable(unsigned pmuver);
/* PMCR_EL0.N. */
unsigned a64_pmu_pmcr_n(uint64_t pmcr);
/* PMCNTENSET/CLR_EL0 (and PMOVSCLR, PMINTENCLR) bits of a group's counters. */
uint32_t a64_pmu_group_mask(const struct pmu_group *g);
/* True when PMCEID0/1 mark the common event implemented (0x00..0x3F, 0x4000..0x403F). */
bool a64_pmu_event_implemented(uint64_t pmceid0, uint64_t pmceid1, unsigned event);
/* Common events implemented (bits set in both registers). */
unsigned a64_pmu_events_implemented(uint64_t pmceid0, uint64_t pmceid1);
/* "v3", "v3p1", …, "impdef", "none", "reserved". */
const char *a64_pmu_version_name(unsigned pmuver);
uint64_t a64_pmu_width_mask(unsigned width);

/* ---- planning (pmu_plan.c, pure) -------------------------------------------------------------- */

/* Allocate `names` into passes. Names this PMU cannot count go to refused[] with a reason. */
unsigned a64_pmu_plan_events(const struct pmu_info *pi, const char *const *names, unsigned n,
			     struct pmu_plan *plan);
/* The event a vocabulary name counts here (its Arm name in *arm_name), or -1 with *why. */
int a64_pmu_event_for(const struct pmu_info *pi, const char *name, const char **arm_name, const char **why);
bool a64_pmu_has_event(const struct pmu_info *pi, const char *name);
/* Which pair branch_misses / branches counts here: "retired" (BR_MIS_PRED_RETIRED over
 * BR_RETIRED, one population), "mixed" (PMCEID lacks 0x22: BR_MIS_PRED, speculatively executed,
 * over BR_RETIRED, architecturally executed), "none" (one of the two is not offered). */
const char *a64_pmu_branch_ratio(const struct pmu_info *pi);

/* ---- the machine (pmu.c) ---------------------------------------------------------------------- */

/* Discover the PMU of the calling CPU (after traps_init: first accesses are fault-guarded) and
 * check that the cycle counter counts. Leaves nothing counting. */
void pmu_discover(struct pmu_info *pi);


/* The cycle counter as a read method of the timer probe (cycles.c): enable it (false when the PMU
 * is not usable), read it with or without isb, put back what it was. */
bool a64_pmu_cycles_on(void);
void a64_pmu_cycles_restore(void);

/* The architecture's name of the event a counter counts (its Arm ARM name, "L1D_CACHE_REFILL",
 * or "PMCCNTR_EL0"): records' `vendor_event`, as x86's vendor event names. */
static inline const char *pmu_counter_vendor_name(const struct pmu_counter *c)
{
	return c->arm_name;
}

#endif
