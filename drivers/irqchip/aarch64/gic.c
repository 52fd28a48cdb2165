/* One set of calls over the GICv2 and GICv3 drivers (see gic.h). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "drivers/irqchip/aarch64/gic.h"

bool gic_ready(const struct gic *g)
{
	return g->version == GIC_V2 ? g->v2.ready : g->version == GIC_V3 && g->v3.ready;
}

const char *gic_reason(const struct gic *g)
{
	return g->version == GIC_V2 ? g->v2.reason : g->v3.reason;
}

void gic_private_config(struct gic *g, unsigned intid, uint8_t priority)
{
	if (g->version == GIC_V2)
		gicv2_private_config(&g->v2, intid, priority);
	else
		gicv3_private_config(&g->v3, intid, priority);
}

void gic_private_enable(struct gic *g, unsigned intid, bool on)
{
	if (g->version == GIC_V2)
		gicv2_private_enable(&g->v2, intid, on);
	else
		gicv3_private_enable(&g->v3, intid, on);
}

void gic_private_level(struct gic *g, unsigned intid)
{
	if (g->version == GIC_V2)
		gicv2_private_level(&g->v2, intid);
	else
		gicv3_private_level(&g->v3, intid);
}

void gic_private_clear(struct gic *g, unsigned intid)
{
	if (g->version == GIC_V2)
		gicv2_private_clear(&g->v2, intid);
	else
		gicv3_private_clear(&g->v3, intid);
}

uint32_t gic_private_pending(const struct gic *g)
{
	return g->version == GIC_V2 ? gicv2_private_pending(&g->v2) : gicv3_private_pending(&g->v3);
}

uint32_t gic_private_active(const struct gic *g)
{
	return g->version == GIC_V2 ? gicv2_private_active(&g->v2) : gicv3_private_active(&g->v3);
}

void gic_send_sgi_self(struct gic *g, unsigned intid)
{
	if (g->version == GIC_V2)
		gicv2_send_sgi_self(&g->v2, intid);
	else
		gicv3_send_sgi_self(&g->v3, intid);
}

void gic_eoi(struct gic *g, uint32_t iar)
{
	if (g->version == GIC_V2)
		gicv2_eoi(&g->v2, iar);
	else
		gicv3_eoi(&g->v3, iar & GIC_INTID_MASK);
}

void gic_eoi_stale(struct gic *g, unsigned intid)
{
	uint32_t src = g->v2.cpu_mask ? (uint32_t)__builtin_ctz(g->v2.cpu_mask) : 0;

	if (g->version == GIC_V2 && intid < GIC_NUM_SGIS)
		gic_eoi(g, intid | src << GICV2_IAR_CPUID_SHIFT);
	else
		gic_eoi(g, intid);
}
