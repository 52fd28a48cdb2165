/* ExitBootServices with the retry the UEFI spec requires (see exit_bs.h). */
#include "efi/exit_bs.h"

#include <efilib.h>

/* Room for descriptors added by our own allocation of the map buffer. */
#define MAP_SLACK_DESCRIPTORS 16

EFI_STATUS exit_boot_services(EFI_HANDLE image, struct memmap_summary *summary, unsigned *tries)
{
	EFI_MEMORY_DESCRIPTOR *map = NULL;
	UINTN map_size = 0, map_key, desc_size = 0, buf_size = 0;
	UINT32 desc_ver;
	EFI_STATUS st = EFI_LOAD_ERROR;

	uefi_call_wrapper(BS->SetWatchdogTimer, 4, 0, 0, 0, NULL);
	for (*tries = 1; *tries <= EXIT_BS_MAX_TRIES; (*tries)++) {
		map_size = buf_size;
		st = uefi_call_wrapper(BS->GetMemoryMap, 5, &map_size, map, &map_key, &desc_size, &desc_ver);
		if (st == EFI_BUFFER_TOO_SMALL) {
			if (map)
				uefi_call_wrapper(BS->FreePool, 1, map);
			buf_size = map_size + MAP_SLACK_DESCRIPTORS * (desc_size ? desc_size : sizeof(*map));
			map = NULL;
			if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, buf_size, (void **)&map)))
				return EFI_OUT_OF_RESOURCES;
			continue;
		}
		if (EFI_ERROR(st))
			return st;
		/* Nothing may allocate between GetMemoryMap and ExitBootServices: summarise after. */
		st = uefi_call_wrapper(BS->ExitBootServices, 2, image, map_key);
		if (!EFI_ERROR(st)) {
			memmap_summarise(map, map_size, desc_size, summary);
			return st;
		}
		if (st != EFI_INVALID_PARAMETER)
			return st;
		/* The map changed (an event allocated): fetch it again. */
	}
	(*tries)--;
	return st;
}
