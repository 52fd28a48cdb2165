/* ACPI table discovery: RSDP -> XSDT/RSDT -> the tables baremetric uses (FADT for the PM timer and
 * S5 power-off, HPET, SPCR for the serial port, MADT for later), plus \_S5 from the DSDT's AML.
 * Pure parsing over identity-mapped memory: every length is checked and every checksum verified
 * before a table is believed, so a broken table is skipped rather than followed. */
#ifndef DRIVERS_ACPI_H
#define DRIVERS_ACPI_H

#include <stdbool.h>
#include <stdint.h>

#define ACPI_MAX_TABLES 48

/* Generic Address Structure address spaces */
#define ACPI_GAS_MEMORY 0
#define ACPI_GAS_IO 1

/* FADT ARM_BOOT_ARCH flags (ACPI 6.x table 5.10) */
#define ACPI_ARM_PSCI_COMPLIANT (1u << 0)
#define ACPI_ARM_PSCI_USE_HVC (1u << 1)

#define ACPI_MAX_MCFG_SEGMENTS 16

struct acpi_mcfg_seg {
	uint64_t base; /* ECAM address of bus 0 of the segment (not of bus_start) */
	uint16_t segment;
	uint8_t bus_start, bus_end;
};

struct acpi_info {
	bool present;
	uint64_t rsdp;
	unsigned revision;
	unsigned num_tables;
	char signatures[ACPI_MAX_TABLES][5];
	unsigned bad_checksums; /* tables skipped because their length or checksum failed */
	char refused_sig[5];     /* the first table skipped ("" when none; "?" when unreadable) */
	const char *refused_why; /* why it was skipped (NULL when none) */
	const char *why;         /* acpi_parse() false: why no table is believed */

	/* FADT */
	bool fadt_present;
	uint16_t pm_timer_port; /* 0 = none */
	bool pm_timer_32bit;
	uint16_t pm1a_cnt, pm1b_cnt;
	bool s5_found;
	uint8_t s5_typ_a, s5_typ_b;
	uint16_t reset_port; /* FADT RESET_REG when it is an I/O port */
	uint8_t reset_value;
	bool arm_boot_valid;     /* the FADT is long enough to hold ARM_BOOT_ARCH (ACPI 5.1+) */
	uint16_t arm_boot_flags; /* ARM_BOOT_ARCH: ACPI_ARM_PSCI_COMPLIANT, ACPI_ARM_PSCI_USE_HVC */

	/* HPET */
	bool hpet_present;
	uint64_t hpet_base;

	/* SPCR */
	bool spcr_present;
	uint8_t spcr_space;     /* ACPI_GAS_* */
	uint8_t spcr_access;    /* GAS access size: 1 byte, 3 dword */
	uint8_t spcr_bit_width; /* register width in bits */
	uint64_t spcr_base;
	uint32_t spcr_baud;     /* 0 = as configured; the precise rate when revision 4+ gives one */
	uint32_t spcr_clock_hz; /* the UART's input clock (revision 3+); 0 = not given */
	uint8_t spcr_interface; /* SPCR interface type as given (0 16550, 3 Arm PL011, 0x0E SBSA generic) */
	bool spcr_pl011;        /* an Arm PL011 / SBSA generic UART in MMIO at spcr_base (spcr_present
				 * stays for the 16550 family the x86 driver speaks) */

	/* MADT */
	uint64_t madt;

	/* DMA remapping tables (drivers/fw/iommu.h parses them): 0 when absent */
	uint64_t dmar, ivrs, iort;

	/* MCFG: the PCI Express configuration space (ECAM) of segment 0, for a device the firmware
	 * must reach after boot services (the boot stick's USB controller) */
	bool mcfg_present;
	uint64_t mcfg_base;      /* ECAM address of bus 0 of segment 0 (PCI Firmware Spec 3.0, 4.1.2) */
	uint8_t mcfg_bus_start, mcfg_bus_end;

	/* Every MCFG allocation (PCI Firmware Specification 3.0, table 4-3): one per segment group
	 * and bus range; those past ACPI_MAX_MCFG_SEGMENTS are counted in mcfg_dropped. */
	unsigned mcfg_segments;
	unsigned mcfg_dropped;
	struct acpi_mcfg_seg mcfg[ACPI_MAX_MCFG_SEGMENTS];

	/* OEM ID and OEM table ID of the FADT, else the MADT (who built the tables; raw bytes) */
	bool oem_found;
	uint8_t oem_id[6], oem_table_id[8];
};

/* Parse everything reachable from the RSDP at `rsdp` (an identity-mapped address). */
bool acpi_parse(uint64_t rsdp, struct acpi_info *info);

/* Find \_S5's SLP_TYP values in AML (exposed for unit tests). */
bool acpi_find_s5(const uint8_t *aml, uint32_t len, uint8_t *typ_a, uint8_t *typ_b);

/* The ECAM (memory-mapped configuration) address of segment:bus:dev.fn from the MCFG allocation
 * covering it. False when none does (or its base is 0). */
bool acpi_ecam_address(const struct acpi_info *info, uint16_t segment, uint8_t bus, uint8_t dev, uint8_t fn,
		       uint64_t *addr);

/* Sum of bytes mod 256 (a valid table sums to 0). */
uint8_t acpi_checksum(const void *p, uint32_t len);

#endif
