/* The interrupt sources of drivers/irq_platform.h in the hosted (Linux user-space) build. This
 * first version has none: the platform is never ready, so every interrupt probe emits a skip
 * with irq_probe_unavailable's reason. (Signal-based stand-ins replace it.) */
#include "drivers/irq_platform.h"

static const char *const source_names[IRQ_NUM_SOURCES] = {
	"posix_timer_oneshot", "tsc_deadline_unavailable", "posix_timer_periodic", "tgkill_self",
	"hpet_unavailable",
};

#define NOT_HERE "hosted build: no interrupt sources of ours in user space"

const char *irq_source_name(enum irq_source s)
{
	return s < IRQ_NUM_SOURCES ? source_names[s] : "unknown";
}

const char *irq_source_unavailable(const struct irq_platform *p, enum irq_source s)
{
	(void)p;
	(void)s;
	return NOT_HERE;
}

void irq_source_prepare(struct irq_platform *p, enum irq_source s, uint8_t vector)
{
	(void)p, (void)s, (void)vector;
}

uint64_t irq_source_arm(struct irq_platform *p, enum irq_source s, uint8_t vector, uint64_t delay_cycles,
			uint64_t *arm_cycles)
{
	(void)p, (void)s, (void)vector, (void)delay_cycles;
	if (arm_cycles)
		*arm_cycles = 0;
	return 0;
}

void irq_source_disarm(struct irq_platform *p, enum irq_source s, uint8_t vector)
{
	(void)p, (void)s, (void)vector;
}

void irq_source_release(struct irq_platform *p, enum irq_source s, uint8_t vector)
{
	(void)p, (void)s, (void)vector;
}

uint64_t irq_periodic_start(struct irq_platform *p, uint8_t vector, uint64_t period_cycles)
{
	(void)p, (void)vector, (void)period_cycles;
	return 0;
}

uint64_t irq_periodic_last_expiry(const struct irq_platform *p)
{
	(void)p;
	return 0;
}

bool irq_platform_quiet(const struct irq_platform *p)
{
	(void)p;
	return true;
}

bool irq_vector_pending(const struct irq_platform *p, uint8_t vector)
{
	(void)p, (void)vector;
	return false;
}

unsigned irq_platform_stale(const struct irq_platform *p, bool in_service)
{
	(void)p, (void)in_service;
	return 0;
}

unsigned irq_platform_eoi_in_service(struct irq_platform *p)
{
	(void)p;
	return 0;
}

void irq_platform_eoi(void *ctx)
{
	(void)ctx;
}
