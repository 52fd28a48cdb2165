/* PCI configuration-space helpers over an ops table (see pci_cfg.h). */
#include "drivers/pci/pci_cfg.h"

#include "lib/le.h"

#define CAP_WALK_MAX 48        /* (256 - 64) / 4 capabilities fit in the legacy space */
#define CAP_PTR_MASK 0xFCu     /* the low two bits of a capability pointer are reserved */
#define CAP_FIRST_OFF 0x40u    /* capabilities live after the 64-byte header */
#define CMD_MASK 0xFFFFu
#define CAP_ID_MASK 0xFFu
#define CAP_NEXT_SHIFT 8
#define PMCSR_PME_STATUS (1u << 15) /* RW1C (PCI PM 1.2, 3.2.4) */

/* Large resource items (ACPI 6.x 6.4.3): bit 7 set, a 16-bit length after the tag. */
#define RES_LARGE 0x80u
#define RES_SMALL_LEN_MASK 0x7u
#define RES_LARGE_HDR 3u
/* Offsets in the three address-space descriptors (ACPI 6.x tables 6.44, 6.45, 6.46). */
#define RES_OFF_TYPE 3
#define RES_OFF_GRAN 6

uint32_t pci_cap_find(const struct pci_cfg *c, uint8_t id)
{
	uint32_t off;

	if (!(c->read32(c->ctx, PCI_CFG_COMMAND) & PCI_CFG_STATUS_CAP_LIST))
		return 0;
	off = c->read32(c->ctx, PCI_CFG_CAP_PTR) & CAP_PTR_MASK;
	for (unsigned i = 0; i < CAP_WALK_MAX && off >= CAP_FIRST_OFF; i++) {
		uint32_t hdr = c->read32(c->ctx, off);

		if ((hdr & CAP_ID_MASK) == id)
			return off;
		off = (hdr >> CAP_NEXT_SHIFT) & CAP_PTR_MASK;
	}
	return 0;
}

int pci_power_d0(const struct pci_cfg *c)
{
	uint32_t cap = pci_cap_find(c, PCI_CAP_ID_PM), csr;
	int was;

	if (!cap)
		return -1;
	csr = c->read32(c->ctx, cap + PCI_PM_CSR);
	was = (int)(csr & PCI_PM_STATE_MASK);
	if (was == PCI_PM_D0)
		return was;
	/* PME_Status is RW1C: write it as 0; keep the rest (PME_En, data select) */
	c->write32(c->ctx, cap + PCI_PM_CSR, (csr & ~(PCI_PM_STATE_MASK | PMCSR_PME_STATUS)) | PCI_PM_D0);
	c->delay_us(c->ctx, PCI_PM_D3HOT_RECOVERY_US);
	return was;
}

uint16_t pci_enable_master(const struct pci_cfg *c)
{
	uint32_t cmd = c->read32(c->ctx, PCI_CFG_COMMAND) & CMD_MASK;

	if ((cmd & (PCI_CMD_MEMORY | PCI_CMD_MASTER)) != (PCI_CMD_MEMORY | PCI_CMD_MASTER))
		c->write32(c->ctx, PCI_CFG_COMMAND, cmd | PCI_CMD_MEMORY | PCI_CMD_MASTER);
	return (uint16_t)cmd;
}

bool pci_bar0_restore(const struct pci_cfg *c, uint64_t bus)
{
	uint32_t lo = c->read32(c->ctx, PCI_CFG_BAR0);
	bool wide = (lo & PCI_BAR_TYPE_MASK) == PCI_BAR_TYPE_64;
	uint64_t now = lo & ~(uint64_t)PCI_BAR_FLAGS_MASK;

	if (lo & PCI_BAR_IO)
		return false;
	if (wide)
		now |= (uint64_t)c->read32(c->ctx, PCI_CFG_BAR0 + 4) << 32;
	if (now == bus)
		return false;
	c->write32(c->ctx, PCI_CFG_BAR0, (uint32_t)bus | (lo & PCI_BAR_FLAGS_MASK));
	if (wide)
		c->write32(c->ctx, PCI_CFG_BAR0 + 4, (uint32_t)(bus >> 32));
	return true;
}

/* One address-space descriptor's fields: width in bytes of each (8, 4 or 2). */
static bool address_space(const uint8_t *d, unsigned w, size_t len, struct pci_bar_res *out)
{
	const uint8_t *f = d + RES_OFF_GRAN;

	if (len < RES_OFF_GRAN + 5u * w || d[RES_OFF_TYPE] != ACPI_RES_TYPE_MEM)
		return false;
	/* granularity, minimum, maximum, translation offset, length */
	out->device = rd_le(f + w, w);
	out->translation = rd_le(f + 3 * w, w);
	out->length = rd_le(f + 4 * w, w);
	out->cpu = out->device - out->translation;
	return true;
}

bool pci_bar_from_acpi(const uint8_t *res, size_t max, struct pci_bar_res *out, const char **why)
{
	size_t off = 0;

	*why = "the firmware's BAR description holds no memory range";
	while (off < max) {
		const uint8_t *d = res + off;
		size_t len;

		if (!(d[0] & RES_LARGE)) {
			if (d[0] == ACPI_RES_END)
				return false;
			off += 1 + (d[0] & RES_SMALL_LEN_MASK);
			continue;
		}
		if (off + RES_LARGE_HDR > max)
			break;
		len = RES_LARGE_HDR + (size_t)rd_le(d + 1, 2);
		if (off + len > max)
			break;
		if ((d[0] == ACPI_RES_QWORD && address_space(d, 8, len, out)) ||
		    (d[0] == ACPI_RES_DWORD && address_space(d, 4, len, out)) ||
		    (d[0] == ACPI_RES_WORD && address_space(d, 2, len, out))) {
			if (!out->length) {
				*why = "the firmware's BAR description has a length of 0";
				return false;
			}
			return true;
		}
		off += len;
	}
	*why = "the firmware's BAR description runs past its end (no end tag)";
	return false;
}
