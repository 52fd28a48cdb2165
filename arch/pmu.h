/* The performance-monitoring unit, for code outside arch/: counter sets of named events
 * (bench/core/counters.c), declared here once and implemented per CPU. The CPU's part,
 * <cpu/pmu.h> (arch/<cpu>/include/cpu/pmu.h), included first, gives what differs: struct pmu_info
 * (what discovery found), struct pmu_counter (one programmed counter, then arch/pmu_sets.h's group and plan),
 * pmu_counter_vendor_name (inline), discovery itself (its inputs differ: CPUID words and register
 * operations on x86_64, nothing on AArch64, so the CPU's facts unit calls it) and the CPU-private
 * extras (x86_64: struct pmu_ops and the free-running MSR counters; AArch64: the pure PMUv3
 * encodings a64_pmu_*).
 *
 * Faults are results, not crashes: a refused write or a faulting read (a hypervisor may intercept
 * the PMU) makes the counters it concerns refused events with the reason, never counters with
 * made-up deltas. */
#ifndef ARCH_PMU_H
#define ARCH_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include <cpu/pmu.h>

/* Allocate `names` into passes. Names this CPU cannot count go to refused[] with a reason
 * (x86_64: free-running MSR events, aperf, mperf, energy_*, ride in pass 0; AArch64: `cycles` on
 * the cycle counter, the others on event counters PMCEID says exist). Returns the passes used. */
unsigned pmu_plan_events(const struct pmu_info *pi, const char *const *names, unsigned n,
			 struct pmu_plan *plan);
/* True when this CPU's event tables name the event (a core PMU must be present to count it). */
bool pmu_has_event(const struct pmu_info *pi, const char *name);

/* Program a group stopped and zeroed; start/stop counting; read every counter (raw values).
 * pmu_program and pmu_start add to f (may be NULL) the counters whose register writes were
 * refused and return that mask; pmu_read returns the counters whose read faulted (their out[]
 * is 0: never use it). AArch64 never refuses nor faults here (the registers answered at
 * discovery). */
uint32_t pmu_program(const struct pmu_info *pi, const struct pmu_group *g, struct pmu_faults *f);
uint32_t pmu_start(const struct pmu_info *pi, const struct pmu_group *g, struct pmu_faults *f);
/* Returns the group's overflow bits (x86_64: the global status, 0 without one; AArch64:
 * PMOVSCLR_EL0), and clears them. */
uint64_t pmu_stop(const struct pmu_info *pi, const struct pmu_group *g);
uint32_t pmu_read(const struct pmu_info *pi, const struct pmu_group *g, uint64_t *out);
/* The reason a read of this counter faulted. */
const char *pmu_read_fault_why(const struct pmu_counter *c);
/* Anything countable here (x86_64: the core PMU, or one of the free-running MSR counters). */
bool pmu_usable(const struct pmu_info *pi);
/* Repeat discovery's per-CPU settings on the calling CPU (x86_64: DE_CFG lfence bit,
 * FREEZE_WHILE_SMM; AArch64: PMCR_EL0, the boot CPU's enable value): application processors call
 * it before they count. */
void pmu_cpu_prepare(const struct pmu_info *pi);
/* Hybrid parts (x86_64 Intel): the core type the description was discovered on ("p", "e",
 * "unknown"), and that of the calling CPU; NULL both where the description has none (not a hybrid
 * part, AArch64). A counter set run on another core type than its description's is refused. */
const char *pmu_core_type(const struct pmu_info *pi);
const char *pmu_cpu_core_type(const struct pmu_info *pi);
/* Hybrid parts: discover the calling CPU's own PMU into pi (its core type's counters and event
 * table), with the boot description's register operations (x86_64; AArch64: a copy of boot). A
 * core of another type than the boot processor's counts with it. */
struct cpu_info;
void pmu_discover_this_cpu(struct pmu_info *pi, const struct cpu_info *ci, const struct pmu_info *boot);
/* Disable the group's counters (leave the PMU as found: nothing counting). */
void pmu_release(const struct pmu_info *pi, const struct pmu_group *g);

#endif
