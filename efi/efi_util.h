/* Small helpers for the UEFI layer: ASCII console output before ExitBootServices, and the
 * ASCII <-> UCS-2 conversions UEFI strings need. */
#ifndef EFI_EFI_UTIL_H
#define EFI_EFI_UTIL_H

#include <efi.h>
#include <efilib.h>

/* In place of gnu-efi's InitializeLib: sets ST and BS (defined here, not in libefi). Nothing of
 * libefi is linked: its data.o (ST, BS and the protocol GUIDs) pulls in the device-path, printing
 * and string code, ~27 KB of the .efi. A libefi call added later fails the link with ST and BS
 * defined twice. */
void efi_util_init(EFI_SYSTEM_TABLE *systab);

/* The protocol GUIDs this program opens (the values of efiprot.h's macros). */
extern EFI_GUID efi_loaded_image_guid;
extern EFI_GUID efi_simple_fs_guid;
extern EFI_GUID efi_gop_guid;
/* The root directory of the file system on `device` (the caller closes it); NULL when the device
 * has no simple file system or the volume does not open. */
EFI_FILE_HANDLE efi_open_root(EFI_HANDLE device);
/* Print an ASCII line on the UEFI console (screen, and OVMF's serial mirror). */
void efi_con_line(const char *prefix, const char *text);
/* UCS-2 to ASCII; characters outside printable ASCII become '?'. Returns false if the input had
 * such characters (used to reject binary load options). */
BOOLEAN efi_ucs2_to_ascii(const CHAR16 *in, UINTN in_chars, char *out, UINTN out_cap);

#endif
