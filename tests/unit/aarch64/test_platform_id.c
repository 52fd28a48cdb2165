/* The AArch64 machine identification and table decisions (drivers/fw/aarch64/platform_id.c), plus the
 * OEM fields drivers/fw/acpi.c keeps for it. */
#include <stdint.h>

#include "drivers/fw/aarch64/platform_id.h"
#include "tests/unit/test.h"

static void qemu_oem_recognised(void)
{
	CHECK(a64_acpi_oem_is_qemu((const uint8_t *)"BOCHS ", (const uint8_t *)"BXPC    "));
	CHECK(a64_acpi_oem_is_qemu((const uint8_t *)"BOCHS ", (const uint8_t *)"BXPCFACP"));
	CHECK(!a64_acpi_oem_is_qemu((const uint8_t *)"BOCHS ", (const uint8_t *)"EDK2    "));
	CHECK(!a64_acpi_oem_is_qemu((const uint8_t *)"RPIFDN", (const uint8_t *)"RPI4    "));
	CHECK(!a64_acpi_oem_is_qemu((const uint8_t *)"AMPERE", (const uint8_t *)"BXPC    "));
	CHECK(!a64_acpi_oem_is_qemu(0, 0)); /* no tables: not identified */
	CHECK(a64_smbios_maker_is_qemu("QEMU"));
	CHECK(!a64_smbios_maker_is_qemu("QEMU Corp"));
	CHECK(!a64_smbios_maker_is_qemu("Raspberry Pi Foundation"));
	CHECK(!a64_smbios_maker_is_qemu(""));
	CHECK(!a64_smbios_maker_is_qemu(0));
}

static void spcr_type_to_driver(void)
{
	CHECK_EQ_U64(a64_spcr_uart_kind(0x03), A64_UART_PL011);
	CHECK_EQ_U64(a64_spcr_uart_kind(0x0D), A64_UART_SBSA);
	CHECK_EQ_U64(a64_spcr_uart_kind(0x0E), A64_UART_SBSA);
	CHECK_EQ_U64(a64_spcr_uart_kind(0x00), A64_UART_NONE); /* 16550 */
	CHECK_EQ_U64(a64_spcr_uart_kind(0x12), A64_UART_NONE);
	CHECK_EQ_U64(a64_spcr_uart_kind(0x10), A64_UART_NONE); /* BCM2835 mini UART */
	CHECK_STR(a64_uart_driver_name(A64_UART_PL011), "pl011");
	CHECK_STR(a64_uart_driver_name(A64_UART_SBSA), "sbsa_uart");
}

static void pmu_gsiv_decision(void)
{
	const char *from, *why;

	CHECK_EQ_U64(a64_pmu_intid(true, true, 23, &from, &why), 23);
	CHECK_STR(from, "madt");
	CHECK(why == 0);
	CHECK_EQ_U64(a64_pmu_intid(true, true, 0, &from, &why), 0); /* GSIV 0: no PMU interrupt */
	CHECK_STR(from, "none");
	CHECK(why != 0);
	CHECK_EQ_U64(a64_pmu_intid(true, false, 0, &from, &why), 0);
	CHECK(why != 0);
	CHECK_EQ_U64(a64_pmu_intid(false, false, 0, &from, &why), 23); /* QEMU virt without a MADT */
	CHECK_STR(from, "qemu_virt_default");
}

static void gic_bases_decision(void)
{
	const char *why;
	unsigned gic;

	CHECK_EQ_U64(a64_gic_bases_from(true, true, true, false, 3, false, &gic, &why), A64_GIC_FROM_MADT);
	CHECK(why == 0);
	CHECK_EQ_U64(gic, 3);
	/* GICv2 board (Raspberry Pi 4's GIC-400, QEMU virt,gic-version=2): the distributor and this
	 * CPU's GICC Physical Base Address, no redistributor (ACPI 6.5 5.2.12.14-15) */
	CHECK_EQ_U64(a64_gic_bases_from(true, true, false, true, 2, true, &gic, &why), A64_GIC_FROM_MADT);
	CHECK_EQ_U64(gic, 2);
	CHECK_EQ_U64(a64_gic_bases_from(true, true, false, true, 0, false, &gic, &why), A64_GIC_FROM_MADT);
	CHECK_EQ_U64(gic, 2); /* version not stated, no GICR: a GICv2 */
	CHECK_EQ_U64(a64_gic_bases_from(true, true, true, true, 0, false, &gic, &why), A64_GIC_FROM_MADT);
	CHECK_EQ_U64(gic, 3); /* not stated with a redistributor: a GICv3 */
	CHECK_EQ_U64(a64_gic_bases_from(true, true, false, false, 2, true, &gic, &why), A64_GIC_REFUSED);
	CHECK_STR(why, "MADT: GIC version 2 without a CPU interface address in this CPU's GICC entry");
	CHECK_EQ_U64(gic, 0);
	CHECK_EQ_U64(a64_gic_bases_from(true, true, false, true, 3, true, &gic, &why), A64_GIC_REFUSED);
	CHECK(why != 0); /* a GICv3 without redistributor is not driven as a v2 */
	CHECK_EQ_U64(a64_gic_bases_from(true, false, false, false, 0, true, &gic, &why), A64_GIC_REFUSED);
	CHECK_EQ_U64(a64_gic_bases_from(true, true, false, false, 9, false, &gic, &why), A64_GIC_REFUSED);
	CHECK(why != 0);
	CHECK_EQ_U64(a64_gic_bases_from(false, false, false, false, 0, true, &gic, &why), A64_GIC_FROM_QEMU_DEFAULT);
	CHECK_EQ_U64(gic, 3);
	CHECK_EQ_U64(a64_gic_bases_from(false, false, false, false, 0, false, &gic, &why), A64_GIC_REFUSED);
	CHECK(why != 0);
}

TEST_SUITE(a64_platform_id) = {
	{ "gic_bases_decision", gic_bases_decision },
	{ "qemu_oem_recognised", qemu_oem_recognised },
	{ "spcr_type_to_driver", spcr_type_to_driver },
	{ "pmu_gsiv_decision", pmu_gsiv_decision },
	{ 0, 0 },
};
