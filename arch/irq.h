/* Interrupt entry, dispatch and masking, for code outside arch/: selects the architecture's
 * implementation (x86_64: arch/x86_64/irq.h). */
#ifndef ARCH_IRQ_H
#define ARCH_IRQ_H

#if defined(__x86_64__)
#include "arch/x86_64/irq.h"
#else
#error "no interrupt support for this architecture yet"
#endif

#endif
