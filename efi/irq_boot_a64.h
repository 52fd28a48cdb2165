/* The UEFI side of the AArch64 interrupt sources: after ExitBootServices, with our vectors
 * installed and interrupts masked, bring up the GICv3 and the generic timers
 * (drivers/irq_platform_a64.c), take what the firmware left pending, and emit `plat kind=gic`. */
#ifndef EFI_IRQ_BOOT_A64_H
#define EFI_IRQ_BOOT_A64_H

#include <stdint.h>

#include "drivers/irq_platform.h"

/* madt: the MADT's address from the ACPI tables (0: none). Returns the platform (ready or with
 * its reason), or NULL when our vectors are not installed (then nothing is touched). */
struct irq_platform *irq_boot_a64_setup(uint64_t madt, uint64_t tsc_hz);

#endif
