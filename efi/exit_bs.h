/* Taking the machine over: disable the UEFI watchdog, fetch the final memory map and call
 * ExitBootServices, re-fetching and retrying (bounded) when the map changed under us. */
#ifndef EFI_EXIT_BS_H
#define EFI_EXIT_BS_H

#include <efi.h>

#include "efi/discover.h"

#define EXIT_BS_MAX_TRIES 8

/* Returns the status of the last attempt; tries says how many were made. The summary is of the
 * memory map that ExitBootServices accepted. */
EFI_STATUS exit_boot_services(EFI_HANDLE image, struct memmap_summary *map, unsigned *tries);

#endif
