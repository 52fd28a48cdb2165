/* The IOMMU survey and check of the boot stick's DMA (see save_iommu.h). The registers are read
 * only after ExitBootServices: what the firmware leaves on then is what the controller meets
 * (EDK II's VT-d driver turns translation off at ExitBootServices unless PcdVTdPolicyPropertyMask
 * BIT1 asks to keep it). */
/* OPT_SMALL: -Os (Makefile): runs once per boot. */
#include "efi/save_iommu.h"

#include <efi.h>
#include <efilib.h>

#include "arch/mmio.h"
#include "efi/save_state.h"
#include "lib/emit.h"

/* EDK II MdeModulePkg/Include/Protocol/IoMmu.h: the protocol PciIo Map goes through */
static EFI_GUID iommu_protocol_guid = { 0x4e939de9, 0xd948, 0x4b0f,
					{ 0x88, 0xed, 0xe6, 0xe1, 0xce, 0x51, 0x7c, 0x1e } };

static void parse_at(uint64_t addr)
{
	if (addr)
		iommu_parse((const uint8_t *)(uintptr_t)addr, &save_plan.iommu);
}

void save_iommu_survey(const struct acpi_info *acpi)
{
	void *p = NULL;

	save_plan.iommu = (struct iommu_info){ 0 };
	parse_at(acpi->dmar);
	parse_at(acpi->ivrs);
	parse_at(acpi->iort);
	save_plan.iommu_protocol = !EFI_ERROR(uefi_call_wrapper(BS->LocateProtocol, 3, &iommu_protocol_guid, NULL, &p)) && p;
}

static uint32_t reg_read32(void *ctx, uint64_t addr)
{
	(void)ctx;
	return mmio_read32((uintptr_t)addr);
}

const char *save_iommu_check(void)
{
	const struct iommu_info *io = &save_plan.iommu;
	enum iommu_state worst = IOMMU_PASS;
	unsigned translating = 0, protecting = 0;
	bool fw_mapped = save_plan.dma_mapped && save_plan.iommu_protocol;
	struct record *r;

	if (!io->units && !io->why)
		return NULL;
	for (unsigned i = 0; i < io->units; i++) {
		enum iommu_state s = iommu_unit_state(&io->unit[i], reg_read32, NULL);

		translating += s == IOMMU_TRANSLATE;
		protecting += s == IOMMU_PROTECT;
		if (s > worst)
			worst = s;
	}
	r = emit_start("plat");
	rec_str(r, "kind", "iommu");
	rec_str(r, "type", iommu_kind_name(io->kind));
	rec_u64(r, "units", io->units);
	rec_u64(r, "translating", translating);
	rec_u64(r, "protecting", protecting);
	rec_bool(r, "fw_iommu", save_plan.iommu_protocol);
	rec_bool(r, "dma_mapped", save_plan.dma_mapped);
	if (io->why)
		rec_str(r, "table_error", io->why);
	emit_finish();
	return iommu_dma_refusal(worst, fw_mapped);
}
