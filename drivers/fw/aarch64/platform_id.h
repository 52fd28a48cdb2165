/* Pure decisions of the AArch64 build about which machine this is and what its tables allow:
 * is it QEMU's virt board (only there may QEMU's fixed addresses be guessed), which UART an
 * SPCR interface type names, and which PMU overflow interrupt the MADT gives. No hardware
 * access: the unit tests run them on the host. */
#ifndef DRIVERS_A64_PLATFORM_ID_H
#define DRIVERS_A64_PLATFORM_ID_H

#include <stdbool.h>
#include <stdint.h>

/* An ACPI table's OEM ID (6 bytes) and OEM table ID (8 bytes) are QEMU's: "BOCHS " and "BXPC..."
 * (QEMU builds every table of its own with these; NULL: no table, not QEMU). */
bool a64_acpi_oem_is_qemu(const uint8_t *oem_id, const uint8_t *oem_table_id);

/* An SMBIOS System Information Manufacturer string that is QEMU's ("QEMU"): the identification
 * when there are no ACPI tables (-machine virt,acpi=off). */
bool a64_smbios_maker_is_qemu(const char *manufacturer);

/* The UART an SPCR interface type names, as far as the PL011 driver speaks it. */
enum a64_uart_kind {
	A64_UART_NONE,  /* not an Arm UART (16550 family, or unknown) */
	A64_UART_PL011, /* 0x03: Arm PL011, has UARTCR */
	A64_UART_SBSA,  /* 0x0D/0x0E: SBSA generic UART, a PL011 subset without UARTCR/IBRD/FBRD/LCR_H */
};
enum a64_uart_kind a64_spcr_uart_kind(uint8_t interface_type);
const char *a64_uart_driver_name(enum a64_uart_kind k); /* "pl011", "sbsa_uart", "none" */

/* The PMU overflow interrupt from this CPU's MADT GICC entry. madt_used: the GIC's addresses came
 * from a MADT (else QEMU virt's defaults, which have PPI 23). GSIV 0 in a GICC entry means "no
 * PMU interrupt". Returns the INTID (0: none) with *from ("madt", "qemu_virt_default", "none") and,
 * when 0, *why. */
unsigned a64_pmu_intid(bool madt_used, bool gicc_found, uint32_t gsiv, const char **from, const char **why);

/* Where the GIC's addresses may come from, and which driver takes it. madt: a MADT exists;
 * parsed: it has a GICD entry; has_redist: a GICC GICR base or a GICR range; has_cpuif: this
 * CPU's GICC entry gives a CPU interface address (GICv2's GICC); version: the GICD entry's
 * version byte. Returns A64_GIC_FROM_MADT, A64_GIC_FROM_QEMU_DEFAULT (no MADT at all, on QEMU
 * virt: its GICv3), or A64_GIC_REFUSED with *why (nothing may be programmed); *gic: 2 (the GICv2
 * driver, also for a GICv1), 3 (GICv3/v4) or 0 (refused). */
enum a64_gic_from { A64_GIC_REFUSED, A64_GIC_FROM_MADT, A64_GIC_FROM_QEMU_DEFAULT };
enum a64_gic_from a64_gic_bases_from(bool madt, bool parsed, bool has_redist, bool has_cpuif, unsigned version,
				     bool qemu_virt, unsigned *gic, const char **why);

#define A64_QEMU_VIRT_PMU_INTID 23u /* QEMU virt: VIRTUAL_PMU_IRQ 7 + 16 */

#endif
