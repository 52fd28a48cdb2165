/* Arm PL011 UART (and SBSA's generic UART, its subset), polled, transmit only: the serial line of
 * the AArch64 build. The firmware has programmed it (baud, 8N1) and keeps it mapped after
 * ExitBootServices; we only check it is enabled and write. Every wait on the transmitter is
 * bounded by the generic timer; a UART that stops draining is declared dead and writes are
 * dropped, so a missing port never hangs the run. */
#ifndef DRIVERS_PL011_H
#define DRIVERS_PL011_H

#include <stdbool.h>
#include <stdint.h>

#define PL011_QEMU_VIRT_BASE 0x09000000ull /* QEMU -machine virt's UART0 when no SPCR says */

struct pl011 {
	uint64_t base;
	uint64_t wait_ticks; /* bound of one wait on the transmitter, in counter ticks */
	bool present;
	bool dead;
	unsigned timeouts;
	bool sbsa;         /* SBSA generic UART: no UARTCR (nor IBRD/FBRD/LCR_H); never touched */
	uint32_t cr_found; /* UARTCR as the firmware left it (PL011 only) */
};

/* counter_hz: the rate of the counter the waits are bounded by (0: assume a fast one). sbsa: an
 * SBSA generic UART, which has no UARTCR: taken as enabled (the firmware's console), only DR and
 * FR are used. Returns false (and marks it absent) when a PL011 is not enabled for transmission. */
bool pl011_init(struct pl011 *u, uint64_t base, uint64_t counter_hz, bool sbsa);
void pl011_write(struct pl011 *u, const char *s, unsigned len);
/* Wait (bounded) until everything written has left the shift register. */
void pl011_drain(struct pl011 *u);

#endif
