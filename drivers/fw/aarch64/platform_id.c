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

/* Which driver a MADT's GIC takes, by the GICD entry's version byte (ACPI 6.x 5.2.12.15: 0 not
 * stated, 1 GICv1, 2 GICv2, 3 GICv3, 4 GICv4) and what the other entries give: a GICv3/v4
 * needs a redistributor (a GICC GICR base or a GICR structure), a GICv1/v2 this CPU's GICC
 * Physical Base Address (its memory-mapped CPU interface). Not stated: a redistributor means v3,
 * else a CPU interface address means v2. Returns 0 with *why when neither fits. */
static unsigned madt_gic(bool has_redist, bool has_cpuif, unsigned version, const char **why)
{
	static const char *const no_redist[] = {
		"MADT: GIC version not stated, no redistributor and no GICC CPU interface address",
		"MADT: GIC version 1 without a CPU interface address in this CPU's GICC entry",
		"MADT: GIC version 2 without a CPU interface address in this CPU's GICC entry",
		"MADT: GIC version 3 without redistributor: no GICR base or range in the MADT",
		"MADT: GIC version 4 without redistributor: no GICR base or range in the MADT",
	};

	if (version == 1 || version == 2 || (version == 0 && !has_redist)) {
		if (has_cpuif)
			return 2;
	} else if (has_redist) {
		return 3;
	}
	*why = version < sizeof(no_redist) / sizeof(no_redist[0]) ? no_redist[version]
								  : "MADT: unknown GIC version without redistributor";
	return 0;
}

enum a64_gic_from a64_gic_bases_from(bool madt, bool parsed, bool has_redist, bool has_cpuif, unsigned version,
				     bool qemu_virt, unsigned *gic, const char **why)
{
	*why = 0;
	*gic = 0;
	if (madt) {
		if (!parsed) {
			*why = "MADT: no usable GIC distributor entry";
			return A64_GIC_REFUSED;
		}
		*gic = madt_gic(has_redist, has_cpuif, version, why);
		return *gic ? A64_GIC_FROM_MADT : A64_GIC_REFUSED;
	}
	if (!qemu_virt) {
		*why = "no MADT and the platform is not identified as QEMU virt: the GIC's addresses are unknown";
		return A64_GIC_REFUSED;
	}
	*gic = 3; /* QEMU virt's default board GIC */
	return A64_GIC_FROM_QEMU_DEFAULT;
}
