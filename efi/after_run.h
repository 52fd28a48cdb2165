/* How a run ends for a machine nobody watches (after= in bench/core/options.def): the done line a
 * console reader waits for, and where the machine goes next. boot-os needs UEFI variables, so its
 * BootNext is set while boot services are up (after_run_prepare); the finish of each architecture
 * asks after_run_action what to do once the records are out. */
#ifndef EFI_AFTER_RUN_H
#define EFI_AFTER_RUN_H

#include <efi.h>

#include "bench/core/options.h"

/* The one line the firmware writes on the serial console when the run is over, after the `end`
 * record and the stick copy, before any wait on screen and before it powers off, resets or halts.
 * A reader of the console (a BMC's Serial-over-LAN) waits for a line equal to it (docs/fleet.md).
 * It never changes: a reader keys on it. */
#define AFTER_RUN_DONE_LINE "baremetric: done"

enum after_action {
	AFTER_ACT_POWEROFF, /* as shutdown= says */
	AFTER_ACT_RESET,
	AFTER_ACT_HALT,
};

/* Before ExitBootServices, with the serial stream up: for after=boot-os set BootNext to the first
 * active boot option of BootOrder other than BootCurrent; a `plat kind=after` record says what
 * was set (or why nothing was: the run then powers off). rt: the runtime services. */
void after_run_prepare(const struct config *cfg, EFI_RUNTIME_SERVICES *rt);
/* What the finish does (after_run_prepare's outcome included). */
enum after_action after_run_action(const struct config *cfg);
/* The verb of the screen's closing line: "Powering off", "Restarting", "Halting". */
const char *after_run_verb(const struct config *cfg);
/* Where the done line goes: the serial console's writer (efi_arch_serial_write), set once the
 * port is up; never the record stream or the stick copy. */
typedef void (*after_run_write_fn)(const char *text, unsigned len);
void after_run_set_console(after_run_write_fn write);
/* Write the done line (nothing before after_run_set_console). */
void after_run_done(void);

#endif
