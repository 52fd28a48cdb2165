/* DMAR, IVRS and IORT parsing and the units' state from their registers (see iommu.h). */
#include "drivers/fw/iommu.h"

#include <stddef.h>

#include "lib/le.h"

#define SDT_OFF_LENGTH 4
#define SDT_HEADER_LEN 36

/* DMAR (Intel VT-d 3.x, 8.1): flags after the host address width, remapping structures from 48;
 * each starts with a 16-bit type and a 16-bit length. DRHD (8.3) is type 0. */
#define DMAR_OFF_FLAGS 37
#define DMAR_OFF_STRUCTS 48
#define DMAR_TYPE_DRHD 0
#define DRHD_OFF_SEGMENT 6
#define DRHD_OFF_BASE 8
#define DRHD_MIN_LEN 16

/* IVRS (AMD I/O Virtualization Technology spec 48882, 5.2): IVHD blocks from 48, each with an
 * 8-bit type and a 16-bit length at 2; types 10h, 11h and 40h describe one IOMMU (a table may
 * carry more than one type for the same unit); 20h..22h are memory definitions. */
#define IVRS_OFF_BLOCKS 48
#define IVHD_OFF_LEN 2
#define IVHD_OFF_BASE 8
#define IVHD_OFF_SEGMENT 16
#define IVHD_MIN_LEN 24
#define IVHD_TYPE_10 0x10
#define IVHD_TYPE_11 0x11
#define IVHD_TYPE_40 0x40

/* IORT (Arm DEN 0049, 3.1): node count at 36, offset of the first node at 40; each node has an
 * 8-bit type and a 16-bit length at 1, its data from 16. SMMUv1/v2 nodes are type 3, SMMUv3
 * nodes type 4, both with the register base first. */
#define IORT_OFF_NODES 36
#define IORT_OFF_FIRST 40
#define IORT_NODE_OFF_LEN 1
#define IORT_NODE_OFF_BASE 16
#define IORT_NODE_MIN_LEN 24
#define IORT_TYPE_SMMUV2 3
#define IORT_TYPE_SMMUV3 4
#define IORT_NODES_MAX 4096

static void add_unit(struct iommu_info *info, enum iommu_kind kind, uint64_t base, uint16_t segment)
{
	for (unsigned i = 0; i < info->units; i++)
		if (info->unit[i].base == base)
			return; /* an IVRS lists one IOMMU once per IVHD type it supports */
	if (!base)
		return;
	if (info->units == IOMMU_UNITS_MAX) {
		info->dropped++;
		return;
	}
	info->unit[info->units++] = (struct iommu_unit){ .kind = kind, .base = base, .segment = segment };
	if (info->kind == IOMMU_NONE)
		info->kind = kind;
}

static void parse_dmar(const uint8_t *t, uint32_t len, struct iommu_info *info)
{
	uint32_t off = DMAR_OFF_STRUCTS;

	if (len < DMAR_OFF_STRUCTS) {
		info->why = "the DMAR table is shorter than its fixed part";
		return;
	}
	info->dmar_flags = t[DMAR_OFF_FLAGS];
	while (off + 4 <= len) {
		uint32_t type = (uint32_t)rd16(t + off), n = (uint32_t)rd16(t + off + 2);

		if (n < 4 || off + n > len) {
			info->why = "a DMAR remapping structure's length leaves the table";
			return;
		}
		if (type == DMAR_TYPE_DRHD && n >= DRHD_MIN_LEN)
			add_unit(info, IOMMU_VTD, rd64(t + off + DRHD_OFF_BASE), (uint16_t)rd16(t + off + DRHD_OFF_SEGMENT));
		off += n;
	}
}

static void parse_ivrs(const uint8_t *t, uint32_t len, struct iommu_info *info)
{
	uint32_t off = IVRS_OFF_BLOCKS;

	while (off + 4 <= len) {
		uint8_t type = t[off];
		uint32_t n = (uint32_t)rd16(t + off + IVHD_OFF_LEN);

		if (n < 4 || off + n > len) {
			info->why = "an IVRS block's length leaves the table";
			return;
		}
		if ((type == IVHD_TYPE_10 || type == IVHD_TYPE_11 || type == IVHD_TYPE_40) && n >= IVHD_MIN_LEN)
			add_unit(info, IOMMU_AMDVI, rd64(t + off + IVHD_OFF_BASE), (uint16_t)rd16(t + off + IVHD_OFF_SEGMENT));
		off += n;
	}
}

static void parse_iort(const uint8_t *t, uint32_t len, struct iommu_info *info)
{
	uint32_t nodes, off;

	if (len < IORT_OFF_FIRST + 4) {
		info->why = "the IORT table is shorter than its fixed part";
		return;
	}
	nodes = (uint32_t)rd32(t + IORT_OFF_NODES);
	off = (uint32_t)rd32(t + IORT_OFF_FIRST);
	for (uint32_t i = 0; i < nodes && i < IORT_NODES_MAX; i++) {
		uint32_t n;

		if (off + 4 > len || (n = (uint32_t)rd16(t + off + IORT_NODE_OFF_LEN)) < 4 || off + n > len) {
			info->why = "an IORT node's length leaves the table";
			return;
		}
		if (n >= IORT_NODE_MIN_LEN && (t[off] == IORT_TYPE_SMMUV3 || t[off] == IORT_TYPE_SMMUV2))
			add_unit(info, t[off] == IORT_TYPE_SMMUV3 ? IOMMU_SMMUV3 : IOMMU_SMMUV2,
				 rd64(t + off + IORT_NODE_OFF_BASE), 0);
		off += n;
	}
}

void iommu_parse(const uint8_t *t, struct iommu_info *info)
{
	uint32_t len = (uint32_t)rd32(t + SDT_OFF_LENGTH);

	if (len < SDT_HEADER_LEN)
		return;
	if (t[0] == 'D' && t[1] == 'M' && t[2] == 'A' && t[3] == 'R')
		parse_dmar(t, len, info);
	else if (t[0] == 'I' && t[1] == 'V' && t[2] == 'R' && t[3] == 'S')
		parse_ivrs(t, len, info);
	else if (t[0] == 'I' && t[1] == 'O' && t[2] == 'R' && t[3] == 'T')
		parse_iort(t, len, info);
}

enum iommu_state iommu_unit_state(const struct iommu_unit *u, uint32_t (*read32)(void *ctx, uint64_t addr),
				  void *ctx)
{
	switch (u->kind) {
	case IOMMU_VTD:
		if (read32(ctx, u->base + VTD_GSTS) & VTD_GSTS_TES)
			return IOMMU_TRANSLATE;
		return read32(ctx, u->base + VTD_PMEN) & VTD_PMEN_PRS ? IOMMU_PROTECT : IOMMU_PASS;
	case IOMMU_AMDVI:
		return read32(ctx, u->base + AMDVI_CONTROL) & AMDVI_CONTROL_EN ? IOMMU_TRANSLATE : IOMMU_PASS;
	case IOMMU_SMMUV3:
		if (read32(ctx, u->base + SMMUV3_CR0) & SMMUV3_CR0_SMMUEN)
			return IOMMU_TRANSLATE;
		return read32(ctx, u->base + SMMUV3_GBPA) & SMMUV3_GBPA_ABORT ? IOMMU_PROTECT : IOMMU_PASS;
	case IOMMU_SMMUV2:
		return read32(ctx, u->base + SMMUV2_SCR0) & SMMUV2_SCR0_CLIENTPD ? IOMMU_PASS : IOMMU_TRANSLATE;
	default:
		return IOMMU_PASS;
	}
}

const char *iommu_kind_name(enum iommu_kind k)
{
	static const char *const names[] = { "none", "vt-d", "amd-vi", "smmuv3", "smmuv2" };

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "unknown";
}

const char *iommu_state_name(enum iommu_state s)
{
	return s == IOMMU_TRANSLATE ? "translate" : s == IOMMU_PROTECT ? "protect" : "pass";
}

const char *iommu_dma_refusal(enum iommu_state worst, bool fw_mapped)
{
	if (worst == IOMMU_PASS || fw_mapped)
		return NULL;
	if (worst == IOMMU_TRANSLATE)
		return "an IOMMU still translates DMA after ExitBootServices and the firmware had no IoMmu protocol "
		       "to map the USB path's memory: the controller's DMA would fault";
	return "DMA protection (VT-d protected memory regions or an SMMU that aborts bypass) is still on after "
	       "ExitBootServices and nothing mapped the USB path's memory: the controller's DMA would be blocked";
}
