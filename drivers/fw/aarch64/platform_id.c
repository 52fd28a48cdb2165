/* Which AArch64 machine, and what its tables allow (see drivers/fw/aarch64/platform_id.h). */
#include "drivers/fw/aarch64/platform_id.h"

#define SPCR_IF_PL011 0x03
#define SPCR_IF_SBSA_32BIT 0x0D
#define SPCR_IF_SBSA 0x0E

static bool bytes_are(const uint8_t *p, const char *s, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (p[i] != (uint8_t)s[i])
			return false;
	return true;
}

bool a64_acpi_oem_is_qemu(const uint8_t *oem_id, const uint8_t *oem_table_id)
{
	return oem_id && oem_table_id && bytes_are(oem_id, "BOCHS ", 6) && bytes_are(oem_table_id, "BXPC", 4);
}

bool a64_smbios_maker_is_qemu(const char *manufacturer)
{
	return manufacturer && bytes_are((const uint8_t *)manufacturer, "QEMU", 5); /* with its NUL */
}

enum a64_uart_kind a64_spcr_uart_kind(uint8_t interface_type)
{
	switch (interface_type) {
	case SPCR_IF_PL011:
		return A64_UART_PL011;
	case SPCR_IF_SBSA_32BIT:
	case SPCR_IF_SBSA:
		return A64_UART_SBSA;
	default:
		return A64_UART_NONE;
	}
}

const char *a64_uart_driver_name(enum a64_uart_kind k)
{
	return k == A64_UART_PL011 ? "pl011" : k == A64_UART_SBSA ? "sbsa_uart" : "none";
}

unsigned a64_pmu_intid(bool madt_used, bool gicc_found, uint32_t gsiv, const char **from, const char **why)
{
	*why = 0;
	if (!madt_used) {
		*from = "qemu_virt_default";
		return A64_QEMU_VIRT_PMU_INTID;
	}
	*from = "madt";
	if (!gicc_found) {
		*from = "none";
		*why = "MADT: no GICC entry for this CPU: no PMU overflow interrupt known";
		return 0;
	}
	if (!gsiv) {
		*from = "none";
		*why = "MADT GICC Performance Interrupt GSIV is 0: no PMU overflow interrupt";
		return 0;
	}
	return gsiv;
}

/* Why a MADT's GIC is not usable here, by the GICD entry's version byte (ACPI 6.x 5.2.12.15). */
static const char *no_redist_reason(unsigned version)
{
	static const char *const why[] = {
		"MADT: GIC version not stated and no redistributor: GICv2 is not supported",
		"MADT: GIC version 1 without redistributor: GICv2 is not supported",
		"MADT: GIC version 2 without redistributor: GICv2 is not supported",
		"MADT: GIC version 3 without redistributor: no GICR base or range in the MADT",
		"MADT: GIC version 4 without redistributor: no GICR base or range in the MADT",
	};

	return version < sizeof(why) / sizeof(why[0]) ? why[version] : "MADT: unknown GIC version without redistributor";
}

enum a64_gic_from a64_gic_bases_from(bool madt, bool parsed, bool has_redist, unsigned version, bool qemu_virt,
				     const char **why)
{
	*why = 0;
	if (madt) {
		if (!parsed)
			*why = "MADT: no usable GIC distributor entry";
		else if (!has_redist)
			*why = no_redist_reason(version);
		return *why ? A64_GIC_REFUSED : A64_GIC_FROM_MADT;
	}
	if (!qemu_virt) {
		*why = "no MADT and the platform is not identified as QEMU virt: the GIC's addresses are unknown";
		return A64_GIC_REFUSED;
	}
	return A64_GIC_FROM_QEMU_DEFAULT;
}
