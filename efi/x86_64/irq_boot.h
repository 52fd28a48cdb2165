/* The UEFI side of the interrupt sources: after ExitBootServices, with traps installed and the TSC
 * calibrated, mask every firmware interrupt source, calibrate the APIC timer, find the I/O APIC
 * and an HPET comparator route (efi/x86_64/irq_platform.c), install the EOI callback, and emit
 * `plat kind=apic`, `ioapic`, `pic` and `hpet_irq`. */
#ifndef EFI_IRQ_BOOT_H
#define EFI_IRQ_BOOT_H

#include <stdint.h>

#include "arch/cpu_info.h"
#include "drivers/timer/hpet.h"
#include "bench/core/irq_platform.h"

/* hpet: the working HPET or NULL. The MADT is the one smp_boot_reserve parsed (efi/x86_64/madt_boot.h).
 * Returns the platform (ready or with its reason). */
struct irq_platform *irq_boot_setup(struct hpet *hpet, const struct cpu_info *cpu, uint64_t counter_hz);

#endif
