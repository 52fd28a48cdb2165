/* The 16550 UART driver against a register model: the baud divisor (the PC16550D data sheet's
 * "Programmable Baud Generator": baud = clock / (16 x divisor); its table of divisors for a
 * 1.8432 MHz crystal gives 12 for 9600 baud, 1 for 115200) and the register writes uart_init makes:
 * the divisor latch through LCR.DLAB (bit 7), then 8N1, FIFOs, modem control. */
#include "drivers/serial/uart16550.h"
#include "tests/unit/regmodel.h"
#include "tests/unit/test.h"

#define COM1 0x3F8
#define MMIO_BASE 0xFE030000ull
/* Register offsets (data sheet, summary of registers) and the values uart_init writes. */
#define REG_DLL 0
#define REG_IER 1
#define REG_DLM 1
#define REG_FCR 2
#define REG_LCR 3
#define REG_MCR 4
#define REG_LSR 5
#define REG_SCR 7
#define LCR_DLAB 0x80
#define LCR_8N1 0x03
#define FCR_ON_CLEAR 0x07
#define MCR_DTR_RTS_OUT2 0x0B
#define LSR_IDLE 0x60 /* THRE | TEMT */

static struct regmodel m;

static char space_of(enum uart_access a)
{
	return a == UART_IO ? SPACE_PORT : SPACE_MMIO;
}

static uint8_t m_read(void *c, enum uart_access a, uint64_t addr)
{
	(void)c;
	return (uint8_t)regmodel_read(&m, space_of(a), addr);
}

static void m_write(void *c, enum uart_access a, uint64_t addr, uint8_t v)
{
	(void)c;
	regmodel_write(&m, space_of(a), addr, v);
}

static const struct uart_io model_io = { m_read, m_write, 0 };

/* clock / (16 x divisor) within 2% of the rate asked for (PC16550D data sheet, "Programmable Baud
 * Generator": its 1.8432 MHz table gives 56000 baud 2.86% off, which we refuse). */
static void divisor_nearest_within_tolerance(void)
{
	static const struct { uint32_t clock, baud; int ok; uint16_t div; } cases[] = {
		{ UART_CLOCK_PC_HZ, 115200, 1, 1 },   { UART_CLOCK_PC_HZ, 57600, 1, 2 },
		{ UART_CLOCK_PC_HZ, 9600, 1, 12 },    { UART_CLOCK_PC_HZ, 300, 1, 384 },
		{ UART_CLOCK_PC_HZ, 921600, 0, 0 },   { UART_CLOCK_PC_HZ, 230400, 0, 0 },
		{ UART_CLOCK_PC_HZ, 56000, 0, 0 },    { UART_CLOCK_PC_HZ, 0, 0, 0 },
		{ UART_CLOCK_PC_HZ, 1, 0, 0 },        /* divisor 115200: past the 16-bit latch */
		{ UART_CLOCK_PC_HZ, 2000, 1, 58 },    /* 1986.2 baud: 0.69% off */
		{ 14745600, 921600, 1, 1 },           { 14745600, 115200, 1, 8 },
		{ 14745600, 1843200, 0, 0 },          { 14745600, 460800, 1, 2 },
		{ 48000000, 115200, 1, 26 },          /* 115384.6 baud: 0.16% off */
		{ 48000000, 921600, 0, 0 },           /* 3.26 -> 3: 1000000 baud, 8.5% off */
		{ 24000000, 921600, 0, 0 },           /* 1.63 -> 2: 750000 baud, 18.6% off */
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint16_t div = 0;
		bool ok = uart_baud_divisor(cases[i].clock, cases[i].baud, &div);

		CHECK_EQ_U64(ok, cases[i].ok);
		if (ok)
			CHECK_EQ_U64(div, cases[i].div);
		if (ok != cases[i].ok)
			test_note("clock %u baud %u", cases[i].clock, cases[i].baud);
	}
}

/* The model's write log holds these (register, value) pairs in this order (others between). */
static void check_writes(char space, uint64_t base, unsigned stride, const uint8_t (*want)[2], unsigned n)
{
	unsigned at = 0;

	for (unsigned i = 0; i < n; i++) {
		int k = regmodel_find(&m, space, base + (uint64_t)want[i][0] * stride, at);

		while (k >= 0 && m.log[k].value != want[i][1])
			k = regmodel_find(&m, space, base + (uint64_t)want[i][0] * stride, (unsigned)k + 1);
		CHECK(k >= 0);
		if (k < 0) {
			test_note("write %u: register %u = 0x%02x not found after write %u", i, want[i][0],
				  want[i][1], at);
			return;
		}
		at = (unsigned)k + 1;
	}
}

static void init_programs_divisor_then_8n1(void)
{
	static const uint8_t want[][2] = {
		{ REG_IER, 0 }, { REG_LCR, LCR_DLAB }, { REG_DLL, 12 }, { REG_DLM, 0 },
		{ REG_LCR, LCR_8N1 }, { REG_FCR, FCR_ON_CLEAR }, { REG_MCR, MCR_DTR_RTS_OUT2 },
	};
	struct uart u = { .io = &model_io };

	regmodel_reset(&m);
	regmodel_set(&m, SPACE_PORT, COM1 + REG_LSR, LSR_IDLE);
	CHECK(uart_init(&u, UART_IO, COM1, 1, 12));
	CHECK(u.present && u.io == &model_io);
	check_writes(SPACE_PORT, COM1, 1, want, sizeof(want) / sizeof(want[0]));
	CHECK_EQ_U64(regmodel_get(&m, SPACE_PORT, COM1 + REG_LCR), LCR_8N1); /* DLAB left clear */
	uart_write(&u, "ok", 2);
	CHECK_EQ_U64(regmodel_get(&m, SPACE_PORT, COM1), 'k'); /* THR, with DLAB clear */
}

static void init_mmio32_stride_and_large_divisor(void)
{
	static const uint8_t want[][2] = {
		{ REG_LCR, LCR_DLAB }, { REG_DLL, 384 & 0xFF }, { REG_DLM, 384 >> 8 }, { REG_LCR, LCR_8N1 },
	};
	struct uart u = { .io = &model_io };

	regmodel_reset(&m);
	CHECK(uart_init(&u, UART_MMIO32, MMIO_BASE, 4, 384)); /* 300 baud */
	check_writes(SPACE_MMIO, MMIO_BASE, 4, want, sizeof(want) / sizeof(want[0]));
}

static void init_without_divisor_leaves_latch(void)
{
	struct uart u = { .io = &model_io };

	regmodel_reset(&m);
	CHECK(uart_init(&u, UART_IO, COM1, 1, 0));
	CHECK(regmodel_find(&m, SPACE_PORT, COM1 + REG_LCR, 0) >= 0);
	for (int k = regmodel_find(&m, SPACE_PORT, COM1 + REG_LCR, 0); k >= 0;
	     k = regmodel_find(&m, SPACE_PORT, COM1 + REG_LCR, (unsigned)k + 1))
		CHECK(!(m.log[k].value & LCR_DLAB));
	regmodel_set(&m, SPACE_PORT, COM1 + REG_LSR, 0xFF); /* a floating bus: no UART */
	CHECK(!uart_init(&u, UART_IO, COM1, 1, 1));
	CHECK(!u.present);
}

TEST_SUITE(uart16550) = {
	{ "divisor_nearest_within_tolerance", divisor_nearest_within_tolerance },
	{ "init_programs_divisor_then_8n1", init_programs_divisor_then_8n1 },
	{ "init_mmio32_stride_and_large_divisor", init_mmio32_stride_and_large_divisor },
	{ "init_without_divisor_leaves_latch", init_without_divisor_leaves_latch },
	{ 0, 0 },
};
