/* The CPU-neutral shapes of a counter set (arch/pmu.h): a group of counters programmed together,
 * a plan of passes when the events outnumber the counters, and the counters that failed. Each
 * CPU's part (arch/<cpu>/include/cpu/pmu.h) defines its struct pmu_counter and then includes this file; it
 * selects nothing, so a host unit test can include one CPU's part on another CPU. */
#ifndef ARCH_PMU_SETS_H
#define ARCH_PMU_SETS_H

#include <stdint.h>

#define PMU_MAX_EVENTS 16 /* events in one counter set */
#define PMU_MAX_PASSES 8  /* repetitions of a measurement when the events outnumber the counters */

/* Counters of a group (bit i = g->c[i]) whose programming or reading failed, with the reason. */
struct pmu_faults {
	uint32_t mask;
	const char *why[PMU_MAX_EVENTS];
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

/* end - start within the counter width: one wrap between the reads is undone. */
static inline uint64_t pmu_delta(uint64_t start, uint64_t end, uint64_t mask)
{
	return (end - start) & mask;
}

#endif
