/* The local APIC's performance-counter LVT entry (see lapic_perf.h). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "drivers/irqchip/x86_64/lapic_perf.h"

#include "drivers/irqchip/x86_64/lapic_timer.h"

bool lapic_perf_lvt_present(const struct lapic *l)
{
	uint32_t ver = lapic_read(l, LAPIC_REG_VERSION);

	return ((ver >> LAPIC_VERSION_MAXLVT_SHIFT) & LAPIC_VERSION_MAXLVT_MASK) >= LAPIC_LVT_PERF_MIN_MAXLVT;
}

void lapic_perf_lvt_set(const struct lapic *l, uint8_t vector)
{
	lapic_write(l, LAPIC_REG_LVT_PERF, LVT_DELIVERY_FIXED | vector);
}

void lapic_perf_lvt_mask(const struct lapic *l)
{
	/* The delivery-status bit is read-only: written back as 0. */
	uint32_t v = lapic_read(l, LAPIC_REG_LVT_PERF) & ~LVT_DELIVERY_PENDING;

	lapic_write(l, LAPIC_REG_LVT_PERF, v | LVT_MASKED);
}
