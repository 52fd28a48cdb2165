/* HPET (IA-PC HPET specification 1.0a, section 2.3). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "drivers/timer/hpet.h"

#include "arch/x86_64/io.h"

#define HPET_PERIOD_MAX_FS 100000000u /* the spec's bound: at least 10 MHz */
#define FS_PER_S 1000000000000000ull
#define HPET_LIVENESS_READS 1000
#define ISA_INPUTS 16 /* I/O APIC inputs 0-15 carry the legacy ISA interrupts */

uint64_t hpet_reg_read(const struct hpet *h, unsigned reg)
{
	if (h->io)
		return h->io->read64(h->io->ctx, h->base + reg);
	return mmio_read64((uintptr_t)h->base + reg);
}

void hpet_reg_write(const struct hpet *h, unsigned reg, uint64_t v)
{
	if (h->io)
		h->io->write64(h->io->ctx, h->base + reg, v);
	else
		mmio_write64((uintptr_t)h->base + reg, v);
}

bool hpet_init(struct hpet *h, uint64_t base)
{
	uint64_t cap, cfg, first;
	int i;

	h->base = base;
	if (!base)
		return false;
	cap = hpet_reg_read(h, HPET_REG_CAP_ID);
	h->period_fs = (uint32_t)(cap >> HPET_CAP_PERIOD_SHIFT);
	if (h->period_fs == 0 || h->period_fs > HPET_PERIOD_MAX_FS)
		return false;
	h->hz = FS_PER_S / h->period_fs;
	h->comparators = (unsigned)((cap >> HPET_CAP_NUM_TIM_SHIFT) & HPET_CAP_NUM_TIM_MASK) + 1;
	h->counter_64bit = cap & HPET_CAP_COUNT_SIZE_64;
	cfg = hpet_reg_read(h, HPET_REG_CONFIG);
	h->was_enabled = cfg & HPET_CONFIG_ENABLE;
	h->legacy_routing = cfg & HPET_CONFIG_LEGACY;
	if (!h->was_enabled)
		hpet_reg_write(h, HPET_REG_CONFIG, cfg | HPET_CONFIG_ENABLE);
	first = hpet_read(h);
	for (i = 0; i < HPET_LIVENESS_READS; i++)
		if (hpet_read(h) != first)
			return true;
	return false;
}

uint64_t hpet_read(void *ctx)
{
	const struct hpet *h = ctx;
	uint64_t v = hpet_reg_read(h, HPET_REG_MAIN_COUNTER);

	return h->counter_64bit ? v : (v & HPET_COUNTER32_MASK);
}

uint32_t hpet_route_cap(const struct hpet *h, unsigned n)
{
	return (uint32_t)(hpet_reg_read(h, HPET_TN_CONF(n)) >> HPET_TN_ROUTE_CAP_SHIFT);
}

unsigned hpet_comparators_quiet(const struct hpet *h)
{
	unsigned live = 0;

	for (unsigned n = 0; n < h->comparators; n++) {
		uint64_t conf = hpet_reg_read(h, HPET_TN_CONF(n));

		if (conf & HPET_TN_INT_ENB) {
			live++;
			hpet_reg_write(h, HPET_TN_CONF(n), conf & ~HPET_TN_INT_ENB);
		}
	}
	return live;
}

bool hpet_pick_route(const struct hpet *h, unsigned inputs, unsigned *timer, unsigned *route)
{
	bool found = false;
	unsigned best_route = 0, best_timer = 0;

	for (unsigned n = 0; n < h->comparators; n++) {
		uint32_t cap = hpet_route_cap(h, n);

		if (h->legacy_routing && n < 2)
			continue;
		for (unsigned r = 0; r <= HPET_MAX_ROUTE && r < inputs; r++) {
			if (!(cap & (1u << r)))
				continue;
			/* Prefer inputs above the ISA range, then the highest, then the last timer. */
			if (!found || (r >= ISA_INPUTS) > (best_route >= ISA_INPUTS) ||
			    ((r >= ISA_INPUTS) == (best_route >= ISA_INPUTS) && r >= best_route)) {
				found = true;
				best_route = r;
				best_timer = n;
			}
		}
	}
	if (found) {
		*timer = best_timer;
		*route = best_route;
	}
	return found;
}

static uint64_t base_conf(const struct hpet *h, unsigned n, unsigned route)
{
	uint64_t conf = hpet_reg_read(h, HPET_TN_CONF(n));

	conf &= ~(HPET_TN_INT_LEVEL | HPET_TN_INT_ENB | HPET_TN_PERIODIC | HPET_TN_VAL_SET |
		  HPET_TN_32BIT_MODE | HPET_TN_ROUTE_MASK | HPET_TN_FSB_EN);
	return conf | ((uint64_t)route << HPET_TN_ROUTE_SHIFT);
}

void hpet_comparator_oneshot(const struct hpet *h, unsigned n, unsigned route, uint64_t cmp)
{
	uint64_t conf = base_conf(h, n, route);

	/* Route and mode with the interrupt still off, then the comparator, then enable: no
	 * interrupt from a stale comparator value. */
	hpet_reg_write(h, HPET_TN_CONF(n), conf);
	hpet_reg_write(h, HPET_TN_CMP(n), cmp);
	hpet_reg_write(h, HPET_TN_CONF(n), conf | HPET_TN_INT_ENB);
}

bool hpet_comparator_ahead(const struct hpet *h, uint64_t cmp, uint64_t margin)
{
	uint64_t d = cmp - hpet_reg_read(h, HPET_REG_MAIN_COUNTER);
	int64_t ahead;

	/* the distance in the counter's width, signed: a passed comparator is negative */
	if (h->counter_64bit)
		ahead = (int64_t)d;
	else
		ahead = (int64_t)(int32_t)(uint32_t)(d & HPET_COUNTER32_MASK);
	return ahead >= (int64_t)margin;
}

bool hpet_comparator_periodic(const struct hpet *h, unsigned n, unsigned route, uint64_t first, uint64_t period)
{
	uint64_t conf = base_conf(h, n, route);

	if (!(conf & HPET_TN_PERIODIC_CAP))
		return false;
	/* Spec 2.3.9.2.2: with VAL_SET the first comparator write sets the next expiry, the
	 * second the accumulator (the period). */
	hpet_reg_write(h, HPET_TN_CONF(n), conf | HPET_TN_PERIODIC | HPET_TN_VAL_SET);
	hpet_reg_write(h, HPET_TN_CMP(n), first);
	hpet_reg_write(h, HPET_TN_CMP(n), period);
	hpet_reg_write(h, HPET_TN_CONF(n), conf | HPET_TN_PERIODIC | HPET_TN_INT_ENB);
	return true;
}

void hpet_comparator_stop(const struct hpet *h, unsigned n)
{
	uint64_t conf = hpet_reg_read(h, HPET_TN_CONF(n));

	hpet_reg_write(h, HPET_TN_CONF(n), conf & ~(HPET_TN_INT_ENB | HPET_TN_PERIODIC));
}
