/* UEFI console and string helpers (see efi_util.h). */
#include "efi/efi_util.h"

#define CON_LINE_MAX 256

EFI_SYSTEM_TABLE *ST;
EFI_BOOT_SERVICES *BS;
EFI_GUID efi_loaded_image_guid = EFI_LOADED_IMAGE_PROTOCOL_GUID;
EFI_GUID efi_simple_fs_guid = EFI_SIMPLE_FILE_SYSTEM_PROTOCOL_GUID;
EFI_GUID efi_gop_guid = EFI_GRAPHICS_OUTPUT_PROTOCOL_GUID;

void efi_util_init(EFI_SYSTEM_TABLE *systab)
{
	ST = systab;
	BS = systab->BootServices;
}

void efi_con_line(const char *prefix, const char *text)
{
	CHAR16 buf[CON_LINE_MAX];
	UINTN n = 0;
	const char *parts[2] = { prefix, text };

	for (int p = 0; p < 2; p++)
		for (const char *s = parts[p]; s && *s && n + 3 < CON_LINE_MAX; s++)
			buf[n++] = (CHAR16)(unsigned char)*s;
	buf[n++] = L'\r';
	buf[n++] = L'\n';
	buf[n] = 0;
	uefi_call_wrapper(ST->ConOut->OutputString, 2, ST->ConOut, buf);
}

BOOLEAN efi_ucs2_to_ascii(const CHAR16 *in, UINTN in_chars, char *out, UINTN out_cap)
{
	BOOLEAN clean = TRUE;
	UINTN i, n = 0;

	for (i = 0; i < in_chars && in[i] && n + 1 < out_cap; i++) {
		CHAR16 c = in[i];

		if (c == L'\t' || (c >= 0x20 && c < 0x7F)) {
			out[n++] = (char)c;
		} else {
			out[n++] = '?';
			clean = FALSE;
		}
	}
	out[n] = '\0';
	return clean;
}

EFI_FILE_HANDLE efi_open_root(EFI_HANDLE device)
{
	EFI_FILE_IO_INTERFACE *vol = NULL;
	EFI_FILE_HANDLE root = NULL;

	if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, device, &efi_simple_fs_guid, (void **)&vol)) || !vol)
		return NULL;
	if (EFI_ERROR(uefi_call_wrapper(vol->OpenVolume, 2, vol, &root)))
		return NULL;
	return root;
}
