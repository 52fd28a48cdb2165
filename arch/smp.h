/* Other processors (bring-up, work dispatch with a common start), for code outside arch/: selects
 * the architecture's implementation. */
#ifndef ARCH_SMP_H
#define ARCH_SMP_H

#if defined(__x86_64__)
#include "arch/x86_64/smp.h"
#elif defined(__aarch64__)
#include "arch/aarch64/smp.h"
#else
#error "no SMP support for this architecture yet"
#endif

#endif
