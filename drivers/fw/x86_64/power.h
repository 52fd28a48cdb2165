/* Leaving the machine: QEMU's isa-debug-exit (status readable by the test), ACPI S5 soft-off from
 * the FADT, and reset. Each returns if it did not take effect, so callers can fall through. */
#ifndef DRIVERS_POWER_H
#define DRIVERS_POWER_H

#include <stdint.h>

#include "drivers/fw/acpi.h"

/* QEMU exits with status (code << 1) | 1 when the device is present; a no-op elsewhere. */
void power_debug_exit(uint16_t port, uint32_t code);
void power_acpi_s5(const struct acpi_info *acpi);
void power_reset(const struct acpi_info *acpi);

#endif
