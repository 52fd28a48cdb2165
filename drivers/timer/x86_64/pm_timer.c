/* ACPI PM timer (see pm_timer.h). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "drivers/timer/x86_64/pm_timer.h"

#include "arch/x86_64/io.h"

#define PM_TIMER_MASK_24 0x00FFFFFFu
#define PM_TIMER_MASK_32 0xFFFFFFFFu
/* Reads to see it move: it ticks every 280 ns and a port read takes longer than that. */
#define PM_TIMER_LIVENESS_READS 1000

bool pm_timer_init(struct pm_timer *t, uint16_t port, bool is_32bit)
{
	uint32_t first;
	int i;

	t->port = port;
	t->mask = is_32bit ? PM_TIMER_MASK_32 : PM_TIMER_MASK_24;
	if (!port)
		return false;
	first = inl(port) & t->mask;
	for (i = 0; i < PM_TIMER_LIVENESS_READS; i++)
		if ((inl(port) & t->mask) != first)
			return true;
	return false; /* a port that never changes is no clock */
}

uint64_t pm_timer_read(void *ctx)
{
	const struct pm_timer *t = ctx;

	return inl(t->port) & t->mask;
}
