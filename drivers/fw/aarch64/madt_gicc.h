/* The MADT's GIC CPU interface entries (GICC, type 0x0B; ACPI 6.5 section 5.2.12.14): on Arm the
 * processors are listed there, one per core, by MPIDR. madt_parse_gicc() parses the table as
 * madt_parse() does and then adds each usable GICC entry to madt_info.cpus[], so the processor
 * start-up code reads one list on both architectures. The CPU's id there (madt_cpu.apic_id) is
 * the MPIDR's affinity packed into 32 bits: Aff3 in bits 31:24, Aff2..Aff0 in 23:0 (the MPIDR
 * holds Aff3 in 39:32); madt_mpidr_unpack() gives back the MPIDR form PSCI takes. Pure parsing
 * over identity-mapped memory, as madt.c: every entry's length is checked before it is read. */
#ifndef DRIVERS_MADT_GICC_H
#define DRIVERS_MADT_GICC_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/fw/madt.h"

#define MADT_TYPE_GICC 0x0B
/* ACPI 6.0 made the entry 76 bytes (MPIDR at 68), 6.3 80, 6.5 82: 76 is all we read. */
#define MADT_LEN_GICC_MIN 76
#define MADT_GICC_OFF_UID 8
#define MADT_GICC_OFF_FLAGS 12
#define MADT_GICC_OFF_MPIDR 68
/* GICC flags (ACPI 6.5, table 5.37). */
#define MADT_GICC_ENABLED (1u << 0)
#define MADT_GICC_ONLINE_CAPABLE (1u << 3) /* ACPI 6.5: not enabled, may be brought online */

/* MPIDR_EL1 affinity fields: Aff0 7:0, Aff1 15:8, Aff2 23:16, Aff3 39:32. */
#define MPIDR_AFF012_MASK 0x00FFFFFFull
#define MPIDR_AFF3_SHIFT 32
#define MPIDR_AFF3_MASK 0xFFull
#define MPIDR_PACKED_AFF3_SHIFT 24

static inline uint32_t madt_mpidr_pack(uint64_t mpidr)
{
	return (uint32_t)(mpidr & MPIDR_AFF012_MASK) |
	       (uint32_t)((mpidr >> MPIDR_AFF3_SHIFT) & MPIDR_AFF3_MASK) << MPIDR_PACKED_AFF3_SHIFT;
}

static inline uint64_t madt_mpidr_unpack(uint32_t packed)
{
	return (packed & MPIDR_AFF012_MASK) |
	       (uint64_t)((packed >> MPIDR_PACKED_AFF3_SHIFT) & MPIDR_AFF3_MASK) << MPIDR_AFF3_SHIFT;
}

/* madt_parse(), then the GICC entries: enabled or online-capable ones go into cpus[] (flags as
 * MADT_LAPIC_ENABLED / MADT_LAPIC_ONLINE_CAPABLE, counted like local APIC entries: num_enabled,
 * num_online_capable, num_unusable, num_duplicates (an affinity listed twice), num_dropped,
 * num_malformed (shorter than MADT_LEN_GICC_MIN)). False when madt_parse() is. */
bool madt_parse_gicc(uint64_t addr, struct madt_info *info);

#endif
