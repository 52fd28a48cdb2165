/* Framebuffer text console: 8x16 glyphs from the generated font8x16.h drawn into a 32-bit
 * linear framebuffer, with a cursor, line wrap and scrolling. There is no shadow text buffer:
 * scrolling copies pixel rows inside the framebuffer. Reading video memory is slow on real
 * hardware, so the screen's users place their text (fbcon_goto) instead of scrolling. The same
 * code for every CPU: the framebuffer is plain memory to it (OVMF's VGA BAR, AAVMF's ramfb). */
#include "drivers/console/fbcon.h"

#include <stdbool.h>
#include <stddef.h>

#include "font8x16.h"

#define FB_BYTES_PER_PIXEL 4u
#define FBCON_TAB_WIDTH 8u
#define GLYPH_ROW_LEFTMOST_BIT 0x80u /* bit 7 of a font row is the leftmost pixel */

/* 0xRRGGBB input colour and the two 32-bit pixel layouts (little-endian dwords). */
#define RGB_RED_SHIFT 16
#define RGB_GREEN_SHIFT 8
#define RGB_BLUE_SHIFT 0
#define RGB_CHANNEL_MASK 0xFFu
/* BGRX: byte 0 blue, byte 1 green, byte 2 red -> dword 0x00RRGGBB, same as the input. */
/* RGBX: byte 0 red, byte 1 green, byte 2 blue -> dword 0x00BBGGRR. */
#define RGBX_RED_SHIFT 0
#define RGBX_GREEN_SHIFT 8
#define RGBX_BLUE_SHIFT 16

static struct {
	bool ready;
	struct fb_info fb;
	uint32_t cols, rows; /* text cells that fit completely on the screen */
	uint32_t col, row;   /* cursor; col == cols means "wrap before the next character" */
	uint32_t fg, bg;     /* pixel values in the framebuffer's own format */
} con;

static uint32_t rgb_to_pixel(uint32_t rgb)
{
	uint32_t r = (rgb >> RGB_RED_SHIFT) & RGB_CHANNEL_MASK;
	uint32_t g = (rgb >> RGB_GREEN_SHIFT) & RGB_CHANNEL_MASK;
	uint32_t b = (rgb >> RGB_BLUE_SHIFT) & RGB_CHANNEL_MASK;

	if (con.fb.format == FB_FORMAT_RGBX8888)
		return (r << RGBX_RED_SHIFT) | (g << RGBX_GREEN_SHIFT) | (b << RGBX_BLUE_SHIFT);
	return (r << RGB_RED_SHIFT) | (g << RGB_GREEN_SHIFT) | (b << RGB_BLUE_SHIFT);
}

/* Volatile accesses: the stores must reach video memory, and plain loops could be turned into
 * memset/memcpy calls this freestanding image lacks. No barrier per pixel (a device-register
 * write would carry one on AArch64): the picture only has to appear, not in order. */
static inline void fb_write(uintptr_t a, uint32_t v)
{
	*(volatile uint32_t *)a = v;
}

static inline uint32_t fb_read(uintptr_t a)
{
	return *(volatile uint32_t *)a;
}

static uintptr_t pixel_addr(uint32_t x, uint32_t y)
{
	return (uintptr_t)(con.fb.base + ((uint64_t)y * con.fb.stride_px + x) * FB_BYTES_PER_PIXEL);
}

static void fill_rect(uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, uint32_t pixel)
{
	for (uint32_t y = y0; y < y0 + h; y++) {
		uintptr_t p = pixel_addr(x0, y);

		for (uint32_t x = 0; x < w; x++, p += FB_BYTES_PER_PIXEL)
			fb_write(p, pixel);
	}
}

static void draw_glyph(uint32_t col, uint32_t row, char c)
{
	unsigned char uc = (unsigned char)c;
	const uint8_t *glyph;

	if (uc < FONT_FIRST_CHAR || uc > FONT_LAST_CHAR)
		uc = '?';
	glyph = font8x16[uc - FONT_FIRST_CHAR];

	for (uint32_t gy = 0; gy < FONT_HEIGHT; gy++) {
		uintptr_t p = pixel_addr(col * FONT_WIDTH, row * FONT_HEIGHT + gy);
		uint8_t bits = glyph[gy];

		for (uint32_t gx = 0; gx < FONT_WIDTH; gx++, p += FB_BYTES_PER_PIXEL)
			fb_write(p, (bits & (GLYPH_ROW_LEFTMOST_BIT >> gx)) ? con.fg : con.bg);
	}
}

/* Move text rows 1..rows-1 up by one and blank the last row in the current background. */
static void scroll_up(void)
{
	uint32_t text_px_h = con.rows * FONT_HEIGHT;

	for (uint32_t y = FONT_HEIGHT; y < text_px_h; y++) {
		uintptr_t src = pixel_addr(0, y);
		uintptr_t dst = pixel_addr(0, y - FONT_HEIGHT);

		for (uint32_t x = 0; x < con.fb.width; x++) {
			fb_write(dst, fb_read(src));
			src += FB_BYTES_PER_PIXEL;
			dst += FB_BYTES_PER_PIXEL;
		}
	}
	fill_rect(0, text_px_h - FONT_HEIGHT, con.fb.width, FONT_HEIGHT, con.bg);
}

static void newline(void)
{
	con.col = 0;
	if (con.row + 1 < con.rows)
		con.row++;
	else
		scroll_up();
}

static void put_printable(char c)
{
	if (con.col >= con.cols)
		newline();
	draw_glyph(con.col, con.row, c);
	con.col++;
}

void fbcon_init(const struct fb_info *fb)
{
	con.ready = false;
	if (!fb || !fb->base || fb->width < FONT_WIDTH || fb->height < FONT_HEIGHT ||
	    fb->stride_px < fb->width ||
	    (fb->format != FB_FORMAT_RGBX8888 && fb->format != FB_FORMAT_BGRX8888))
		return;

	con.fb = *fb;
	con.cols = fb->width / FONT_WIDTH;
	con.rows = fb->height / FONT_HEIGHT;
	con.col = 0;
	con.row = 0;
	con.fg = rgb_to_pixel(FBCON_COLOR_GREY);
	con.bg = rgb_to_pixel(FBCON_COLOR_BLACK);
	fill_rect(0, 0, fb->width, fb->height, con.bg);
	con.ready = true;
}

int fbcon_ready(void)
{
	return con.ready;
}

void fbcon_set_color(uint32_t fg_rgb, uint32_t bg_rgb)
{
	if (!con.ready)
		return;
	con.fg = rgb_to_pixel(fg_rgb);
	con.bg = rgb_to_pixel(bg_rgb);
}

void fbcon_putc(char c)
{
	if (!con.ready)
		return;

	switch (c) {
	case '\n':
		newline();
		break;
	case '\r':
		con.col = 0;
		break;
	case '\b':
		if (con.col > 0)
			con.col--;
		break;
	case '\t':
		/* Blank up to the next tab stop; at the right edge the tab ends the line. */
		if (con.col >= con.cols) {
			newline();
			break;
		}
		do
			put_printable(' ');
		while (con.col % FBCON_TAB_WIDTH != 0 && con.col < con.cols);
		break;
	default:
		put_printable(c);
		break;
	}
}

void fbcon_goto(uint32_t col, uint32_t row)
{
	if (!con.ready || col >= con.cols || row >= con.rows)
		return;
	con.col = col;
	con.row = row;
}

void fbcon_clear_eol(void)
{
	if (con.ready && con.col < con.cols)
		fill_rect(con.col * FONT_WIDTH, con.row * FONT_HEIGHT, (con.cols - con.col) * FONT_WIDTH,
			  FONT_HEIGHT, con.bg);
}

uint32_t fbcon_rows(void)
{
	return con.ready ? con.rows : 0;
}

uint32_t fbcon_row(void)
{
	return con.row;
}

void fbcon_puts(const char *s)
{
	if (!s)
		return;
	while (*s)
		fbcon_putc(*s++);
}
