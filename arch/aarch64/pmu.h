/* The PMU of the AArch64 build (arch/pmu.h): not ported yet. struct pmu_info is what bench/probe.h
 * hands to probes; here it only says why there is no PMU. Left: PMUv3 discovery (PMCR_EL0.N,
 * ID_AA64DFR0_EL1.PMUVer), programming, PMCCNTR_EL0 as the cycle counter. */
#ifndef ARCH_AARCH64_PMU_H
#define ARCH_AARCH64_PMU_H

#include <stdbool.h>

struct pmu_info {
	bool present;
	const char *reason; /* why not present */
};

#endif
