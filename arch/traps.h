/* Exception handling and recovery points, for code outside arch/ (selects the architecture). */
#ifndef ARCH_TRAPS_H
#define ARCH_TRAPS_H

#if defined(__x86_64__)
#include "arch/x86_64/traps.h"
#elif defined(__aarch64__)
#include "arch/aarch64/traps.h"
#else
#error "no trap support for this architecture yet"
#endif

#endif
