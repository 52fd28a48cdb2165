/* Config file and load options (see boot_options.h). */
#include "efi/boot_options.h"

#include <efilib.h>

#include "efi/efi_util.h"
#include "lib/fmt.h"

#define CONFIG_FILE_MAX 16384
#define PATH_MAX_CHARS 256
#define LOAD_OPTIONS_MAX 1024

static void keep_message(void *ctx, const char *text)
{
	struct boot_messages *m = ctx;

	efi_con_line("baremetric: ", text);
	if (m->count < BOOT_OPTIONS_MAX_MSGS)
		str_copy(m->text[m->count++], text, BOOT_OPTIONS_MSG_LEN);
	else
		m->dropped++;
}

static void warn_cb(const char *text, void *ctx)
{
	keep_message(ctx, text);
}

/* "\EFI\BOOT\BOOTX64.EFI" -> "\EFI\BOOT\baremetric.cfg" */
static void config_path(EFI_LOADED_IMAGE *li, CHAR16 *out, UINTN cap)
{
	CHAR16 *img = li->FilePath ? DevicePathToStr(li->FilePath) : NULL;
	UINTN n = 0, slash = 0, i;
	const char *name = CONFIG_FILE_NAME;

	if (img) {
		for (i = 0; img[i] && i + 1 < cap; i++) {
			out[i] = img[i] == L'/' ? L'\\' : img[i];
			if (out[i] == L'\\')
				slash = i + 1;
		}
		FreePool(img);
	}
	n = slash;
	if (n == 0)
		out[n++] = L'\\';
	for (; *name && n + 1 < cap; name++)
		out[n++] = (CHAR16)*name;
	out[n] = 0;
}

static UINTN read_file(EFI_HANDLE device, const CHAR16 *path, char *buf, UINTN cap)
{
	EFI_FILE_HANDLE root = LibOpenRoot(device), file = NULL;
	UINTN size = cap;
	EFI_STATUS st;

	if (!root)
		return 0;
	st = uefi_call_wrapper(root->Open, 5, root, &file, (CHAR16 *)path, EFI_FILE_MODE_READ, 0);
	if (EFI_ERROR(st)) {
		uefi_call_wrapper(root->Close, 1, root);
		return 0;
	}
	st = uefi_call_wrapper(file->Read, 3, file, &size, buf);
	uefi_call_wrapper(file->Close, 1, file);
	uefi_call_wrapper(root->Close, 1, root);
	return EFI_ERROR(st) ? 0 : size;
}

void boot_options_load(EFI_HANDLE image, struct config *cfg, const char *const *known_probes,
		       struct boot_messages *msgs)
{
	static char text[CONFIG_FILE_MAX];
	EFI_LOADED_IMAGE *li = NULL;
	struct config_parser p = { cfg, known_probes, warn_cb, msgs, 0 };
	CHAR16 path[PATH_MAX_CHARS];
	char line[BOOT_OPTIONS_MSG_LEN], apath[PATH_MAX_CHARS];
	struct sbuf sb;
	UINTN len;

	config_defaults(cfg);
	if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, image, &LoadedImageProtocol, (void **)&li)) || !li) {
		keep_message(msgs, "no loaded-image protocol: using default options");
		return;
	}
	config_path(li, path, PATH_MAX_CHARS);
	efi_ucs2_to_ascii(path, PATH_MAX_CHARS, apath, sizeof(apath));
	len = read_file(li->DeviceHandle, path, text, sizeof(text));
	if (!len) {
		CHAR16 root_path[] = L"\\" CONFIG_FILE_NAME_W;

		len = read_file(li->DeviceHandle, root_path, text, sizeof(text));
		if (len)
			str_copy(apath, "\\" CONFIG_FILE_NAME, sizeof(apath));
	}
	sb_init(&sb, line, sizeof(line));
	if (len) {
		sb_puts(&sb, "options from ");
		sb_puts(&sb, apath);
		if (len == sizeof(text))
			sb_puts(&sb, " (truncated at 16 KiB)");
		keep_message(msgs, line);
		config_parse_file(&p, text, len);
	} else {
		sb_puts(&sb, "no ");
		sb_puts(&sb, apath);
		sb_puts(&sb, " on the boot volume: default options");
		keep_message(msgs, line);
	}

	if (li->LoadOptions && li->LoadOptionsSize >= sizeof(CHAR16)) {
		static char args[LOAD_OPTIONS_MAX];

		if (efi_ucs2_to_ascii(li->LoadOptions, li->LoadOptionsSize / sizeof(CHAR16), args, sizeof(args)))
			config_parse_args(&p, args, str_len(args));
		/* otherwise: binary data from a boot entry, not a command line */
	}
}
