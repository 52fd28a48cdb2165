/* Reading the run options before ExitBootServices: the config file next to the binary on the boot
 * volume, then the machine's own file (cfg\<SMBIOS system product>.cfg, else
 * cfg\<baseboard product>.cfg, in the same folder), then the load options (a UEFI shell command
 * line); each later one overrides the earlier. */
#ifndef EFI_BOOT_OPTIONS_H
#define EFI_BOOT_OPTIONS_H

#include <efi.h>

#include "bench/core/options.h"

#define BOOT_OPTIONS_MAX_MSGS 16
#define BOOT_OPTIONS_MSG_LEN 200

struct boot_messages {
	unsigned count;
	unsigned dropped;
	char text[BOOT_OPTIONS_MAX_MSGS][BOOT_OPTIONS_MSG_LEN];
};

/* Fills cfg (defaults first); messages (warnings, what was read from where) are kept in msgs to
 * be emitted once the serial stream exists (msgs NULL: not kept), and printed on the console right
 * away. smbios_entry (NULL: none) names the machine for its own file. */
void boot_options_load(EFI_HANDLE image, const void *smbios_entry, struct config *cfg,
			const char *const *known_probes, struct boot_messages *msgs);
/* The `plat kind=cfg_choice` record: which machine-specific file was read and why, or why none. */
void boot_options_emit_choice(void);

#endif
