/* High Precision Event Timer (IA-PC HPET specification 1.0a): its main counter as a reference
 * clock, and its comparators as interrupt sources. Firmware may leave it stopped, so init enables
 * it (and says whether it had to); legacy replacement routing (LEG_RT_CNF) is left as found.
 * Register access goes through struct hpet_io (NULL: MMIO) so host tests can check the exact
 * comparator programming against a register model. */
#ifndef DRIVERS_HPET_H
#define DRIVERS_HPET_H

#include <stdbool.h>
#include <stdint.h>

/* General registers (spec 2.3.1) */
#define HPET_REG_CAP_ID 0x000
#define HPET_REG_CONFIG 0x010
#define HPET_REG_INT_STATUS 0x020
#define HPET_REG_MAIN_COUNTER 0x0F0
#define HPET_CAP_COUNT_SIZE_64 (1ull << 13)
#define HPET_CAP_NUM_TIM_SHIFT 8
#define HPET_CAP_NUM_TIM_MASK 0x1Full
#define HPET_CAP_PERIOD_SHIFT 32
#define HPET_CONFIG_ENABLE (1ull << 0)  /* ENABLE_CNF: the main counter runs */
#define HPET_CONFIG_LEGACY (1ull << 1)  /* LEG_RT_CNF: timers 0/1 on IRQ0/IRQ8 */

/* Timer n registers: configuration and capabilities, comparator, FSB route. */
#define HPET_TN_CONF(n) (0x100u + 0x20u * (n))
#define HPET_TN_CMP(n) (0x108u + 0x20u * (n))
#define HPET_TN_FSB(n) (0x110u + 0x20u * (n))
#define HPET_TN_INT_LEVEL (1ull << 1)     /* Tn_INT_TYPE_CNF: 1 level, 0 edge */
#define HPET_TN_INT_ENB (1ull << 2)       /* Tn_INT_ENB_CNF */
#define HPET_TN_PERIODIC (1ull << 3)      /* Tn_TYPE_CNF */
#define HPET_TN_PERIODIC_CAP (1ull << 4)  /* Tn_PER_INT_CAP */
#define HPET_TN_SIZE_64_CAP (1ull << 5)   /* Tn_SIZE_CAP */
#define HPET_TN_VAL_SET (1ull << 6)       /* Tn_VAL_SET_CNF */
#define HPET_TN_32BIT_MODE (1ull << 8)    /* Tn_32MODE_CNF */
#define HPET_TN_ROUTE_SHIFT 9             /* Tn_INT_ROUTE_CNF, bits 13:9 */
#define HPET_TN_ROUTE_MASK (0x1Full << HPET_TN_ROUTE_SHIFT)
#define HPET_TN_FSB_EN (1ull << 14)       /* Tn_FSB_EN_CNF */
#define HPET_TN_FSB_CAP (1ull << 15)      /* Tn_FSB_INT_DEL_CAP */
#define HPET_TN_ROUTE_CAP_SHIFT 32        /* Tn_INT_ROUTE_CAP, bits 63:32: one bit per I/O APIC input */
#define HPET_MAX_ROUTE 31
#define HPET_COUNTER32_MASK 0xFFFFFFFFull /* a 32-bit main counter or comparator */
/* One-shot arming margins, Linux's (arch/x86/kernel/hpet.c HPET_MIN_CYCLES, HPET_MIN_PROG_DELTA):
 * a comparator fires only when the counter equals it, some chipsets apply a comparator write up to
 * a few ticks late, and an SMI or NMI can fall between the counter read and the write. So a
 * comparator is never set closer than HPET_MIN_PROG_TICKS ahead of the counter read, and an arm
 * whose counter, read back after the write, is less than HPET_MIN_AHEAD_TICKS short of the
 * comparator (or past it) is not trusted. */
#define HPET_MIN_AHEAD_TICKS 128
#define HPET_MIN_PROG_TICKS (HPET_MIN_AHEAD_TICKS + HPET_MIN_AHEAD_TICKS / 2)

struct hpet_io {
	uint64_t (*read64)(void *ctx, uint64_t addr);
	void (*write64)(void *ctx, uint64_t addr, uint64_t v);
	void *ctx;
};

struct hpet {
	const struct hpet_io *io; /* NULL: the hardware */
	uint64_t base;
	uint32_t period_fs; /* femtoseconds per tick */
	uint64_t hz;
	unsigned comparators;
	bool counter_64bit;
	bool was_enabled;
	bool legacy_routing; /* LEG_RT_CNF found set: timers 0 and 1 are wired to IRQ0/IRQ8 */
};

bool hpet_init(struct hpet *h, uint64_t base);
uint64_t hpet_read(void *ctx); /* ctx = struct hpet * */

uint64_t hpet_reg_read(const struct hpet *h, unsigned reg);
void hpet_reg_write(const struct hpet *h, unsigned reg, uint64_t v);

/* The I/O APIC inputs comparator n can drive (bit i = input i). */
uint32_t hpet_route_cap(const struct hpet *h, unsigned n);
/* Disable every comparator's interrupt; returns how many the firmware had enabled. */
unsigned hpet_comparators_quiet(const struct hpet *h);
/* Choose a comparator and an I/O APIC input for it: a comparator not claimed by legacy routing,
 * the highest input below `inputs` it can drive (inputs 16 and up are free of ISA devices).
 * False when there is none. */
bool hpet_pick_route(const struct hpet *h, unsigned inputs, unsigned *timer, unsigned *route);
/* Edge-triggered one-shot: the interrupt fires when the main counter reaches `cmp`. */
void hpet_comparator_oneshot(const struct hpet *h, unsigned n, unsigned route, uint64_t cmp);
/* Read the counter back after arming: true when it is still at least `margin` ticks short of
 * `cmp` (in the counter's width: a 32-bit counter wraps). */
bool hpet_comparator_ahead(const struct hpet *h, uint64_t cmp, uint64_t margin);
/* Periodic: first at `first`, then every `period` ticks (false if the timer cannot). */
bool hpet_comparator_periodic(const struct hpet *h, unsigned n, unsigned route, uint64_t first, uint64_t period);
void hpet_comparator_stop(const struct hpet *h, unsigned n);

#endif
