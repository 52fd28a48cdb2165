/* Configuration tables, framebuffer and memory map (see discover.h). */
#include "efi/discover.h"

#include <efilib.h>

#include "efi/efi_util.h"

#define PAGE_BYTES 4096ull

static int guid_eq(const EFI_GUID *a, const EFI_GUID *b)
{
	const UINT8 *x = (const UINT8 *)a, *y = (const UINT8 *)b;

	for (int i = 0; i < 16; i++)
		if (x[i] != y[i])
			return 0;
	return 1;
}

void discover_tables(struct efi_discovery *d)
{
	EFI_GUID acpi20 = ACPI_20_TABLE_GUID, acpi10 = ACPI_TABLE_GUID;
	EFI_GUID smbios3 = SMBIOS3_TABLE_GUID, smbios = SMBIOS_TABLE_GUID;
	const void *smbios2_entry = NULL;
	UINT64 rsdp1 = 0;

	d->rsdp = 0;
	d->smbios_entry = NULL;
	for (UINTN i = 0; i < ST->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &ST->ConfigurationTable[i];

		if (guid_eq(&t->VendorGuid, &acpi20))
			d->rsdp = (UINT64)(UINTN)t->VendorTable;
		else if (guid_eq(&t->VendorGuid, &acpi10))
			rsdp1 = (UINT64)(UINTN)t->VendorTable;
		else if (guid_eq(&t->VendorGuid, &smbios3))
			d->smbios_entry = t->VendorTable;
		else if (guid_eq(&t->VendorGuid, &smbios))
			smbios2_entry = t->VendorTable;
	}
	if (!d->rsdp)
		d->rsdp = rsdp1;
	if (!d->smbios_entry)
		d->smbios_entry = smbios2_entry;
}

void discover_framebuffer(struct efi_discovery *d)
{
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop = NULL;
	EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info;

	d->have_fb = false;
	if (EFI_ERROR(uefi_call_wrapper(BS->LocateProtocol, 3, &efi_gop_guid, NULL, (void **)&gop)) ||
	    !gop || !gop->Mode || !gop->Mode->Info)
		return;
	info = gop->Mode->Info;
	if (info->PixelFormat == PixelRedGreenBlueReserved8BitPerColor)
		d->fb.format = FB_FORMAT_RGBX8888;
	else if (info->PixelFormat == PixelBlueGreenRedReserved8BitPerColor)
		d->fb.format = FB_FORMAT_BGRX8888;
	else
		return; /* bitmask or blt-only modes: no linear framebuffer we can draw into */
	d->fb.base = gop->Mode->FrameBufferBase;
	d->fb.width = info->HorizontalResolution;
	d->fb.height = info->VerticalResolution;
	d->fb.stride_px = info->PixelsPerScanLine;
	d->have_fb = d->fb.base != 0;
}

static const char *const type_names[MEMMAP_TYPES] = {
	"reserved", "loader_code", "loader_data", "bs_code", "bs_data", "rt_code", "rt_data",
	"conventional", "unusable", "acpi_reclaim", "acpi_nvs", "mmio", "mmio_port", "pal_code",
	"persistent", "unaccepted",
};

const char *memmap_type_name(unsigned type)
{
	return type < MEMMAP_TYPES ? type_names[type] : "other";
}

void memmap_summarise(const EFI_MEMORY_DESCRIPTOR *map, UINTN map_size, UINTN desc_size,
		      struct memmap_summary *s)
{
	UINT64 run_end = 0, run_len = 0;

	*s = (struct memmap_summary){ 0 };
	s->desc_size = desc_size;
	if (!desc_size)
		return;
	s->entries = map_size / desc_size;
	for (UINTN i = 0; i < s->entries; i++) {
		const EFI_MEMORY_DESCRIPTOR *d = (const void *)((const UINT8 *)map + i * desc_size);
		UINT64 bytes = d->NumberOfPages * PAGE_BYTES;
		unsigned type = d->Type < MEMMAP_TYPES ? d->Type : MEMMAP_TYPES - 1;

		s->total += bytes;
		s->per_type[type] += bytes;
		/* Free after boot services end: conventional plus boot-services memory. */
		if (d->Type == EfiConventionalMemory || d->Type == EfiBootServicesCode ||
		    d->Type == EfiBootServicesData) {
			if (d->Type == EfiConventionalMemory)
				s->conventional += bytes;
			run_len = (d->PhysicalStart == run_end) ? run_len + bytes : bytes;
			run_end = d->PhysicalStart + bytes;
			if (run_len > s->largest_free)
				s->largest_free = run_len;
		} else {
			run_len = 0;
		}
	}
}
