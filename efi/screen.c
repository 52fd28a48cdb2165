/* The run on the machine's own screen (see screen.h). */
/* OPT_SMALL: -Os (Makefile): the counter times a pause on the screen, after the run. */
#include "efi/screen.h"

#include "arch/cpu_info.h"
#include "arch/cycles.h"
#include "bench/core/progress.h"
#include "bench/core/summary.h"

#ifndef BUILD_ID
#define BUILD_ID "unknown"
#endif

#define STATUS_ROW 2 /* the progress's two lines, under the title and a blank line */
/* Without a calibrated counter, assume a fast one so a bounded wait is never shorter than asked. */
#define FALLBACK_COUNTER_HZ 5000000000ull
#define COLOR_TEXT 0xD0D0D0
#define COLOR_BACKGROUND 0x000000
/* The title says the verdict at a glance (and lets a test tell our screen from the firmware's). */
#define COLOR_OK 0x30D030
#define COLOR_FAIL 0xE03030
#define COLOR_TITLE 0xFFFFFF

static void draw_progress(const char *text)
{
	fbcon_goto(0, STATUS_ROW);
	for (; *text; text++) {
		if (*text == '\n')
			fbcon_clear_eol();
		fbcon_putc(*text);
	}
	fbcon_clear_eol();
}

void screen_begin(const struct fb_info *fb, bool have_fb)
{
	if (!have_fb)
		return;
	fbcon_init(fb);
	if (!fbcon_ready())
		return;
	fbcon_set_color(COLOR_TITLE, COLOR_BACKGROUND);
	fbcon_puts("baremetric " BUILD_ID " (" ARCH_NAME "): measuring; the summary follows here");
	fbcon_set_color(COLOR_TEXT, COLOR_BACKGROUND);
	progress_set_sink(draw_progress);
}

/* Lines of `text` while the cursor is above `last_row`; returns how many did not fit. */
static unsigned put_lines(const char *text, uint32_t last_row)
{
	unsigned left = 0;

	for (; *text; text++) {
		if (fbcon_row() >= last_row) {
			left += *text == '\n';
			continue;
		}
		fbcon_putc(*text);
	}
	return left;
}

void screen_summary(const struct fb_info *fb, bool have_fb, enum run_status status, const char *counter_name)
{
	static const char *const verdict[] = { "ok", "FAILED (see below)", "FATAL (stopped early)" };
	char head[SUMMARY_HEADLINE_MAX];
	uint32_t last;
	unsigned left;

	progress_set_sink(0);
	if (!have_fb)
		return;
	fbcon_init(fb); /* again: a cleared screen, and a console also when the run stopped early */
	if (!fbcon_ready())
		return;
	fbcon_set_color(status == RUN_OK ? COLOR_OK : COLOR_FAIL, COLOR_BACKGROUND);
	fbcon_puts("baremetric: run finished, status ");
	fbcon_puts(verdict[status]);
	fbcon_puts("\n\n");
	fbcon_set_color(COLOR_TEXT, COLOR_BACKGROUND);
	last = fbcon_rows() > SCREEN_FOOTER_ROWS ? fbcon_rows() - SCREEN_FOOTER_ROWS : 0;
	summary_headline(head, sizeof(head), counter_name);
	left = put_lines(head, last);
	if (fbcon_row() + 1 < last)
		fbcon_puts("\ndetails:\n");
	left += put_lines(summary_text(), last);
	if (left) {
		char line[64];
		struct sbuf sb;

		sb_init(&sb, line, sizeof(line));
		sb_puts(&sb, "(");
		sb_u64(&sb, left);
		sb_puts(&sb, " more lines: see the records)\n");
		fbcon_puts(line);
	}
}

void screen_footer(const char *text, bool alert)
{
	fbcon_set_color(alert ? COLOR_FAIL : COLOR_TEXT, COLOR_BACKGROUND);
	fbcon_puts(text);
	fbcon_putc('\n');
}

void screen_hold(uint64_t hz, uint64_t seconds, bool (*key_pressed)(void))
{
	uint64_t start = cycles_read();

	if (!hz)
		hz = FALLBACK_COUNTER_HZ;
	while (cycles_read() - start < seconds * hz) {
		if (key_pressed && key_pressed())
			return;
		cpu_relax();
	}
}
