/* Text console on a linear 32-bit framebuffer: shows the run's progress and its closing summary
 * on screen after ExitBootServices, for a user who has no serial cable (every CPU: the
 * framebuffer is memory). The framebuffer is described by what UEFI GOP reported before boot
 * services were left; nothing here calls firmware. */
#ifndef DRIVERS_FBCON_H
#define DRIVERS_FBCON_H

#include <stdint.h>

/* Byte order of one 32-bit pixel in memory (GOP PixelRedGreenBlueReserved8BitPerColor and
 * PixelBlueGreenRedReserved8BitPerColor). Bit-mask and Blt-only modes are not supported. */
enum fb_format { FB_FORMAT_RGBX8888, FB_FORMAT_BGRX8888 };

struct fb_info {
	uint64_t base;      /* physical = virtual address of pixel (0, 0) */
	uint32_t width;     /* visible pixels per line */
	uint32_t height;    /* visible lines */
	uint32_t stride_px; /* pixels from one line to the next (>= width) */
	enum fb_format format;
};

/* Colours are given as 0xRRGGBB whatever the framebuffer's byte order. */
#define FBCON_COLOR_BLACK 0x000000u
#define FBCON_COLOR_GREY 0xC0C0C0u
#define FBCON_COLOR_WHITE 0xFFFFFFu
#define FBCON_COLOR_RED 0xFF5050u
#define FBCON_COLOR_GREEN 0x50FF50u
#define FBCON_COLOR_YELLOW 0xFFFF50u

/* Take over the framebuffer, clear it to black and home the cursor (grey on black). An
 * unusable description (no base, smaller than one character cell, stride < width, unknown
 * format) leaves the console not ready, and every output call then does nothing. */
void fbcon_init(const struct fb_info *fb);
int fbcon_ready(void);

/* '\n' starts a new line (and returns to column 0), '\r' returns to column 0, '\t' advances to
 * the next multiple of 8 columns, '\b' moves one column left. Long lines wrap; output past the
 * last row scrolls the screen up. Characters outside printable ASCII are drawn as '?'. */
void fbcon_putc(char c);
void fbcon_puts(const char *s);

/* Move the cursor to a text cell (ignored outside the screen or when not ready). */
void fbcon_goto(uint32_t col, uint32_t row);
/* Blank from the cursor to the end of its line (background colour); the cursor stays. */
void fbcon_clear_eol(void);
/* Text rows on the screen (0 when not ready) and the cursor's row. */
uint32_t fbcon_rows(void);
uint32_t fbcon_row(void);

/* Colours for the characters written from now on; what is on screen keeps its colours. */
void fbcon_set_color(uint32_t fg_rgb, uint32_t bg_rgb);

#endif
