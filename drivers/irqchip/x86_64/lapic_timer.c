/* Local APIC timer, EOI, self-IPI and LVT masking (see lapic_timer.h). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "drivers/irqchip/x86_64/lapic_timer.h"

#define TIMER_MAX_COUNT 0xFFFFFFFFu
#define LVT_PERF_MIN_MAXLVT 4
#define LVT_THERMAL_MIN_MAXLVT 5
#define LVT_CMCI_MIN_MAXLVT 6

const unsigned lapic_lvt_regs[LAPIC_LVT_OTHERS] = {
	LAPIC_REG_LVT_LINT0, LAPIC_REG_LVT_LINT1, LAPIC_REG_LVT_ERROR,
	LAPIC_REG_LVT_PERF, LAPIC_REG_LVT_THERMAL, LAPIC_REG_LVT_CMCI,
};
const char *const lapic_lvt_names[LAPIC_LVT_OTHERS] = { "lint0", "lint1", "error", "perf", "thermal", "cmci" };
static const unsigned lvt_min_maxlvt[LAPIC_LVT_OTHERS] = {
	0, 0, 0, LVT_PERF_MIN_MAXLVT, LVT_THERMAL_MIN_MAXLVT, LVT_CMCI_MIN_MAXLVT,
};

void lapic_lvt_mask_all(const struct lapic *l, struct lapic_lvt_state *st)
{
	uint32_t ver = lapic_read(l, LAPIC_REG_VERSION);

	st->maxlvt = (ver >> LAPIC_VERSION_MAXLVT_SHIFT) & LAPIC_VERSION_MAXLVT_MASK;
	st->timer_found = lapic_read(l, LAPIC_REG_LVT_TIMER);
	lapic_write(l, LAPIC_REG_LVT_TIMER, st->timer_found | LVT_MASKED);
	for (unsigned i = 0; i < LAPIC_LVT_OTHERS; i++) {
		st->present[i] = st->maxlvt >= lvt_min_maxlvt[i];
		if (!st->present[i])
			continue;
		st->found[i] = lapic_read(l, lapic_lvt_regs[i]);
		if (!(st->found[i] & LVT_MASKED))
			lapic_write(l, lapic_lvt_regs[i], st->found[i] | LVT_MASKED);
	}
}

void lapic_timer_stop(const struct lapic *l, uint8_t vector)
{
	lapic_write(l, LAPIC_REG_LVT_TIMER, LVT_MASKED | LVT_TIMER_ONESHOT | vector);
	lapic_write(l, LAPIC_REG_TIMER_INITIAL, 0); /* a zero count stops the timer */
}

static void program(const struct lapic *l, uint32_t lvt, uint32_t count)
{
	lapic_write(l, LAPIC_REG_TIMER_DIVIDE, LAPIC_DIVIDE_BY_1);
	lapic_write(l, LAPIC_REG_LVT_TIMER, lvt);
	lapic_write(l, LAPIC_REG_TIMER_INITIAL, count); /* this write starts the count */
}

void lapic_timer_oneshot(const struct lapic *l, uint8_t vector, uint32_t count)
{
	program(l, LVT_TIMER_ONESHOT | vector, count);
}

void lapic_timer_periodic(const struct lapic *l, uint8_t vector, uint32_t count)
{
	program(l, LVT_TIMER_PERIODIC | vector, count);
}

void lapic_timer_free_run(const struct lapic *l)
{
	program(l, LVT_MASKED | LVT_TIMER_ONESHOT, TIMER_MAX_COUNT);
}

bool lapic_timer_tsc_deadline(const struct lapic *l, uint8_t vector, uint64_t deadline_tsc)
{
	lapic_write(l, LAPIC_REG_LVT_TIMER, LVT_TIMER_TSC_DEADLINE | vector);
	/* SDM: in xAPIC mode the LVT store and the WRMSR must be ordered by MFENCE; the LFENCE after
	 * it keeps the (not serialising) WRMSR itself from starting early. */
	return lapic_wrmsr_ordered(l, MSR_IA32_TSC_DEADLINE, deadline_tsc) == 0;
}

uint32_t lapic_timer_current(const struct lapic *l)
{
	return lapic_read(l, LAPIC_REG_TIMER_CURRENT);
}

/* floor(a * b / c) without a 128-by-64 library division (the firmware links no libgcc): the
 * 128-bit product is divided by restoring long division. Saturates when the result overflows. */
static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	unsigned __int128 n = (unsigned __int128)a * b, rem = 0;
	uint64_t q = 0;

	if (!c)
		return 0;
	if ((uint64_t)(n >> 64) >= c)
		return UINT64_MAX;
	for (int bit = 127; bit >= 0; bit--) {
		rem = (rem << 1) | (uint64_t)((n >> bit) & 1);
		if (rem >= c) {
			rem -= c;
			if (bit < 64)
				q |= 1ull << bit;
		}
	}
	return q;
}

uint64_t lapic_timer_hz_from(uint32_t count_a, uint32_t count_b, uint64_t tsc_cycles, uint64_t tsc_hz)
{
	uint64_t ticks = (uint64_t)count_a - count_b; /* the counter counts down */

	if (count_b >= count_a || !tsc_cycles || !tsc_hz)
		return 0;
	/* ticks * tsc_hz overflows 64 bits past ~4e9 ticks at 5 GHz: use 128 bits. */
	return mul_div(ticks, tsc_hz, tsc_cycles);
}

uint64_t lapic_ratio_q32(uint64_t tsc_hz, uint64_t timer_hz)
{
	if (!timer_hz)
		return 0;
	return mul_div(tsc_hz, 1ull << 32, timer_hz);
}

uint64_t lapic_ticks_to_tsc(uint64_t ticks, uint64_t ratio_q32)
{
	return (uint64_t)(((unsigned __int128)ticks * ratio_q32 + (1ull << 31)) >> 32); /* rounded */
}

uint64_t lapic_tsc_to_ticks(uint64_t cycles, uint64_t ratio_q32)
{
	if (!ratio_q32)
		return 0;
	return mul_div(cycles, 1ull << 32, ratio_q32);
}

void lapic_eoi(const struct lapic *l)
{
	lapic_write(l, LAPIC_REG_EOI, 0);
}

void lapic_self_ipi(const struct lapic *l, uint8_t vector)
{
	if (l->x2apic)
		(void)lapic_wrmsr_ordered(l, X2APIC_MSR_SELF_IPI, vector);
	else
		lapic_write(l, LAPIC_REG_ICR_LOW, ICR_SHORTHAND_SELF | ICR_DM_FIXED | ICR_LEVEL_ASSERT | vector);
}

void lapic_accept_all(const struct lapic *l)
{
	lapic_write(l, LAPIC_REG_TPR, 0);
}

static uint32_t vec_reg(const struct lapic *l, unsigned first, uint8_t vector)
{
	return lapic_read(l, first + (vector / 32u) * LAPIC_VEC_REG_STRIDE);
}

bool lapic_vector_pending(const struct lapic *l, uint8_t vector)
{
	return (vec_reg(l, LAPIC_REG_IRR0, vector) >> (vector % 32u)) & 1u;
}

bool lapic_vector_in_service(const struct lapic *l, uint8_t vector)
{
	return (vec_reg(l, LAPIC_REG_ISR0, vector) >> (vector % 32u)) & 1u;
}

unsigned lapic_vectors_set(const struct lapic *l, bool in_service)
{
	unsigned n = 0;

	for (unsigned i = 0; i < LAPIC_VEC_REGS; i++)
		for (uint32_t v = lapic_read(l, (in_service ? LAPIC_REG_ISR0 : LAPIC_REG_IRR0) + i * LAPIC_VEC_REG_STRIDE);
		     v; v &= v - 1) /* no popcount: libgcc is not linked into the firmware */
			n++;
	return n;
}
