/* PSCI (Arm DEN0022), the firmware interface for power: SYSTEM_OFF, SYSTEM_RESET, and CPU_ON to
 * start the other cores (efi/aarch64/smp.c). The conduit —
 * hvc when we run at EL1 under a hypervisor-level PSCI (QEMU virt at EL1), smc for a secure
 * monitor — comes from the FADT's ARM_BOOT_ARCH flags (ACPI_ARM_PSCI_USE_HVC). */
#ifndef ARCH_AARCH64_PSCI_H
#define ARCH_AARCH64_PSCI_H

#include <stdbool.h>
#include <stdint.h>

#define PSCI_VERSION 0x84000000u
#define PSCI_SYSTEM_OFF 0x84000008u
#define PSCI_SYSTEM_RESET 0x84000009u
#define PSCI_CPU_ON_64 0xC4000003u       /* (target MPIDR, entry PA, context id) */
#define PSCI_AFFINITY_INFO_64 0xC4000004u /* (target MPIDR, lowest affinity level 0) */
#define PSCI_VERSION_MAJOR_SHIFT 16

/* Return codes (DEN0022 table 6), as the signed 32-bit value in w0. */
#define PSCI_SUCCESS 0
#define PSCI_NOT_SUPPORTED (-1)
#define PSCI_INVALID_PARAMETERS (-2)
#define PSCI_DENIED (-3)
#define PSCI_ALREADY_ON (-4)
#define PSCI_ON_PENDING (-5)
#define PSCI_INTERNAL_FAILURE (-6)
#define PSCI_INVALID_ADDRESS (-9)

/* One PSCI call with no arguments; returns x0. */
uint64_t psci_call(bool use_hvc, uint32_t function);
/* One PSCI call with three arguments (x1..x3); returns x0. */
uint64_t psci_call3(bool use_hvc, uint32_t function, uint64_t a1, uint64_t a2, uint64_t a3);
/* A return code's name ("success", "denied", "already_on", ...; "error" for one not listed). */
const char *psci_error_name(int32_t code);

#endif
