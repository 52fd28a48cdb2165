/* A register model of an x86 PMU for the unit tests: the MSRs a given Intel (v1..v5) or AMD
 * (legacy, core-extension, PerfMonV2) PMU has, with their effect — counters advance while enabled
 * (event select enable bit and, where there is one, the global enable), wrap at their width and
 * set the overflow status — and a log of every MSR write and rdpmc in order. An MSR the modelled
 * CPU does not have faults (returns -1), as on real hardware; `dead` models QEMU TCG: every MSR
 * accepts writes and reads 0, nothing counts. */
#ifndef TESTS_UNIT_PMU_MODEL_H
#define TESTS_UNIT_PMU_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/pmu.h"

#define MODEL_MAX_MSRS 96
#define MODEL_MAX_LOG 256

struct model_write {
	uint32_t msr;
	uint64_t value;
};

struct pmu_model {
	bool intel;
	enum pmu_kind kind;
	unsigned version, num_gp, gp_width, num_fixed, fixed_width;
	bool full_width, dead;
	uint64_t step; /* events a running counter gains per access */
	unsigned n;
	uint32_t msr[MODEL_MAX_MSRS];
	uint64_t val[MODEL_MAX_MSRS];
	unsigned nwrites;
	struct model_write writes[MODEL_MAX_LOG];
	unsigned nrdpmc;
	uint32_t rdpmc_idx[MODEL_MAX_LOG];
	struct pmu_ops ops;
};

/* Intel: version, GP counters and width, fixed counters and width, full-width writes. */
void model_intel(struct pmu_model *m, unsigned version, unsigned num_gp, unsigned gp_width,
		 unsigned num_fixed, unsigned fixed_width, bool full_width);
/* AMD: kind PMU_AMD_LEGACY, PMU_AMD_CORE_EXT or PMU_AMD_V2 (num_gp for V2). */
void model_amd(struct pmu_model *m, enum pmu_kind kind, unsigned num_gp);
void model_dead(struct pmu_model *m);
/* Add an MSR with a value (APERF, RAPL, ...). */
void model_add(struct pmu_model *m, uint32_t msr, uint64_t value);
bool model_get(const struct pmu_model *m, uint32_t msr, uint64_t *value);
void model_set(struct pmu_model *m, uint32_t msr, uint64_t value);
void model_clear_log(struct pmu_model *m);

#endif
