/* The UEFI side of option apic_mode: after ExitBootServices and traps_init(), before the APs are
 * started and the interrupt platform is set up, put the BSP's local APIC into the requested mode
 * (drivers/irqchip/x86_64/lapic_mode.c) and say in a `msg` what was done or why not. The APs follow the BSP's mode
 * in their own start-up path (efi/x86_64/smp.c); the `plat kind=apic` and `smp` records carry
 * the mode and how it was reached (lapic_mode_bsp()). */
#ifndef EFI_APIC_MODE_BOOT_H
#define EFI_APIC_MODE_BOOT_H

#include <stdbool.h>

#include "bench/core/options.h"

void apic_mode_boot(enum apic_mode mode, bool cpu_x2apic);

#endif
