/* End of run: on-screen summary and power-off (see finish.h). */
#include "efi/x86_64/finish.h"

#include "arch/x86_64/cpu.h"
#include "bench/core/summary.h"
#include "drivers/console/x86_64/i8042.h"
#include "drivers/fw/x86_64/power.h"
#include "efi/after_run.h"
#include "efi/save.h"
#include "efi/screen.h"
#include "lib/fmt.h"

static struct finish_ctx *saved;

/* The serial port as the results' destination on the screen, when one answered. */
static void name_serial(const struct finish_ctx *c)
{
	char text[SUMMARY_DEST_MAX];
	struct sbuf sb;

	if (!c->uart || !c->uart->present)
		return;
	sb_init(&sb, text, sizeof(text));
	sb_puts(&sb, "serial ");
	sb_hex(&sb, c->uart->base);
	sb_puts(&sb, c->uart->access == UART_IO ? " (I/O port)" : " (MMIO)");
	if (c->baud) {
		sb_puts(&sb, " at ");
		sb_u64(&sb, c->baud);
		sb_puts(&sb, " baud");
	}
	summary_destination(text);
}

void finish_set_ctx(struct finish_ctx *ctx)
{
	saved = ctx;
	name_serial(ctx);
}

void finish_exit(enum run_status status)
{
	finish(saved, status);
}

/* The closing lines and the wait: hold_s, wait_key, or, when the screen holds the only copy of
 * the results and hold_s does not say how long to keep it, until a key (all bounded; a key ends
 * them early). */
static void show_and_hold(struct finish_ctx *c, enum run_status status)
{
	bool lost, kbd = i8042_present();
	uint64_t hold;
	char line[80];
	struct sbuf sb;

	screen_summary(&c->fb, c->have_fb, status, "TSC");
	lost = summary_only_copy() && fbcon_rows();
	hold = c->cfg->wait_key || (lost && !c->cfg->hold_s) ? CONFIG_WAIT_KEY_MAX_S : c->cfg->hold_s;
	if (lost)
		screen_footer("No serial port answered and nothing was saved: this screen is the only copy.", true);
	sb_init(&sb, line, sizeof(line));
	if (c->cfg->after == AFTER_HOLD) {
		hold = 0; /* after=hold: the machine stays, halted, with this screen */
		sb_puts(&sb, "Run over (after=hold): halted; power the machine off by hand.");
	} else if (hold == CONFIG_WAIT_KEY_MAX_S) {
		sb_puts(&sb, kbd ? "Press a key to power off (an hour without one powers off)."
				 : "No keyboard controller: powering off in an hour.");
		if (after_run_action(c->cfg) == AFTER_ACT_RESET)
			sb_puts(&sb, " (after=: a restart)");
	} else if (hold) {
		sb_puts(&sb, after_run_verb(c->cfg));
		sb_puts(&sb, " in ");
		sb_u64(&sb, hold);
		sb_puts(&sb, after_run_action(c->cfg) == AFTER_ACT_RESET ? " s (a key restarts now)." : " s (a key powers off now).");
	} else {
		sb_puts(&sb, after_run_verb(c->cfg));
		sb_putc(&sb, '.');
	}
	screen_footer(line, lost);
	if (!hold)
		return;
	if (kbd)
		i8042_flush();
	screen_hold(c->env ? c->env->counter_hz : 0, hold, kbd ? i8042_key_pressed : 0);
}

void finish(struct finish_ctx *c, enum run_status status)
{
	enum shutdown_mode mode = c->cfg->shutdown;

	save_close();
	after_run_done(); /* after the end record and the stick copy: everything is out */
	if (c->uart)
		uart_drain(c->uart);
	show_and_hold(c, status);

	if (after_run_action(c->cfg) == AFTER_ACT_HALT)
		cpu_halt_forever();
	if (after_run_action(c->cfg) == AFTER_ACT_RESET)
		mode = SHUTDOWN_RESET; /* after=reboot, boot-os: the firmware boots BootNext or BootOrder */
	if (mode == SHUTDOWN_DEBUG_EXIT || (mode == SHUTDOWN_AUTO && c->hypervisor))
		power_debug_exit((uint16_t)c->cfg->debug_exit_port, (uint32_t)status);
	if (mode == SHUTDOWN_AUTO || mode == SHUTDOWN_DEBUG_EXIT || mode == SHUTDOWN_ACPI)
		power_acpi_s5(c->acpi);
	if (mode != SHUTDOWN_HALT)
		power_reset(c->acpi);
	cpu_halt_forever();
}
