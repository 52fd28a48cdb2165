/* Bounded page reservations (see lowmem.h). */
#include "efi/x86_64/lowmem.h"

#include <efilib.h>

EFI_PHYSICAL_ADDRESS lowmem_alloc(UINTN pages, EFI_PHYSICAL_ADDRESS limit, EFI_MEMORY_TYPE type)
{
	/* AllocateMaxAddress: the last byte of the range must be <= the address passed in. */
	EFI_PHYSICAL_ADDRESS addr = limit - 1;

	if (!pages || limit == 0)
		return 0;
	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePages, 4, AllocateMaxAddress, type, pages, &addr)))
		return 0;
	return addr;
}
