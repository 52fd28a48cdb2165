/* The UEFI side of starting the other processors: before ExitBootServices, parse the MADT and
 * reserve what the APs need (the start-up page below 1 MiB, their stacks); after it, with traps
 * installed and the TSC calibrated, start them (efi/x86_64/smp.c) and emit `plat kind=smp`. */
#ifndef EFI_SMP_BOOT_H
#define EFI_SMP_BOOT_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/fw/acpi.h"

/* Before ExitBootServices. enabled = false (option smp=0) reserves nothing. */
void smp_boot_reserve(const struct acpi_info *acpi, bool enabled);
/* After ExitBootServices, traps_init() and TSC calibration: start the APs, emit the record and a
 * summary line. Returns the CPUs online, BSP included. */
unsigned smp_boot_start(uint64_t counter_hz);

#endif
