/* Small helpers for the UEFI layer: ASCII console output before ExitBootServices, and the
 * ASCII <-> UCS-2 conversions UEFI strings need. */
#ifndef EFI_EFI_UTIL_H
#define EFI_EFI_UTIL_H

#include <efi.h>
#include <efilib.h>

/* Print an ASCII line on the UEFI console (screen, and OVMF's serial mirror). */
void efi_con_line(const char *prefix, const char *text);
/* UCS-2 to ASCII; characters outside printable ASCII become '?'. Returns false if the input had
 * such characters (used to reject binary load options). */
BOOLEAN efi_ucs2_to_ascii(const CHAR16 *in, UINTN in_chars, char *out, UINTN out_cap);

#endif
