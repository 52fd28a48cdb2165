/* The cycle counter and its read methods, for code outside arch/: selects the architecture's
 * implementation (x86_64: the TSC). AArch64 will provide the same names over CNTVCT/PMCCNTR. */
#ifndef ARCH_CYCLES_H
#define ARCH_CYCLES_H

#if defined(__x86_64__)
#include "arch/x86_64/tsc.h"
#else
#error "no cycle counter for this architecture yet"
#endif

#endif
