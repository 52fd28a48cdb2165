/* i8042 keyboard polling. The firmware leaves the controller with scan-code translation on, so
 * keyboard bytes arrive in set 1: a press is a byte below 0x80, a release has bit 7 set, and
 * the 0xE0/0xE1 prefixes and the keyboard's replies (0xFA ACK, 0xFE resend, 0xFF/0x00 errors)
 * either have bit 7 set or are 0x00. If translation were off (set 2), a release would show up
 * as 0xF0 followed by a byte below 0x80 and count as a press too, which is harmless for "wait
 * for any key": the press always comes first. */
#include "drivers/console/x86_64/i8042.h"

#include <stdint.h>

#include "arch/x86_64/io.h"

#define I8042_DATA_PORT 0x60
#define I8042_STATUS_PORT 0x64

#define I8042_STATUS_OBF 0x01u /* output buffer full: a byte is waiting at the data port */
#define I8042_STATUS_AUX 0x20u /* that byte came from the auxiliary (mouse) port */

/* Reading a port nothing decodes returns all ones: no controller behind it. */
#define I8042_STATUS_ABSENT 0xFFu

/* The controller and keyboard buffer only a handful of bytes (16 on common keyboards); allow
 * generous slack for bytes arriving while we drain, but stay bounded. */
#define I8042_FLUSH_MAX_BYTES 64

#define SCANCODE_BREAK_BIT 0x80u  /* set 1: bit 7 marks a key release (and prefixes, replies) */
#define SCANCODE_OVERRUN 0x00u    /* set 1: key detection error / buffer overrun */

bool i8042_present(void)
{
	return inb(I8042_STATUS_PORT) != I8042_STATUS_ABSENT;
}

void i8042_flush(void)
{
	for (int i = 0; i < I8042_FLUSH_MAX_BYTES; i++) {
		uint8_t status = inb(I8042_STATUS_PORT);

		if (status == I8042_STATUS_ABSENT || !(status & I8042_STATUS_OBF))
			return;
		(void)inb(I8042_DATA_PORT);
	}
}

bool i8042_key_pressed(void)
{
	uint8_t status = inb(I8042_STATUS_PORT);
	uint8_t data;

	if (status == I8042_STATUS_ABSENT || !(status & I8042_STATUS_OBF))
		return false;

	/* Read even mouse bytes: leaving them would block keyboard bytes behind them. */
	data = inb(I8042_DATA_PORT);
	if (status & I8042_STATUS_AUX)
		return false;
	return data != SCANCODE_OVERRUN && !(data & SCANCODE_BREAK_BIT);
}
