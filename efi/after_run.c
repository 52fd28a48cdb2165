/* The end of an unattended run (see after_run.h). */
#include "efi/after_run.h"

#include <efilib.h>

#include "efi/efi_util.h"
#include "lib/emit.h"
#include "lib/fmt.h"

/* UEFI 2.10, 3.3 "Globally Defined Variables": BootOrder, BootCurrent, BootNext, Boot####. */
static EFI_GUID global_vars = { 0x8BE4DF61, 0x93CA, 0x11D2, { 0xAA, 0x0D, 0x00, 0xE0, 0x98, 0x03, 0x2B, 0x8C } };
#define VAR_ATTRS_BOOT (EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS)
/* EFI_LOAD_OPTION (UEFI 2.10, 3.1.3): UINT32 Attributes, UINT16 FilePathListLength, then the
 * description (CHAR16, NUL-terminated). */
#define LOAD_OPTION_ACTIVE_BIT 0x00000001u
#define LOAD_OPTION_HIDDEN_BIT 0x00000008u
#define LOAD_OPTION_CATEGORY_MASK 0x00001F00u
#define LOAD_OPTION_CATEGORY_BOOT_VAL 0x00000000u
#define LOAD_OPTION_DESC_OFFSET 6
#define BOOT_ORDER_MAX 64
#define LOAD_OPTION_MAX 1024
#define DESC_MAX 64

static bool boot_next_set; /* after=boot-os took: reset into it; otherwise power off */
static after_run_write_fn console_write;

static EFI_STATUS get_var(EFI_RUNTIME_SERVICES *rt, CHAR16 *name, void *buf, UINTN *size)
{
	UINT32 attrs = 0;

	return uefi_call_wrapper(rt->GetVariable, 5, name, &global_vars, &attrs, size, buf);
}

/* L"Boot####" for option number n (upper-case hex, as UEFI names them). */
static void option_name(UINT16 n, CHAR16 out[9])
{
	static const char hex[] = "0123456789ABCDEF";

	out[0] = L'B', out[1] = L'o', out[2] = L'o', out[3] = L't';
	for (int i = 0; i < 4; i++)
		out[4 + i] = (CHAR16)hex[(n >> (12 - 4 * i)) & 0xF];
	out[8] = 0;
}

/* Whether Boot#### is an active, visible boot (not application) option; its description in desc. */
static bool bootable(EFI_RUNTIME_SERVICES *rt, UINT16 n, char *desc, UINTN cap)
{
	UINT8 opt[LOAD_OPTION_MAX];
	CHAR16 name[9];
	UINTN size = sizeof(opt);
	UINT32 attrs;

	option_name(n, name);
	desc[0] = 0;
	if (EFI_ERROR(get_var(rt, name, opt, &size)) || size < LOAD_OPTION_DESC_OFFSET + sizeof(CHAR16))
		return false;
	attrs = (UINT32)opt[0] | (UINT32)opt[1] << 8 | (UINT32)opt[2] << 16 | (UINT32)opt[3] << 24;
	efi_ucs2_to_ascii((const CHAR16 *)(opt + LOAD_OPTION_DESC_OFFSET), (size - LOAD_OPTION_DESC_OFFSET) / sizeof(CHAR16),
			  desc, cap);
	return (attrs & LOAD_OPTION_ACTIVE_BIT) && !(attrs & LOAD_OPTION_HIDDEN_BIT) &&
	       (attrs & LOAD_OPTION_CATEGORY_MASK) == LOAD_OPTION_CATEGORY_BOOT_VAL;
}

static void emit_after(const struct config *cfg, const char *status, const char *why, int current, int next,
		       const char *desc)
{
	static const char *const modes[] = { "poweroff", "reboot", "boot-os", "hold" };
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "after");
	rec_str(r, "mode", modes[cfg->after]);
	rec_str(r, "status", status);
	if (why)
		rec_str(r, "why", why);
	if (current >= 0)
		rec_hex(r, "boot_current", (uint64_t)current);
	if (next >= 0) {
		rec_hex(r, "boot_next", (uint64_t)next);
		rec_str(r, "boot_next_desc", desc);
	}
	emit_finish();
}

/* BootNext = the first active boot option of BootOrder that is not BootCurrent (this stick). */
static void set_boot_next(const struct config *cfg, EFI_RUNTIME_SERVICES *rt)
{
	UINT16 order[BOOT_ORDER_MAX], current = 0;
	UINTN size = sizeof(current), count, i;
	char desc[DESC_MAX];

	if (!rt || EFI_ERROR(get_var(rt, L"BootCurrent", &current, &size)) || size != sizeof(current)) {
		emit_after(cfg, "failed", "no BootCurrent: cannot tell this boot's option from the others", -1, -1, 0);
		return;
	}
	size = sizeof(order);
	if (EFI_ERROR(get_var(rt, L"BootOrder", order, &size)) || size < sizeof(UINT16)) {
		emit_after(cfg, "failed", "no BootOrder", current, -1, 0);
		return;
	}
	count = size / sizeof(UINT16);
	for (i = 0; i < count; i++) {
		if (order[i] == current || !bootable(rt, order[i], desc, sizeof(desc)))
			continue;
		if (EFI_ERROR(uefi_call_wrapper(rt->SetVariable, 5, L"BootNext", &global_vars, VAR_ATTRS_BOOT,
						sizeof(UINT16), &order[i]))) {
			emit_after(cfg, "failed", "SetVariable(BootNext) refused", current, order[i], desc);
			return;
		}
		boot_next_set = true;
		emit_after(cfg, "set", 0, current, order[i], desc);
		return;
	}
	emit_after(cfg, "failed", "BootOrder has no other active boot option", current, -1, 0);
}

void after_run_prepare(const struct config *cfg, EFI_RUNTIME_SERVICES *rt)
{
	if (cfg->after != AFTER_BOOT_OS) {
		emit_after(cfg, "ok", 0, -1, -1, 0);
		return;
	}
	set_boot_next(cfg, rt);
	if (!boot_next_set)
		emit_msg(MSG_WARN, "after=boot-os: no BootNext set, so the machine powers off instead of rebooting into this stick");
}

enum after_action after_run_action(const struct config *cfg)
{
	switch (cfg->after) {
	case AFTER_REBOOT:
		return AFTER_ACT_RESET;
	case AFTER_BOOT_OS:
		return boot_next_set ? AFTER_ACT_RESET : AFTER_ACT_POWEROFF;
	case AFTER_HOLD:
		return AFTER_ACT_HALT;
	default:
		return AFTER_ACT_POWEROFF;
	}
}

const char *after_run_verb(const struct config *cfg)
{
	static const char *const verbs[] = { "Powering off", "Restarting", "Halting" };

	return verbs[after_run_action(cfg)];
}

void after_run_set_console(after_run_write_fn write)
{
	console_write = write;
}

void after_run_done(void)
{
	if (console_write)
		console_write(AFTER_RUN_DONE_LINE "\r\n", sizeof(AFTER_RUN_DONE_LINE "\r\n") - 1);
}
