/* The MADT for the UEFI layer (see madt_boot.h). */
#include "efi/x86_64/madt_boot.h"

#include <efi.h>
#include <efilib.h>

static struct {
	bool parsed;
	struct madt_info *madt; /* pool memory; NULL unless valid */
	const char *reason;
} mb = { false, NULL, "MADT not parsed before ExitBootServices" };

void madt_boot_parse(const struct acpi_info *acpi)
{
	struct madt_info *info = NULL;

	if (mb.parsed)
		return;
	mb.parsed = true;
	if (!acpi->madt) {
		mb.reason = "no valid MADT";
		return;
	}
	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, sizeof(*info), (void **)&info)) ||
	    !info) {
		mb.reason = "no memory to parse the MADT";
		return;
	}
	if (!madt_parse(acpi->madt, info)) {
		mb.reason = info->why; /* a string constant: outlives the pool */
		uefi_call_wrapper(BS->FreePool, 1, info);
		return;
	}
	mb.madt = info;
	mb.reason = NULL;
}

const struct madt_info *madt_boot(void)
{
	return mb.madt;
}

const char *madt_boot_reason(void)
{
	return mb.reason;
}
