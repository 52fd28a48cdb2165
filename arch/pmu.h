/* The performance-monitoring unit, for code outside arch/: selects the architecture's
 * implementation (x86_64: arch/x86_64/pmu.h). An AArch64 port provides the same names over PMUv3. */
#ifndef ARCH_PMU_H
#define ARCH_PMU_H

#if defined(__x86_64__)
#include "arch/x86_64/pmu.h"
#elif defined(__aarch64__)
#include "arch/aarch64/pmu.h"
#else
#error "no PMU support for this architecture yet"
#endif

#endif
