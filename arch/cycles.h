/* The cycle counter and its read methods (and cpu_relax, for loops that wait on it), for code
 * outside arch/: selects the architecture's implementation (x86_64: the TSC). AArch64 provides the
 * same names over the generic timer. */
#ifndef ARCH_CYCLES_H
#define ARCH_CYCLES_H

#if defined(__x86_64__)
#include "arch/x86_64/cycles.h"
#elif defined(__aarch64__)
#include "arch/aarch64/cycles.h"
#else
#error "no cycle counter for this architecture yet"
#endif

#endif
