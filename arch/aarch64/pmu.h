/* The PMU of the AArch64 build (arch/pmu.h): not ported yet. It offers the counter-set interface
 * bench/counters.c programs against (the same names and types as arch/x86_64/pmu.h), with no PMU
 * behind it: pmu_usable() is false, so every counter request of the runner becomes a `skip` with
 * pmu_info.reason and nothing is ever counted. Left: PMUv3 discovery (PMCR_EL0.N,
 * ID_AA64DFR0_EL1.PMUVer), event tables, programming (PMEVTYPER/PMCCFILTR, PMCNTENSET),
 * PMCCNTR_EL0 as the cycle counter. */
#ifndef ARCH_AARCH64_PMU_H
#define ARCH_AARCH64_PMU_H

#include <stdbool.h>
#include <stdint.h>

#define PMU_MAX_EVENTS 16 /* events in one counter set */
#define PMU_MAX_PASSES 8  /* repetitions of a measurement when the events outnumber the counters */

struct pmu_info {
	bool present;
	const char *reason; /* why not present */
};

struct pmu_faults {
	uint32_t mask;
	const char *why[PMU_MAX_EVENTS];
};

struct pmu_counter {
	const char *name;
	uint64_t mask; /* counter width */
};

struct pmu_group {
	unsigned n;
	struct pmu_counter c[PMU_MAX_EVENTS];
};

struct pmu_plan {
	unsigned npasses;
	struct pmu_group pass[PMU_MAX_PASSES];
	unsigned nrefused;
	const char *refused[PMU_MAX_EVENTS];
	const char *refused_why[PMU_MAX_EVENTS];
};

/* As arch/x86_64/pmu.h; here with no PMU behind them (pmu_none.c). */
unsigned pmu_plan_events(const struct pmu_info *pi, const char *const *names, unsigned n,
			 struct pmu_plan *plan);
uint32_t pmu_program(const struct pmu_info *pi, const struct pmu_group *g, struct pmu_faults *f);
uint32_t pmu_start(const struct pmu_info *pi, const struct pmu_group *g, struct pmu_faults *f);
uint64_t pmu_stop(const struct pmu_info *pi, const struct pmu_group *g);
uint32_t pmu_read(const struct pmu_info *pi, const struct pmu_group *g, uint64_t *out);
const char *pmu_read_fault_why(const struct pmu_counter *c);
bool pmu_usable(const struct pmu_info *pi);
void pmu_cpu_prepare(const struct pmu_info *pi);
void pmu_release(const struct pmu_info *pi, const struct pmu_group *g);

static inline uint64_t pmu_delta(uint64_t start, uint64_t end, uint64_t mask)
{
	return (end - start) & mask;
}

#endif
