/* Config file and load options (see boot_options.h). */
#include "efi/boot_options.h"

#include <efilib.h>

#include "drivers/fw/smbios.h"
#include "efi/efi_util.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define CONFIG_FILE_MAX 16384 /* bytes of the config file read (scripts/gen_docs.py TEMPLATE_MAX) */
#define PATH_MAX_CHARS 256
#define LOAD_OPTIONS_MAX 1024
#define CHOICE_DIR "cfg\\"  /* \EFI\BOOT\cfg\<product>.cfg: beside the binary */
#define CHOICE_EXT ".cfg"

/* Which machine-specific file was read, and why (the `plat kind=cfg_choice` record). Kept in
 * .bss until the record stream exists. */
static struct {
	char system_product[SMBIOS_IDENT_STR_MAX];
	char board_product[SMBIOS_IDENT_STR_MAX];
	char file[PATH_MAX_CHARS];  /* "" when none was read */
	const char *why;
} choice;

static void keep_message(void *ctx, const char *text)
{
	struct boot_messages *m = ctx;

	efi_con_line("baremetric: ", text);
	if (!m)
		return;
	if (m->count < BOOT_OPTIONS_MAX_MSGS)
		str_copy(m->text[m->count++], text, BOOT_OPTIONS_MSG_LEN);
	else
		m->dropped++;
}

static void warn_cb(const char *text, void *ctx)
{
	keep_message(ctx, text);
}

/* The image's file path: the PathName of every media file-path node of li->FilePath, joined with a
 * backslash (UEFI 2.10, 10.3.5.4). Other node types are skipped: the path is relative to the device. */
static UINTN image_path(const EFI_DEVICE_PATH *dp, CHAR16 *out, UINTN cap)
{
	UINTN n = 0;

	for (; dp && !IsDevicePathEnd(dp); dp = NextDevicePathNode(dp)) {
		const FILEPATH_DEVICE_PATH *f = (const FILEPATH_DEVICE_PATH *)dp;
		UINTN len = DevicePathNodeLength(dp), chars, i;

		if (len < sizeof(EFI_DEVICE_PATH))
			break; /* malformed: a zero length would never advance */
		if (DevicePathType(dp) != MEDIA_DEVICE_PATH || DevicePathSubType(dp) != MEDIA_FILEPATH_DP)
			continue;
		chars = (len - sizeof(EFI_DEVICE_PATH)) / sizeof(CHAR16);
		if (n && out[n - 1] != L'\\' && chars && f->PathName[0] != L'\\' && n + 1 < cap)
			out[n++] = L'\\';
		for (i = 0; i < chars && f->PathName[i] && n + 1 < cap; i++)
			out[n++] = f->PathName[i];
	}
	out[n] = 0;
	return n;
}

/* "\EFI\BOOT\BOOTX64.EFI" -> "\EFI\BOOT\": the folder of the image, backslashes only;
 * returns its length in characters. */
static UINTN image_dir(EFI_LOADED_IMAGE *li, CHAR16 *out, UINTN cap)
{
	UINTN n = image_path(li->FilePath, out, cap), slash = 0, i;

	for (i = 0; i < n; i++) {
		if (out[i] == L'/')
			out[i] = L'\\';
		if (out[i] == L'\\')
			slash = i + 1;
	}
	n = slash;
	if (n == 0)
		out[n++] = L'\\';
	out[n] = 0;
	return n;
}

static UINTN append_ascii(CHAR16 *out, UINTN n, UINTN cap, const char *text)
{
	for (; *text && n + 1 < cap; text++)
		out[n++] = (CHAR16)*text;
	out[n] = 0;
	return n;
}

/* "\EFI\BOOT\BOOTX64.EFI" -> "\EFI\BOOT\baremetric.cfg" */
static void config_path(EFI_LOADED_IMAGE *li, CHAR16 *out, UINTN cap)
{
	append_ascii(out, image_dir(li, out, cap), cap, CONFIG_FILE_NAME);
}

static UINTN read_file(EFI_HANDLE device, const CHAR16 *path, char *buf, UINTN cap)
{
	EFI_FILE_HANDLE root = efi_open_root(device), file = NULL;
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

/* A file longer than CONFIG_FILE_MAX: the length of its whole lines within the limit (a line is
 * never cut), with a message that the rest is not read. */
static UINTN whole_lines(const char *text, UINTN len, struct boot_messages *msgs)
{
	if (len <= CONFIG_FILE_MAX)
		return len;
	keep_message(msgs, "config file: over 16 KiB; the rest ignored");
	for (len = CONFIG_FILE_MAX; len && text[len - 1] != '\n'; len--)
		;
	return len;
}

/* The config file's text lives in pool memory for the parse only: a static buffer would be 16 KiB
 * of the .efi (gnu-efi's linker script keeps .bss in the file). One byte more than the limit is
 * read, to know a longer file. */
static void load_file(EFI_LOADED_IMAGE *li, struct config_parser *p, struct boot_messages *msgs)
{
	char *text = NULL;
	CHAR16 path[PATH_MAX_CHARS];
	char line[BOOT_OPTIONS_MSG_LEN], apath[PATH_MAX_CHARS];
	struct sbuf sb;
	UINTN len;

	config_path(li, path, PATH_MAX_CHARS);
	efi_ucs2_to_ascii(path, PATH_MAX_CHARS, apath, sizeof(apath));
	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, CONFIG_FILE_MAX + 1, (void **)&text)) ||
	    !text) {
		keep_message(msgs, "no memory to read the config file: it is ignored");
		return;
	}
	len = read_file(li->DeviceHandle, path, text, CONFIG_FILE_MAX + 1);
	if (!len) {
		CHAR16 root_path[] = L"\\" CONFIG_FILE_NAME_W;

		len = read_file(li->DeviceHandle, root_path, text, CONFIG_FILE_MAX + 1);
		if (len)
			str_copy(apath, "\\" CONFIG_FILE_NAME, sizeof(apath));
	}
	sb_init(&sb, line, sizeof(line));
	if (len) {
		sb_puts(&sb, "options from ");
		sb_puts(&sb, apath);
		keep_message(msgs, line);
		config_parse_file(p, text, whole_lines(text, len, msgs));
	} else {
		sb_puts(&sb, "no ");
		sb_puts(&sb, apath);
		sb_puts(&sb, " on the boot volume: default options");
		keep_message(msgs, line);
	}
	uefi_call_wrapper(BS->FreePool, 1, text);
}

/* A product name as a FAT long file name: the characters FAT refuses, and control ones, become '_'. */
static void file_name(const char *product, char *out, UINTN cap)
{
	static const char refused[] = "\"*/:<>?\\|";
	UINTN n = 0;

	for (; *product && n + 1 < cap; product++) {
		char c = *product;
		bool bad = c < 0x20 || c > 0x7E;

		for (const char *r = refused; *r && !bad; r++)
			bad = c == *r;
		out[n++] = bad ? '_' : c;
	}
	out[n] = 0;
}

/* Read <image folder>\cfg\<product>.cfg over the options so far (a key it sets again is its own,
 * not a repeat); false when there is no such file. */
static bool try_choice(EFI_LOADED_IMAGE *li, struct config_parser *p, struct boot_messages *msgs,
		       const char *product, const char *why, char *text)
{
	CHAR16 path[PATH_MAX_CHARS];
	char name[SMBIOS_IDENT_STR_MAX], line[BOOT_OPTIONS_MSG_LEN];
	struct sbuf sb;
	UINTN n, len;

	if (!product[0])
		return false;
	file_name(product, name, sizeof(name));
	n = append_ascii(path, image_dir(li, path, PATH_MAX_CHARS), PATH_MAX_CHARS, CHOICE_DIR);
	append_ascii(path, append_ascii(path, n, PATH_MAX_CHARS, name), PATH_MAX_CHARS, CHOICE_EXT);
	len = read_file(li->DeviceHandle, path, text, CONFIG_FILE_MAX + 1);
	if (!len)
		return false;
	efi_ucs2_to_ascii(path, PATH_MAX_CHARS, choice.file, sizeof(choice.file));
	choice.why = why;
	sb_init(&sb, line, sizeof(line));
	sb_puts(&sb, "options from ");
	sb_puts(&sb, choice.file);
	sb_puts(&sb, " over " CONFIG_FILE_NAME ": ");
	sb_puts(&sb, why);
	keep_message(msgs, line);
	for (unsigned i = 0; i < CONFIG_OPTIONS_MAX; i++)
		p->given[i] = (struct config_mark){ 0 };
	config_parse_file(p, text, whole_lines(text, len, msgs));
	return true;
}

/* The machine's own options file, named by its SMBIOS system product, else its baseboard
 * product: one stick serves a mixed fleet. */
static void load_choice(EFI_LOADED_IMAGE *li, const void *smbios_entry, struct config_parser *p,
			struct boot_messages *msgs)
{
	struct smbios_info si;
	struct smbios_ident_info id;
	char *text = NULL;

	if (!smbios_entry || smbios_parse_entry(smbios_entry, &si) != 0) {
		choice.why = smbios_entry ? "SMBIOS entry point invalid: no product to choose by" : "no SMBIOS table: no product to choose by";
		return;
	}
	if (smbios_ident(&si, SMBIOS_IDENT_SYSTEM, &id) == 0)
		str_copy(choice.system_product, id.product, sizeof(choice.system_product));
	if (smbios_ident(&si, SMBIOS_IDENT_BOARD, &id) == 0)
		str_copy(choice.board_product, id.product, sizeof(choice.board_product));
	if (!choice.system_product[0] && !choice.board_product[0]) {
		choice.why = "SMBIOS names no system or baseboard product";
		return;
	}
	if (EFI_ERROR(uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, CONFIG_FILE_MAX + 1, (void **)&text)) ||
	    !text) {
		choice.why = "no memory to read a product's options file";
		return;
	}
	if (!try_choice(li, p, msgs, choice.system_product, "its name is the SMBIOS system product (type 1)", text) &&
	    !try_choice(li, p, msgs, choice.board_product, "its name is the SMBIOS baseboard product (type 2)", text))
		choice.why = "no cfg\\<product>.cfg for the system or the baseboard product";
	uefi_call_wrapper(BS->FreePool, 1, text);
}

void boot_options_emit_choice(void)
{
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "cfg_choice");
	rec_str(r, "file", choice.file[0] ? choice.file : "none");
	rec_str(r, "why", choice.why ? choice.why : "not looked for");
	rec_str(r, "system_product", choice.system_product);
	rec_str(r, "board_product", choice.board_product);
	emit_finish();
}

void boot_options_load(EFI_HANDLE image, const void *smbios_entry, struct config *cfg,
			const char *const *known_probes, struct boot_messages *msgs)
{
	EFI_LOADED_IMAGE *li = NULL;
	struct config_parser p = { .cfg = cfg, .known_probes = known_probes, .warn = warn_cb, .warn_ctx = msgs };

	config_defaults(cfg);
	if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, image, &efi_loaded_image_guid, (void **)&li)) || !li) {
		keep_message(msgs, "no loaded-image protocol: using default options");
		return;
	}
	load_file(li, &p, msgs);
	load_choice(li, smbios_entry, &p, msgs);
	if (li->LoadOptions && li->LoadOptionsSize >= sizeof(CHAR16)) {
		char args[LOAD_OPTIONS_MAX]; /* on the stack: boot services give at least 128 KiB */

		if (efi_ucs2_to_ascii(li->LoadOptions, li->LoadOptionsSize / sizeof(CHAR16), args, sizeof(args)))
			config_parse_args(&p, args, str_len(args));
		/* otherwise: binary data from a boot entry, not a command line */
	}
}
