/* End of run: on-screen summary and power-off (see finish.h). */
#include "efi/x86_64/finish.h"

#include "arch/cycles.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/io.h"
#include "bench/core/summary.h"
#include "drivers/console/x86_64/i8042.h"
#include "drivers/fw/x86_64/power.h"
#include "efi/save.h"
#include "lib/fmt.h"

/* Without a calibrated TSC, assume a fast clock so a bounded wait is never shorter than asked. */
#define FALLBACK_COUNTER_HZ 5000000000ull
#define COLOR_TEXT 0xD0D0D0
#define COLOR_BACKGROUND 0x000000
/* The title line says the verdict at a glance (and lets a test tell our screen from OVMF's). */
#define COLOR_OK 0x30D030
#define COLOR_FAIL 0xE03030

static struct finish_ctx *saved;

void finish_set_ctx(struct finish_ctx *ctx)
{
	saved = ctx;
}

void finish_exit(enum run_status status)
{
	finish(saved, status);
}

/* Wait up to `seconds`, ending early on a key press when `any_key`. */
static void wait_bounded(const struct finish_ctx *c, uint64_t seconds, bool any_key)
{
	uint64_t hz = c->env && c->env->counter_hz ? c->env->counter_hz : FALLBACK_COUNTER_HZ;
	uint64_t start = cycles_read();
	bool kbd = any_key && i8042_present();

	if (kbd)
		i8042_flush();
	while (cycles_read() - start < seconds * hz) {
		if (kbd && i8042_key_pressed())
			return;
		cpu_relax();
	}
}

static void show_summary(struct finish_ctx *c, enum run_status status)
{
	char line[96];
	struct sbuf sb;

	if (!c->have_fb)
		return;
	fbcon_init(&c->fb);
	fbcon_set_color(status == RUN_OK ? COLOR_OK : COLOR_FAIL, COLOR_BACKGROUND);
	fbcon_puts(status == RUN_OK ? "baremetric: run finished, status ok\n\n"
				    : "baremetric: run finished, status FAILED (see below)\n\n");
	fbcon_set_color(COLOR_TEXT, COLOR_BACKGROUND);
	fbcon_puts(summary_text());
	sb_init(&sb, line, sizeof(line));
	if (c->cfg->wait_key) {
		sb_puts(&sb, "\nPress a key to power off.\n");
	} else if (c->cfg->hold_s) {
		sb_puts(&sb, "\nPowering off in ");
		sb_u64(&sb, c->cfg->hold_s);
		sb_puts(&sb, " s (a key powers off now).\n");
	} else {
		sb_puts(&sb, "\nPowering off.\n");
	}
	fbcon_puts(line);
}

void finish(struct finish_ctx *c, enum run_status status)
{
	enum shutdown_mode mode = c->cfg->shutdown;

	save_close();
	if (c->uart)
		uart_drain(c->uart);
	show_summary(c, status);
	if (c->cfg->wait_key)
		wait_bounded(c, CONFIG_WAIT_KEY_MAX_S, true);
	else if (c->cfg->hold_s)
		wait_bounded(c, c->cfg->hold_s, true);

	if (mode == SHUTDOWN_DEBUG_EXIT || (mode == SHUTDOWN_AUTO && c->hypervisor))
		power_debug_exit((uint16_t)c->cfg->debug_exit_port, (uint32_t)status);
	if (mode == SHUTDOWN_AUTO || mode == SHUTDOWN_DEBUG_EXIT || mode == SHUTDOWN_ACPI)
		power_acpi_s5(c->acpi);
	if (mode != SHUTDOWN_HALT)
		power_reset(c->acpi);
	cpu_halt_forever();
}
