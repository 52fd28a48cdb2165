/* plat kind=pmu of the AArch64 build: PMUv3 discovery (arch/aarch64/include/cpu/pmu.h) and its record. */
#ifndef BENCH_PLATFORM_A64PMU_H
#define BENCH_PLATFORM_A64PMU_H

#include "arch/pmu.h"

/* Discover the boot CPU's PMU into *pi (after traps_init) and emit plat kind=pmu. */
void platform_a64pmu_emit(struct pmu_info *pi);

#endif
