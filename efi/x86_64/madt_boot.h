/* The MADT for the UEFI layer: parsed once, before ExitBootServices, into pool memory, and read
 * by the processor start-up (smp_boot.c) and the interrupt sources (irq_boot.c). Each of them
 * used to keep a static copy: 2 x 4.4 KiB of the .efi, whose linker script keeps .bss in the file. */
#ifndef EFI_MADT_BOOT_H
#define EFI_MADT_BOOT_H

#include "drivers/fw/acpi.h"
#include "drivers/fw/madt.h"

/* Before ExitBootServices (it allocates); a second call changes nothing. */
void madt_boot_parse(const struct acpi_info *acpi);
/* The parsed MADT, or NULL: no MADT, a bad one, or no memory to parse it (madt_boot_reason). */
const struct madt_info *madt_boot(void);
const char *madt_boot_reason(void);

#endif
