/* The end of a run: show the summary on screen for a user without a serial cable (efi/screen.h;
 * held for hold_s, or until a key with wait_key or when no serial port answered and nothing was
 * saved, always bounded), then leave the machine the configured way — isa-debug-exit under QEMU
 * so a test can read the status, else ACPI S5, else reset, else halt. */
#ifndef EFI_FINISH_H
#define EFI_FINISH_H

#include "bench/core/probe.h"
#include "bench/core/suite.h"
#include "drivers/fw/acpi.h"
#include "drivers/console/fbcon.h"
#include "drivers/serial/uart16550.h"

struct finish_ctx {
	const struct config *cfg;
	const struct acpi_info *acpi;
	const struct probe_env *env; /* for the TSC frequency that bounds waits */
	struct uart *uart;
	unsigned baud; /* the serial port's rate as programmed, 0 = as the firmware left it */
	bool have_fb;
	struct fb_info fb;
	bool hypervisor;
};

/* Also names the serial port, when one answered, as where the results go (summary.h). */
void finish_set_ctx(struct finish_ctx *ctx);
void finish(struct finish_ctx *ctx, enum run_status status) __attribute__((noreturn));
/* For the suite's fatal path: finish with the context set by finish_set_ctx(). */
void finish_exit(enum run_status status) __attribute__((noreturn));

#endif
