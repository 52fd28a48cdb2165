/* Interrupt entry, dispatch and masking, for code outside arch/: selects the architecture's
 * implementation (x86_64: arch/x86_64/irq.h; AArch64: masking only so far). */
#ifndef ARCH_IRQ_H
#define ARCH_IRQ_H

#if defined(__x86_64__)
#include "arch/x86_64/irq.h"
#elif defined(__aarch64__)
#include "arch/aarch64/irq.h"
#else
#error "no interrupt support for this architecture yet"
#endif

#endif
