/* 16550 UART driver (see uart16550.h). Register layout per the PC16550D data sheet. */
#include "drivers/serial/uart16550.h"

#include "arch/x86_64/io.h"

#define UART_THR 0 /* transmit holding (write) */
#define UART_DLL 0 /* divisor latch low (DLAB = 1) */
#define UART_IER 1
#define UART_DLM 1 /* divisor latch high (DLAB = 1) */
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_SCR 7

#define FCR_ENABLE 0x01
#define FCR_CLEAR_RX 0x02
#define FCR_CLEAR_TX 0x04
#define LCR_8N1 0x03
#define LCR_DLAB 0x80
#define MCR_DTR 0x01
#define MCR_RTS 0x02
#define MCR_OUT2 0x08
#define LSR_THRE 0x20 /* holding register empty: room for a byte */
#define LSR_TEMT 0x40 /* transmitter completely empty */
#define LSR_ABSENT 0xFF /* floating bus */

/* Polls of LSR before a byte is declared stuck. A byte takes 87 us at 115200 baud and a port read
 * costs about 1 us, so this allows well over the slowest supported baud rate's byte time. */
#define UART_SPIN_LIMIT 200000u
#define UART_MAX_TIMEOUTS 3
#define SCRATCH_PATTERN 0xA5

static uint8_t reg_read(const struct uart *u, unsigned reg)
{
	uint64_t a = u->base + (uint64_t)reg * u->stride;

	if (u->io)
		return u->io->read(u->io->ctx, u->access, a);
	switch (u->access) {
	case UART_IO:
		return inb((uint16_t)a);
	case UART_MMIO8:
		return mmio_read8((uintptr_t)a);
	default:
		return (uint8_t)mmio_read32((uintptr_t)a);
	}
}

static void reg_write(const struct uart *u, unsigned reg, uint8_t v)
{
	uint64_t a = u->base + (uint64_t)reg * u->stride;

	if (u->io) {
		u->io->write(u->io->ctx, u->access, a, v);
		return;
	}
	switch (u->access) {
	case UART_IO:
		outb((uint16_t)a, v);
		break;
	case UART_MMIO8:
		mmio_write8((uintptr_t)a, v);
		break;
	default:
		mmio_write32((uintptr_t)a, v);
		break;
	}
}

bool uart_baud_divisor(uint32_t clock_hz, uint32_t baud, uint16_t *divisor)
{
	uint64_t ticks = (uint64_t)baud * UART_SAMPLES_PER_BIT, div, made, off;

	if (!baud)
		return false;
	div = (clock_hz + ticks / 2) / ticks; /* nearest */
	if (!div || div > UART_DIVISOR_MAX)
		return false;
	made = clock_hz / (UART_SAMPLES_PER_BIT * div);
	off = made > baud ? made - baud : baud - made;
	if (off * 1000 > (uint64_t)baud * UART_BAUD_TOLERANCE_PERMILLE)
		return false;
	*divisor = (uint16_t)div;
	return true;
}

bool uart_init(struct uart *u, enum uart_access access, uint64_t base, unsigned stride, uint16_t divisor)
{
	u->access = access;
	u->base = base;
	u->stride = stride ? stride : 1;
	u->dead = false;
	u->timeouts = 0;
	u->present = false;
	if (reg_read(u, UART_LSR) == LSR_ABSENT)
		return false;
	reg_write(u, UART_SCR, SCRATCH_PATTERN);
	if (reg_read(u, UART_SCR) != SCRATCH_PATTERN && reg_read(u, UART_LSR) == LSR_ABSENT)
		return false;
	u->present = true;
	reg_write(u, UART_IER, 0); /* polled: no interrupts */
	if (divisor) { /* DLAB = 1 maps the divisor latch over THR/IER (data sheet, Table II) */
		reg_write(u, UART_LCR, LCR_DLAB);
		reg_write(u, UART_DLL, (uint8_t)divisor);
		reg_write(u, UART_DLM, (uint8_t)(divisor >> 8));
	}
	reg_write(u, UART_LCR, LCR_8N1);
	reg_write(u, UART_FCR, FCR_ENABLE | FCR_CLEAR_RX | FCR_CLEAR_TX);
	reg_write(u, UART_MCR, MCR_DTR | MCR_RTS | MCR_OUT2);
	return true;
}

static bool wait_lsr(struct uart *u, uint8_t mask)
{
	unsigned i;

	for (i = 0; i < UART_SPIN_LIMIT; i++) {
		if (reg_read(u, UART_LSR) & mask) {
			u->timeouts = 0;
			return true;
		}
		cpu_relax();
	}
	if (++u->timeouts >= UART_MAX_TIMEOUTS)
		u->dead = true;
	return false;
}

void uart_write(struct uart *u, const char *s, unsigned len)
{
	unsigned i;

	if (!u->present || u->dead)
		return;
	for (i = 0; i < len && !u->dead; i++)
		if (wait_lsr(u, LSR_THRE))
			reg_write(u, UART_THR, (uint8_t)s[i]);
}

void uart_drain(struct uart *u)
{
	if (u->present && !u->dead)
		wait_lsr(u, LSR_TEMT);
}
