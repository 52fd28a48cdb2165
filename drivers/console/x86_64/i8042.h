/* Polled PS/2 keyboard check on the legacy i8042 controller, so the on-screen summary can wait
 * for a key after ExitBootServices (no firmware input protocols any more, no interrupts). It only
 * answers "was a key pressed"; it does not decode keys or reprogram the controller. */
#ifndef DRIVERS_I8042_H
#define DRIVERS_I8042_H

#include <stdbool.h>

/* False on legacy-free machines, where the status port floats and reads 0xFF. */
bool i8042_present(void);

/* Discard whatever the controller has buffered (stale keystrokes, ACKs, mouse packets). Reads at
 * most a fixed number of bytes, so a stuck status bit cannot hang the caller. */
void i8042_flush(void);

/* Non-blocking: true if the controller held a keyboard byte that is a key press (make code).
 * Consumes at most one byte; break codes, prefixes, controller replies and mouse data are
 * dropped and answer false. Call it in a loop with the caller's own bound or timeout. */
bool i8042_key_pressed(void);

#endif
