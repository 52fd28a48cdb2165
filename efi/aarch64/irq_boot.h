/* The UEFI side of the AArch64 interrupt sources: after ExitBootServices, with our vectors
 * installed and interrupts masked, bring up the GICv3 and the generic timers
 * (efi/aarch64/irq_platform.c), take what the firmware left pending, and emit `plat kind=gic`. */
#ifndef EFI_IRQ_BOOT_A64_H
#define EFI_IRQ_BOOT_A64_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/core/irq_platform.h"

/* madt: the MADT's address from the ACPI tables (0: none); qemu_virt: the board is identified
 * as QEMU virt (only then are its fixed GIC addresses used without a MADT). Returns the platform (ready or with
 * its reason), or NULL when our vectors are not installed (then nothing is touched). */
struct irq_platform *irq_boot_a64_setup(uint64_t madt, bool qemu_virt, uint64_t counter_hz);

#endif
