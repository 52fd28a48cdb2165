/* The UEFI side of starting the other processors: before ExitBootServices, parse the MADT and
 * reserve what the APs need (their stacks here, in efi/smp_boot.c; what else the CPU needs, such
 * as x86's start-up page below 1 MiB, in efi/<cpu>/smp_boot.c); after it, with traps installed
 * and the cycle counter calibrated, start them (efi/<cpu>/smp.c) and emit `plat kind=smp`. */
#ifndef EFI_SMP_BOOT_H
#define EFI_SMP_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/fw/acpi.h"

/* Before ExitBootServices. enabled = false (option smp=0) reserves nothing. */
void smp_boot_reserve(const struct acpi_info *acpi, bool enabled);
/* After ExitBootServices, traps_init() and TSC calibration: start the APs, emit the record and a
 * summary line. Returns the CPUs online, BSP included. */
unsigned smp_boot_start(uint64_t counter_hz);

/* The CPU's steps, efi/<cpu>/smp_boot.c. Each returns NULL or why the other CPUs stay off.
 * parse: the MADT's processors (kept for the record even when none is started), *enabled how
 * many are enabled. reserve: what else the CPU needs for max_cpus CPUs (BSP included), after the
 * check that there are at least two; *stack_size: each AP's stack. */
const char *smp_boot_cpu_parse(const struct acpi_info *acpi, unsigned *enabled);
const char *smp_boot_cpu_reserve(const struct acpi_info *acpi, unsigned max_cpus, size_t *stack_size);
/* Start the APs on the stacks reserved (stack_size each); returns the CPUs online. */
unsigned smp_boot_cpu_start(uint8_t *stacks, size_t stack_size, unsigned max_cpus, uint64_t counter_hz);
/* No AP started: the record says why. */
void smp_boot_cpu_none(const char *reason);

#endif
