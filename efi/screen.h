/* The run on the machine's own screen (the GOP framebuffer, every CPU), for a user without a
 * serial cable: from the take-over on a title and a status area that the progress
 * (bench/core/progress.h) redraws at every sample-set boundary; at the end the headline summary
 * (bench/core/summary.h), the details as far as they fit, and the finish's closing lines.
 * Without a usable framebuffer every call draws nothing. */
#ifndef EFI_SCREEN_H
#define EFI_SCREEN_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/core/suite.h"
#include "drivers/console/fbcon.h"

/* After ExitBootServices, before the probes: clear the screen, draw the title, show progress. */
void screen_begin(const struct fb_info *fb, bool have_fb);
/* The closing summary from the top of a cleared screen (also when screen_begin never ran: a run
 * stopped early); counter_name as for summary_headline. Leaves SCREEN_FOOTER_ROWS rows free at
 * the bottom for screen_footer. */
void screen_summary(const struct fb_info *fb, bool have_fb, enum run_status status, const char *counter_name);
/* One closing line (e.g. "Powering off."), in the alert colour when asked. */
void screen_footer(const char *text, bool alert);
/* Wait `seconds` by the counter (hz 0: assume a fast one, so never shorter), ending early when
 * key_pressed (may be NULL: no keyboard) says so. */
void screen_hold(uint64_t hz, uint64_t seconds, bool (*key_pressed)(void));

#define SCREEN_FOOTER_ROWS 4

#endif
