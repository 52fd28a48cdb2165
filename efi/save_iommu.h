/* IOMMUs and the boot stick's DMA (efi/save.h): before ExitBootServices the DMA remapping units
 * are read from ACPI (DMAR, IVRS, IORT) and the firmware's IoMmu protocol looked for; after it,
 * each unit's registers say whether it still translates or blocks DMA, a `plat kind=iommu` record
 * says what was found, and saving is refused with the reason when the controller's DMA would
 * fault or be blocked (never a silent fault). */
#ifndef EFI_SAVE_IOMMU_H
#define EFI_SAVE_IOMMU_H

#include "drivers/fw/acpi.h"

/* Before ExitBootServices: save_plan.iommu and save_plan.iommu_protocol. */
void save_iommu_survey(const struct acpi_info *acpi);
/* After ExitBootServices, before the controller runs: the record, then NULL or why not to save. */
const char *save_iommu_check(void);

#endif
