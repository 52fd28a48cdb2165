/* 16550-compatible UART, polled, transmit only: the serial line every record leaves on. Port I/O
 * or MMIO (as ACPI SPCR may describe it). Every wait on the transmitter is bounded; a UART that
 * stops draining is declared dead and writes are dropped, so a missing cable or port never hangs
 * the run. */
#ifndef DRIVERS_UART16550_H
#define DRIVERS_UART16550_H

#include <stdbool.h>
#include <stdint.h>

enum uart_access { UART_IO, UART_MMIO8, UART_MMIO32 };

struct uart {
	enum uart_access access;
	uint64_t base;
	unsigned stride; /* bytes between registers */
	bool present;
	bool dead;
	unsigned timeouts;
};

/* Probe and program the UART (8N1, FIFOs on). baud 0 leaves the divisor as firmware set it.
 * Returns false (and marks it absent) when nothing answers at `base`. */
bool uart_init(struct uart *u, enum uart_access access, uint64_t base, unsigned stride, unsigned baud);
void uart_write(struct uart *u, const char *s, unsigned len);
/* Wait (bounded) until everything written has left the shift register. */
void uart_drain(struct uart *u);

#endif
