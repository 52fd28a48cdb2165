/* Discovery while boot services are up: the configuration tables (ACPI RSDP, SMBIOS entry point),
 * the GOP framebuffer, and the memory map, summarised for the record stream. */
#ifndef EFI_DISCOVER_H
#define EFI_DISCOVER_H

#include <efi.h>

#include <stdbool.h>

#include "drivers/console/fbcon.h"

#define MEMMAP_TYPES 16

struct memmap_summary {
	UINTN entries, desc_size;
	UINT64 conventional, largest_free, total;
	UINT64 per_type[MEMMAP_TYPES];
};

struct efi_discovery {
	UINT64 rsdp;
	const void *smbios_entry;
	bool have_fb;
	struct fb_info fb;
};

void discover_tables(struct efi_discovery *d);
void discover_framebuffer(struct efi_discovery *d);
void memmap_summarise(const EFI_MEMORY_DESCRIPTOR *map, UINTN map_size, UINTN desc_size,
		      struct memmap_summary *s);
const char *memmap_type_name(unsigned type);

#endif
