/* PL011 UART, polled transmit (see pl011.h; register map: Arm PrimeCell UART (PL011) TRM, 3.2). */
/* OPT_SMALL: -Os (Makefile): the counter bounds a wait for the transmitter (a timeout, not a measurement). */
#include "drivers/serial/aarch64/pl011.h"

#include "arch/aarch64/include/cpu/mmio.h"
#include "arch/cycles.h"

#define PL011_DR 0x000 /* data */
#define PL011_FR 0x018 /* flags */
#define PL011_CR 0x030 /* control */
#define FR_BUSY (1u << 3)
#define FR_TXFF (1u << 5) /* transmit FIFO full */
#define CR_UARTEN (1u << 0)
#define CR_TXE (1u << 8)
#define WAIT_US 10000ull /* 10 ms: ~110 characters at 115200 baud */
#define US_PER_S 1000000ull
#define FALLBACK_HZ 5000000000ull /* unknown rate: assume fast so the bound is never shorter */
#define MAX_TIMEOUTS 3

bool pl011_init(struct pl011 *u, uint64_t base, uint64_t counter_hz, bool sbsa)
{
	uint64_t hz = counter_hz ? counter_hz : FALLBACK_HZ;

	*u = (struct pl011){ .base = base, .wait_ticks = WAIT_US * hz / US_PER_S, .sbsa = sbsa };
	if (sbsa) { /* SBSA generic UART: UARTDR/UARTFR only; offset 0x30 is not a register there */
		u->present = true;
		return true;
	}
	u->cr_found = mmio_read32(base + PL011_CR);
	u->present = (u->cr_found & (CR_UARTEN | CR_TXE)) == (CR_UARTEN | CR_TXE);
	return u->present;
}

/* Wait until none of `busy` is set in FR; false after the bound (then counted as a timeout). */
static bool wait_clear(struct pl011 *u, uint32_t busy)
{
	uint64_t start = cycles_read();

	while (mmio_read32(u->base + PL011_FR) & busy) {
		if (cycles_read() - start > u->wait_ticks) {
			if (++u->timeouts >= MAX_TIMEOUTS)
				u->dead = true;
			return false;
		}
		cpu_relax();
	}
	return true;
}

void pl011_write(struct pl011 *u, const char *s, unsigned len)
{
	if (!u->present || u->dead)
		return;
	for (unsigned i = 0; i < len && !u->dead; i++)
		if (wait_clear(u, FR_TXFF))
			mmio_write32(u->base + PL011_DR, (uint8_t)s[i]);
}

void pl011_drain(struct pl011 *u)
{
	if (u->present && !u->dead)
		(void)wait_clear(u, FR_BUSY);
}
