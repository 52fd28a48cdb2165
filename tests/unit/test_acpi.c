/* ACPI discovery over synthetic tables built in host memory (addresses are host pointers). */
#include <stdint.h>

#include "drivers/fw/acpi.h"
#include "tests/unit/test.h"

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static void fix_checksum(uint8_t *t, unsigned len, unsigned off)
{
	t[off] = 0;
	t[off] = (uint8_t)(0x100 - acpi_checksum(t, len));
}

static void header(uint8_t *t, const char *sig, uint32_t len)
{
	memset(t, 0, len);
	memcpy(t, sig, 4);
	put32(t + 4, len);
	t[8] = 2;
}

/* DSDT body: Name(\_S5, Package(4) {0x05, 0x05, 0, 0}) plus a decoy reference to _S5_. */
static const uint8_t dsdt_aml[] = {
	0x70, '_', 'S', '5', '_', 0x12, /* a Store() referencing the name: must be ignored */
	0x08, '\\', '_', 'S', '5', '_', 0x12, 0x0A, 0x04, 0x0A, 0x05, 0x0A, 0x05, 0x00, 0x00,
};

static uint8_t rsdp[36], xsdt[36 + 8 * 4], fadt[276], dsdt[36 + sizeof(dsdt_aml)], hpet[56], spcr[88];

static void build(void)
{
	header(dsdt, "DSDT", sizeof(dsdt));
	memcpy(dsdt + 36, dsdt_aml, sizeof(dsdt_aml));
	fix_checksum(dsdt, sizeof(dsdt), 9);

	header(fadt, "FACP", sizeof(fadt));
	put32(fadt + 64, 0x604);  /* PM1a_CNT */
	put32(fadt + 76, 0x608);  /* PM_TMR */
	put32(fadt + 112, 1u << 8); /* TMR_VAL_EXT */
	put64(fadt + 140, (uint64_t)(uintptr_t)dsdt);
	fix_checksum(fadt, sizeof(fadt), 9);

	header(hpet, "HPET", sizeof(hpet));
	hpet[40] = ACPI_GAS_MEMORY;
	put64(hpet + 44, 0xFED00000);
	fix_checksum(hpet, sizeof(hpet), 9);

	header(spcr, "SPCR", sizeof(spcr));
	spcr[36] = 0x00; /* 16550 */
	spcr[40] = ACPI_GAS_IO;
	spcr[41] = 8;
	spcr[43] = 1;
	put64(spcr + 44, 0x2F8);
	spcr[58] = 7; /* 115200 */
	fix_checksum(spcr, sizeof(spcr), 9);

	header(xsdt, "XSDT", sizeof(xsdt));
	put64(xsdt + 36, (uint64_t)(uintptr_t)fadt);
	put64(xsdt + 44, (uint64_t)(uintptr_t)hpet);
	put64(xsdt + 52, (uint64_t)(uintptr_t)spcr);
	put64(xsdt + 60, (uint64_t)(uintptr_t)dsdt); /* listed here only to test the bad-checksum path below */
	fix_checksum(xsdt, sizeof(xsdt), 9);

	memset(rsdp, 0, sizeof(rsdp));
	memcpy(rsdp, "RSD PTR ", 8);
	rsdp[15] = 2;
	put32(rsdp + 20, sizeof(rsdp));
	put64(rsdp + 24, (uint64_t)(uintptr_t)xsdt);
	fix_checksum(rsdp, 20, 8);
	fix_checksum(rsdp, sizeof(rsdp), 32);
}

static void parses_tables(void)
{
	struct acpi_info a;

	build();
	CHECK(acpi_parse((uint64_t)(uintptr_t)rsdp, &a));
	CHECK(a.present);
	CHECK_EQ_U64(a.num_tables, 4);
	CHECK_STR(a.signatures[0], "FACP");
	CHECK_STR(a.signatures[2], "SPCR");
	CHECK_EQ_U64(a.pm_timer_port, 0x608);
	CHECK(a.pm_timer_32bit);
	CHECK_EQ_U64(a.pm1a_cnt, 0x604);
	CHECK(a.s5_found);
	CHECK_EQ_U64(a.s5_typ_a, 5);
	CHECK_EQ_U64(a.s5_typ_b, 5);
	CHECK(a.hpet_present);
	CHECK_EQ_U64(a.hpet_base, 0xFED00000);
	CHECK(a.spcr_present);
	CHECK_EQ_U64(a.spcr_base, 0x2F8);
	CHECK_EQ_U64(a.spcr_baud, 115200);
	CHECK(!a.spcr_pl011);
	CHECK(a.arm_boot_valid);
	CHECK_EQ_U64(a.arm_boot_flags, 0);
	CHECK_EQ_U64(a.bad_checksums, 0);
}

/* An Arm server's tables: SPCR describing a PL011 in MMIO, FADT ARM_BOOT_ARCH saying PSCI over hvc. */
static void arm_pl011_and_psci(void)
{
	struct acpi_info a;

	build();
	spcr[36] = 0x03; /* Arm PL011 */
	spcr[40] = ACPI_GAS_MEMORY;
	spcr[41] = 32;
	spcr[43] = 3;
	put64(spcr + 44, 0x09000000);
	fix_checksum(spcr, sizeof(spcr), 9);
	fadt[129] = ACPI_ARM_PSCI_COMPLIANT | ACPI_ARM_PSCI_USE_HVC;
	fix_checksum(fadt, sizeof(fadt), 9);
	CHECK(acpi_parse((uint64_t)(uintptr_t)rsdp, &a));
	CHECK(!a.spcr_present); /* not for the 16550 driver */
	CHECK(a.spcr_pl011);
	CHECK_EQ_U64(a.spcr_interface, 0x03);
	CHECK(a.oem_found); /* the FADT's OEM fields, kept for the QEMU virt identification */
	CHECK(memcmp(a.oem_id, fadt + 10, 6) == 0);
	CHECK(memcmp(a.oem_table_id, fadt + 16, 8) == 0);
	CHECK_EQ_U64(a.spcr_base, 0x09000000);
	CHECK(a.arm_boot_valid);
	CHECK_EQ_U64(a.arm_boot_flags, ACPI_ARM_PSCI_COMPLIANT | ACPI_ARM_PSCI_USE_HVC);
	/* An unknown interface type is ignored entirely. */
	spcr[36] = 0x7F;
	fix_checksum(spcr, sizeof(spcr), 9);
	CHECK(acpi_parse((uint64_t)(uintptr_t)rsdp, &a));
	CHECK(!a.spcr_present);
	CHECK(!a.spcr_pl011);
}

static void bad_checksum_table_is_skipped(void)
{
	struct acpi_info a;

	build();
	hpet[20] ^= 0x55; /* corrupt the HPET table after its checksum was set */
	CHECK(acpi_parse((uint64_t)(uintptr_t)rsdp, &a));
	CHECK(!a.hpet_present);
	CHECK_EQ_U64(a.bad_checksums, 1);
	CHECK_EQ_U64(a.num_tables, 3);
	/* A refused table says which and why (the firmware's plat/acpi record carries both). */
	CHECK_STR(a.refused_sig, "HPET");
	CHECK(a.refused_why && strstr(a.refused_why, "checksum"));
	/* A length below the header, or above the sanity bound, is named as such. */
	build();
	put32(hpet + 4, 20);
	CHECK(acpi_parse((uint64_t)(uintptr_t)rsdp, &a));
	CHECK(a.refused_why && strstr(a.refused_why, "header"));
	build();
	put32(hpet + 4, 0x7FFFFFFF);
	CHECK(acpi_parse((uint64_t)(uintptr_t)rsdp, &a));
	CHECK(a.refused_why && strstr(a.refused_why, "bound"));
	build();
	CHECK(acpi_parse((uint64_t)(uintptr_t)rsdp, &a));
	CHECK(!a.refused_why);
	CHECK_STR(a.refused_sig, "");
}

static void bad_rsdp_rejected(void)
{
	struct acpi_info a;

	build();
	rsdp[0] = 'X';
	CHECK(!acpi_parse((uint64_t)(uintptr_t)rsdp, &a));
	CHECK(!a.present);
	CHECK(a.why && strstr(a.why, "signature"));
	CHECK(!acpi_parse(0, &a));
	CHECK(a.why != 0);
	build();
	xsdt[20] ^= 1; /* the root table itself */
	CHECK(!acpi_parse((uint64_t)(uintptr_t)rsdp, &a));
	CHECK(a.why && strstr(a.why, "checksum"));
}

/* MCFG (PCI Firmware Specification 3.0, table 4-3): every allocation is kept, by segment, and
 * the segment 0 fields name the first segment 0 one, wherever it is in the table (a two-host-
 * bridge server lists segment 1 first in some tables). */
static void mcfg_every_segment(void)
{
	static uint8_t mcfg[44 + 3 * 16];
	struct acpi_info a;

	build();
	header(mcfg, "MCFG", sizeof(mcfg));
	put64(mcfg + 44, 0xC0000000); /* segment 1, buses 0x80..0xFF */
	mcfg[52] = 1;
	mcfg[54] = 0x80;
	mcfg[55] = 0xFF;
	put64(mcfg + 60, 0xE0000000); /* segment 0, buses 0..0x7F */
	mcfg[71] = 0x7F;
	put64(mcfg + 76, 0xD0000000); /* segment 2, buses 0x10..0x1F */
	mcfg[84] = 2;
	mcfg[86] = 0x10;
	mcfg[87] = 0x1F;
	fix_checksum(mcfg, sizeof(mcfg), 9);
	put64(xsdt + 60, (uint64_t)(uintptr_t)mcfg);
	fix_checksum(xsdt, sizeof(xsdt), 9);
	CHECK(acpi_parse((uint64_t)(uintptr_t)rsdp, &a));
	CHECK_EQ_U64(a.mcfg_segments, 3);
	CHECK_EQ_U64(a.mcfg_dropped, 0);
	CHECK_EQ_U64(a.mcfg[0].segment, 1);
	CHECK_EQ_U64(a.mcfg[0].base, 0xC0000000);
	CHECK_EQ_U64(a.mcfg[0].bus_start, 0x80);
	CHECK_EQ_U64(a.mcfg[0].bus_end, 0xFF);
	CHECK_EQ_U64(a.mcfg[2].segment, 2);
	CHECK_EQ_U64(a.mcfg[2].base, 0xD0000000);
	CHECK_EQ_U64(a.mcfg[2].bus_start, 0x10);
	CHECK_EQ_U64(a.mcfg[2].bus_end, 0x1F);
	CHECK(a.mcfg_present);
	CHECK_EQ_U64(a.mcfg_base, 0xE0000000);
	CHECK_EQ_U64(a.mcfg_bus_start, 0);
	CHECK_EQ_U64(a.mcfg_bus_end, 0x7F);
	/* The same MCFG listed twice in the XSDT (an EVGA X299 board in linuxhw/ACPI does): its
	 * allocations once. */
	put64(xsdt + 52, (uint64_t)(uintptr_t)mcfg);
	fix_checksum(xsdt, sizeof(xsdt), 9);
	CHECK(acpi_parse((uint64_t)(uintptr_t)rsdp, &a));
	CHECK_EQ_U64(a.mcfg_segments, 3);
}

static void s5_zero_and_one_ops(void)
{
	const uint8_t aml[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x00, 0x01, 0x00, 0x00 };
	const uint8_t truncated[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04 };
	uint8_t a = 9, b = 9;

	CHECK(acpi_find_s5(aml, sizeof(aml), &a, &b));
	CHECK_EQ_U64(a, 0);
	CHECK_EQ_U64(b, 1);
	CHECK(!acpi_find_s5(truncated, sizeof(truncated), &a, &b));
}

/* SPCR revision 3 adds the UART clock (offset 76), revision 4 the precise baud rate (offset 80;
 * 0 leaves the enumerated rate) (Microsoft, "Serial Port Console Redirection Table"). */
static void spcr_clock_and_precise_baud(void)
{
	struct acpi_info a;

	build();
	put32(spcr + 76, 14745600);
	put32(spcr + 80, 921600);
	fix_checksum(spcr, sizeof(spcr), 9);
	CHECK(acpi_parse((uint64_t)(uintptr_t)rsdp, &a));
	CHECK_EQ_U64(a.spcr_clock_hz, 0); /* revision 2: those bytes are reserved */
	CHECK_EQ_U64(a.spcr_baud, 115200);
	spcr[8] = 3;
	fix_checksum(spcr, sizeof(spcr), 9);
	CHECK(acpi_parse((uint64_t)(uintptr_t)rsdp, &a));
	CHECK_EQ_U64(a.spcr_clock_hz, 14745600);
	CHECK_EQ_U64(a.spcr_baud, 115200); /* no precise rate before revision 4 */
	spcr[8] = 4;
	fix_checksum(spcr, sizeof(spcr), 9);
	CHECK(acpi_parse((uint64_t)(uintptr_t)rsdp, &a));
	CHECK_EQ_U64(a.spcr_clock_hz, 14745600);
	CHECK_EQ_U64(a.spcr_baud, 921600);
	put32(spcr + 80, 0);
	fix_checksum(spcr, sizeof(spcr), 9);
	CHECK(acpi_parse((uint64_t)(uintptr_t)rsdp, &a));
	CHECK_EQ_U64(a.spcr_baud, 115200);
}

/* A function's ECAM address: the MCFG base is bus 0's, whatever the allocation's first bus (PCI
 * Firmware Specification 3.0, 4.1.2; Linux arch/x86/pci/mmconfig_64.c adds bus << 20 to it), and
 * any segment the MCFG lists is reachable. */
static void ecam_address_from_bus_zero(void)
{
	struct acpi_info a = { 0 };
	uint64_t addr = 0;

	a.mcfg_segments = 2;
	a.mcfg[0] = (struct acpi_mcfg_seg){ 0xE0000000, 0, 0x00, 0x3F };
	a.mcfg[1] = (struct acpi_mcfg_seg){ 0xC0000000, 1, 0x80, 0xFF };
	CHECK(acpi_ecam_address(&a, 0, 0x12, 3, 1, &addr));
	CHECK_EQ_U64(addr, 0xE0000000 + (0x12ull << 20) + (3u << 15) + (1u << 12));
	CHECK(acpi_ecam_address(&a, 1, 0x81, 0, 0, &addr));
	CHECK_EQ_U64(addr, 0xC0000000 + (0x81ull << 20)); /* not base + (0x81 - 0x80) << 20 */
	CHECK(!acpi_ecam_address(&a, 1, 0x7F, 0, 0, &addr)); /* below the allocation's buses */
	CHECK(!acpi_ecam_address(&a, 2, 0, 0, 0, &addr));    /* a segment the MCFG does not list */
	CHECK(!acpi_ecam_address(&a, 0, 0x40, 0, 0, &addr));
	a.mcfg[0].base = 0;                                  /* no address: no ECAM */
	CHECK(!acpi_ecam_address(&a, 0, 0x12, 0, 0, &addr));
}

TEST_SUITE(acpi) = {
	{ "ecam_address_from_bus_zero", ecam_address_from_bus_zero },
	{ "parses_tables", parses_tables },
	{ "spcr_clock_and_precise_baud", spcr_clock_and_precise_baud },
	{ "bad_checksum_table_is_skipped", bad_checksum_table_is_skipped },
	{ "bad_rsdp_rejected", bad_rsdp_rejected },
	{ "s5_zero_and_one_ops", s5_zero_and_one_ops },
	{ "arm_pl011_and_psci", arm_pl011_and_psci },
	{ "mcfg_every_segment", mcfg_every_segment },
	{ 0, 0 },
};
