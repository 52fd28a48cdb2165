/* 16550-compatible UART, polled, transmit only: the serial line every record leaves on. Port I/O
 * or MMIO (as ACPI SPCR may describe it). Every wait on the transmitter is bounded; a UART that
 * stops draining is declared dead and writes are dropped, so a missing cable or port never hangs
 * the run. */
#ifndef DRIVERS_UART16550_H
#define DRIVERS_UART16550_H

#include <stdbool.h>
#include <stdint.h>

enum uart_access { UART_IO, UART_MMIO8, UART_MMIO32 };

/* Register access for host tests (a register model); NULL in struct uart: the hardware. `addr` is
 * the port or address of the register (base + register x stride). */
struct uart_io {
	uint8_t (*read)(void *ctx, enum uart_access access, uint64_t addr);
	void (*write)(void *ctx, enum uart_access access, uint64_t addr, uint8_t v);
	void *ctx;
};

struct uart {
	const struct uart_io *io; /* NULL: port I/O and MMIO; set before uart_init, which keeps it */
	enum uart_access access;
	uint64_t base;
	unsigned stride; /* bytes between registers */
	bool present;
	bool dead;
	unsigned timeouts;
};

/* The PC UART's input clock: the baud rate is clock / (16 x divisor) (PC16550D data sheet,
 * "Programmable Baud Generator" and its table of baud rates for a 1.8432 MHz crystal), so divisor 1
 * gives 115200. Faster rates need a UART with a faster clock (14.7456 MHz for 921600). */
#define UART_CLOCK_PC_HZ 1843200u
#define UART_SAMPLES_PER_BIT 16u
#define UART_DIVISOR_MAX 0xFFFFu
/* How far the rate made may be from the one asked for. Both ends sample each bit mid-way, so over
 * the 10 bits of a frame their clocks may differ by under half a bit, 5%; the usual design rule
 * gives each end 2% of it (the PC16550D's own divisor table lists rates 2.86% off, e.g. 56000 on
 * 1.8432 MHz: not accepted here). */
#define UART_BAUD_TOLERANCE_PERMILLE 20u

/* The divisor latch value for `baud` on a UART clocked at clock_hz: the nearest whole divisor,
 * accepted when clock / (16 x divisor) is within UART_BAUD_TOLERANCE_PERMILLE of `baud` (exact
 * for 115200 / k on the PC clock). Returns false when there is none: a rate above clock / 16, one
 * the clock cannot divide down to closely enough, or a divisor past 0xFFFF. */
bool uart_baud_divisor(uint32_t clock_hz, uint32_t baud, uint16_t *divisor);
/* Probe and program the UART (8N1, FIFOs on; the divisor latch when `divisor` is not 0, else it
 * stays as the firmware set it). Returns false (and marks it absent) when nothing answers at
 * `base`. */
bool uart_init(struct uart *u, enum uart_access access, uint64_t base, unsigned stride, uint16_t divisor);
void uart_write(struct uart *u, const char *s, unsigned len);
/* Wait (bounded) until everything written has left the shift register. */
void uart_drain(struct uart *u);

#endif
