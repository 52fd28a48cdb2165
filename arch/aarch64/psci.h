/* PSCI (Arm DEN0022), the firmware interface for power: SYSTEM_OFF and SYSTEM_RESET so far. The conduit —
 * hvc when we run at EL1 under a hypervisor-level PSCI (QEMU virt at EL1), smc for a secure
 * monitor — comes from the FADT's ARM_BOOT_ARCH flags (ACPI_ARM_PSCI_USE_HVC). */
#ifndef ARCH_AARCH64_PSCI_H
#define ARCH_AARCH64_PSCI_H

#include <stdbool.h>
#include <stdint.h>

#define PSCI_VERSION 0x84000000u
#define PSCI_SYSTEM_OFF 0x84000008u
#define PSCI_SYSTEM_RESET 0x84000009u

/* One PSCI call with no arguments; returns x0. */
uint64_t psci_call(bool use_hvc, uint32_t function);

#endif
