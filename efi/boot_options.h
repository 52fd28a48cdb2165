/* Reading the run options before ExitBootServices: the config file next to the binary on the boot
 * volume, then the load options (a UEFI shell command line), which override it. */
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
 * away. */
void boot_options_load(EFI_HANDLE image, struct config *cfg, const char *const *known_probes,
		       struct boot_messages *msgs);

#endif
