/* Instructions retired around a piece of code (pmu_check's counter), for code outside arch/:
 * selects the architecture's interface (x86_64: arch/x86_64/insn_count.h). */
#ifndef ARCH_INSN_COUNT_H
#define ARCH_INSN_COUNT_H

#if defined(__x86_64__)
#include "arch/x86_64/insn_count.h"
#elif defined(__aarch64__)
#include "arch/aarch64/insn_count.h"
#else
#error "no instruction counter for this architecture yet"
#endif

#endif
