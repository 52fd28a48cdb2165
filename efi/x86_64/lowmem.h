/* Page reservations with an upper address bound, made while boot services still run: the
 * real-mode start-up page that application processors begin in must lie below 1 MiB, and after
 * ExitBootServices nothing can be allocated any more. */
#ifndef EFI_LOWMEM_H
#define EFI_LOWMEM_H

#include <efi.h>

/* Reserve `pages` consecutive 4 KiB pages lying wholly below `limit` (exclusive), of memory type
 * `type` (EfiLoaderCode for code: OVMF maps data types no-execute). Returns the base, or 0 when
 * the firmware has no such range (address 0 itself is never handed out). */
EFI_PHYSICAL_ADDRESS lowmem_alloc(UINTN pages, EFI_PHYSICAL_ADDRESS limit, EFI_MEMORY_TYPE type);

#endif
