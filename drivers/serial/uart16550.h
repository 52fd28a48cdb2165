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

/* The divisor latch value giving exactly `baud` on a UART clocked at clock_hz. Returns false when
 * there is none: clock / (16 x baud) not a whole number in 1..0xFFFF (a rate above clock / 16, or
 * one the clock cannot divide down to exactly). */
bool uart_baud_divisor(uint32_t clock_hz, uint32_t baud, uint16_t *divisor);
/* Probe and program the UART (8N1, FIFOs on; the divisor latch when `divisor` is not 0, else it
 * stays as the firmware set it). Returns false (and marks it absent) when nothing answers at
 * `base`. */
bool uart_init(struct uart *u, enum uart_access access, uint64_t base, unsigned stride, uint16_t divisor);
void uart_write(struct uart *u, const char *s, unsigned len);
/* Wait (bounded) until everything written has left the shift register. */
void uart_drain(struct uart *u);

#endif
