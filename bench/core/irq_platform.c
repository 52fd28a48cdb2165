/* The interrupt-source accessors every environment answers alike (see irq_platform.h): they read
 * struct irq_platform_common, the first member of each environment's struct irq_platform
 * (IRQ_PLATFORM_HEAD), and call the environment's hooks for what only its hardware has. */
#include "bench/core/irq_platform.h"

#include "lib/record.h"

/* The platform's neutral head: a pointer to a struct points to its first member (C11 6.7.2.1). */
static const struct irq_platform_common *head(const struct irq_platform *p)
{
	return (const struct irq_platform_common *)(const void *)p;
}

static bool is_cpu_timer(enum irq_source s)
{
	return s == IRQ_SRC_ONESHOT_TIMER || s == IRQ_SRC_PERIODIC_TIMER;
}

const char *irq_source_name(enum irq_source s)
{
	return s < IRQ_NUM_SOURCES ? irq_source_names[s] : "unknown";
}

const char *irq_source_deadline(enum irq_source s)
{
	return s < IRQ_NUM_SOURCES ? irq_deadline_names[s] : "unknown";
}

bool irq_platform_ready(const struct irq_platform *p, const char **why)
{
	const struct irq_platform_common *c = head(p);

	if (!c->ready && why)
		*why = c->reason;
	return c->ready;
}

bool irq_platform_oneshot_per_vector(const struct irq_platform *p)
{
	return head(p)->oneshot_per_vector;
}

uint64_t irq_platform_arm_uncertainty(const struct irq_platform *p)
{
	return head(p)->arm_uncertainty;
}

/* The deadline timer counts the cycle counter itself and the self-IPI has no clock: 0. */
uint64_t irq_source_tick_cycles(const struct irq_platform *p, enum irq_source s)
{
	if (is_cpu_timer(s))
		return head(p)->timer_tick_cycles;
	return s == IRQ_SRC_PLATFORM_TIMER ? head(p)->platform_tick_cycles : 0;
}

void irq_platform_describe(const struct irq_platform *p, struct record *r)
{
	if (head(p)->describe_mode)
		head(p)->describe_mode(p, r);
}

void irq_source_describe(const struct irq_platform *p, enum irq_source s, struct record *r)
{
	if (is_cpu_timer(s))
		rec_u64(r, "timer_hz", head(p)->timer_hz);
	if (s == IRQ_SRC_PLATFORM_TIMER && head(p)->describe_platform_timer)
		head(p)->describe_platform_timer(p, r);
}
