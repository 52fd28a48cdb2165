/* The platform's DMA remapping units from ACPI — DMAR (Intel VT-d), IVRS (AMD-Vi), IORT (Arm
 * SMMU) — and whether each one translates or blocks a device's DMA now, from its registers. The
 * boot stick's controller does DMA after ExitBootServices: where a unit still translates, that
 * DMA only works if the firmware mapped our buffer (EFI_PCI_IO_PROTOCOL.Map through its IoMmu
 * protocol); where none does, device addresses are the bus's. Pure parsing over memory the caller
 * reads, and register decoding through a read callback: the unit tests use models of both. */
#ifndef DRIVERS_FW_IOMMU_H
#define DRIVERS_FW_IOMMU_H

#include <stdbool.h>
#include <stdint.h>

#define IOMMU_UNITS_MAX 16

enum iommu_kind { IOMMU_NONE, IOMMU_VTD, IOMMU_AMDVI, IOMMU_SMMUV3, IOMMU_SMMUV2 };

/* What one unit does with DMA now. */
enum iommu_state {
	IOMMU_PASS,      /* no translation: device addresses are bus addresses */
	IOMMU_TRANSLATE, /* translation on: DMA works only through mappings someone made */
	IOMMU_PROTECT,   /* no translation, but protected memory regions (VT-d PMR) or an abort-all
			  * bypass policy (SMMUv3 GBPA.ABORT) block DMA */
};

struct iommu_unit {
	enum iommu_kind kind;
	uint64_t base;    /* register block (CPU physical address) */
	uint16_t segment; /* PCI segment (VT-d, AMD-Vi); 0 for Arm */
};

struct iommu_info {
	enum iommu_kind kind; /* of the first unit; IOMMU_NONE: no table, or no unit in it */
	unsigned units, dropped;
	struct iommu_unit unit[IOMMU_UNITS_MAX];
	uint8_t dmar_flags;   /* DMAR Flags (VT-d 3.x, 8.1): bit 2 DMA_CTRL_PLATFORM_OPT_IN */
	const char *why;      /* a table that was there but could not be read: why (else NULL) */
};

/* The units of one table (signature DMAR, IVRS or IORT; its length checked by the caller's
 * checksum), appended to `info`. A malformed table sets info->why and adds what was read. */
void iommu_parse(const uint8_t *table, struct iommu_info *info);

/* A unit's state from its registers: read32(ctx, base + offset). */
enum iommu_state iommu_unit_state(const struct iommu_unit *u, uint32_t (*read32)(void *ctx, uint64_t addr),
				  void *ctx);

const char *iommu_kind_name(enum iommu_kind k);
const char *iommu_state_name(enum iommu_state s);

/* Whether a device's DMA to memory the firmware mapped for it works with the units in `worst`
 * (the strictest state found): NULL, or why not. fw_mapped: the memory was mapped by
 * EFI_PCI_IO_PROTOCOL.Map while the firmware had an IoMmu protocol, which then made the IOMMU's
 * mapping for the device (its page tables stay as they were when nothing turns translation off). */
const char *iommu_dma_refusal(enum iommu_state worst, bool fw_mapped);

/* Register offsets and bits the decoding reads (named for the tests' models too). */
#define VTD_GSTS 0x1C             /* Intel VT-d 3.x, 11.4.5 Global Status */
#define VTD_GSTS_TES (1u << 31)   /* translation enable status */
#define VTD_PMEN 0x64             /* 11.4.13 Protected Memory Enable */
#define VTD_PMEN_PRS (1u << 0)    /* protected region status */
#define AMDVI_CONTROL 0x18        /* AMD IOMMU spec 48882, 3.4.x MMIO offset 0018h IOMMU Control */
#define AMDVI_CONTROL_EN (1u << 0) /* IommuEn */
#define SMMUV3_CR0 0x20           /* Arm SMMUv3 (IHI 0070), 6.3.9 SMMU_CR0 */
#define SMMUV3_CR0_SMMUEN (1u << 0)
#define SMMUV3_GBPA 0x44          /* 6.3.14 SMMU_GBPA: what happens to DMA while SMMUEN is 0 */
#define SMMUV3_GBPA_ABORT (1u << 20)
#define SMMUV2_SCR0 0x00          /* Arm SMMUv2 (IHI 0062), 10.6.1 SMMU_sCR0 */
#define SMMUV2_SCR0_CLIENTPD (1u << 0) /* 1: client ports bypass the SMMU */

#endif
