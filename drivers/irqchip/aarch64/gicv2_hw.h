/* A GICv2's acknowledge and EOI for the exception dispatcher (arch/aarch64/include/cpu/irq.h struct
 * a64_irq_cpuif; AArch64 build only): the memory-mapped GICC_IAR / GICC_EOIR at the CPU
 * interface's one address, which every core reaches its own banked interface through. */
#ifndef DRIVERS_GICV2_HW_H
#define DRIVERS_GICV2_HW_H

#include <stdint.h>

#include "arch/aarch64/include/cpu/irq.h"

/* The CPU interface's base (set once, before the dispatcher is given gicv2_hw_cpuif). */
void gicv2_hw_cpuif_base(uint64_t gicc);
extern const struct a64_irq_cpuif gicv2_hw_cpuif;

#endif
