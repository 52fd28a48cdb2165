/* GICv2 distributor and memory-mapped CPU interface (see gicv2.h). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "drivers/irqchip/aarch64/gicv2.h"

#define PRIORITY_BYTES_PER_WORD 4
#define BITS_PER_BYTE 8
#define SGI_BYTES_PER_WORD 4 /* GICD_CPENDSGIRn: one byte per SGI */
#define PPI_MASK 0xFFFF0000u /* INTIDs 16-31 in a banked 32-bit register */
#define ICFGR_BITS_PER_INTID 2
#define ICFGR_EDGE_BIT 1
#define ITARGETS_BYTE_MASK 0xFFu

static uint32_t rd32(const struct gicv2 *g, uint64_t a)
{
	return g->io->read32(g->io->ctx, a);
}

static void wr32(const struct gicv2 *g, uint64_t a, uint32_t v)
{
	g->io->write32(g->io->ctx, a, v);
}

/* SGIs' pending state: GICD_CPENDSGIRn, every source CPU's bit of each SGI in `sgis`. */
static void clear_sgis(const struct gicv2 *g, uint32_t sgis)
{
	for (unsigned w = 0; w < GIC_NUM_SGIS / SGI_BYTES_PER_WORD; w++) {
		uint32_t v = 0;

		for (unsigned b = 0; b < SGI_BYTES_PER_WORD; b++)
			if (sgis >> (w * SGI_BYTES_PER_WORD + b) & 1u)
				v |= GICV2_SGI_SOURCES_ALL << (b * BITS_PER_BYTE);
		if (v)
			wr32(g, g->gicd + GICV2_GICD_CPENDSGIR + w * SGI_BYTES_PER_WORD, v);
	}
}

/* CPU interface on: every priority through, no binary-point grouping (the minimum the
 * interface allows), EOImode 0, FIQEn 0 in the one-view case; bypass bits kept. */
static void cpu_interface_on(struct gicv2 *g)
{
	uint32_t c;

	g->cpu_ctlr_found = rd32(g, g->gicc + GICV2_GICC_CTLR);
	wr32(g, g->gicc + GICV2_GICC_PMR, GICV2_PMR_ALL);
	wr32(g, g->gicc + GICV2_GICC_BPR, 0);
	c = g->cpu_ctlr_found & ~GICV2_GICC_CTLR_EOIMODE_NS_VIEW;
	if (!g->security_extn)
		c &= ~(GICV2_GICC_CTLR_FIQEN | GICV2_GICC_CTLR_EOIMODE_NS);
	wr32(g, g->gicc + GICV2_GICC_CTLR, c | GICV2_GICC_CTLR_ENABLE);
	g->cpu_ctlr_now = rd32(g, g->gicc + GICV2_GICC_CTLR);
}

bool gicv2_init(struct gicv2 *g, uint64_t gicd, uint64_t gicc, bool distributor)
{
	g->ready = false;
	g->gicd = gicd;
	g->gicc = gicc;
	if (!gicc) {
		g->reason = "no GICv2 CPU interface address (MADT GICC Physical Base Address)";
		return false;
	}
	g->arch_rev = (rd32(g, gicd + GICV2_GICD_PIDR2) >> GIC_PIDR2_ARCHREV_SHIFT) & GIC_PIDR2_ARCHREV_MASK;
	if (g->arch_rev != GICV2_ARCH_REV_V1 && g->arch_rev != GICV2_ARCH_REV_V2) {
		g->reason = "GICD ICPIDR2.ArchRev is not 1 or 2: not a GICv1/v2 distributor";
		return false;
	}
	g->typer = rd32(g, gicd + GICD_TYPER);
	g->security_extn = (g->typer & GICD_TYPER_SECURITY_EXTN) != 0;
	g->ctlr_found = rd32(g, gicd + GICD_CTLR);
	if (distributor && !(g->ctlr_found & GICV2_GICD_CTLR_ENABLE))
		wr32(g, gicd + GICD_CTLR, g->ctlr_found | GICV2_GICD_CTLR_ENABLE);
	g->ctlr_now = rd32(g, gicd + GICD_CTLR);
	if (!(g->ctlr_now & GICV2_GICD_CTLR_ENABLE)) {
		g->reason = "GICD_CTLR: the distributor could not be enabled";
		return false;
	}
	g->cpu_mask = (uint8_t)(rd32(g, gicd + GICV2_GICD_ITARGETSR0) & ITARGETS_BYTE_MASK);
	/* Nothing the firmware left enabled may reach us (this CPU's banked SGIs/PPIs). */
	g->group_found = rd32(g, gicd + GICV2_GICD_IGROUPR0);
	g->enabled_found = rd32(g, gicd + GICV2_GICD_ISENABLER0);
	wr32(g, gicd + GICV2_GICD_ICENABLER0, GIC_ALL_PRIVATE);
	wr32(g, gicd + GICV2_GICD_ICPENDR0, PPI_MASK);
	clear_sgis(g, (1u << GIC_NUM_SGIS) - 1);
	cpu_interface_on(g);
	if (!(g->cpu_ctlr_now & GICV2_GICC_CTLR_ENABLE)) {
		g->reason = "GICC_CTLR: the CPU interface could not be enabled";
		return false;
	}
	g->ready = true;
	return true;
}

void gicv2_private_config(struct gicv2 *g, unsigned intid, uint8_t priority)
{
	uint32_t bit = 1u << (intid % GIC_NUM_PRIVATE);
	uint64_t pa = g->gicd + GICV2_GICD_IPRIORITYR + (intid / PRIORITY_BYTES_PER_WORD) * PRIORITY_BYTES_PER_WORD;
	unsigned shift = (intid % PRIORITY_BYTES_PER_WORD) * BITS_PER_BYTE;

	gicv2_private_enable(g, intid, false);
	if (!g->security_extn) /* one view: Group 0, signalled as IRQ (FIQEn 0) */
		wr32(g, g->gicd + GICV2_GICD_IGROUPR0, rd32(g, g->gicd + GICV2_GICD_IGROUPR0) & ~bit);
	wr32(g, pa, (rd32(g, pa) & ~(0xFFu << shift)) | (uint32_t)priority << shift);
	gicv2_private_clear(g, intid);
}

void gicv2_private_enable(struct gicv2 *g, unsigned intid, bool on)
{
	uint32_t bit = 1u << (intid % GIC_NUM_PRIVATE);

	wr32(g, g->gicd + (on ? GICV2_GICD_ISENABLER0 : GICV2_GICD_ICENABLER0), bit);
}

void gicv2_private_level(struct gicv2 *g, unsigned intid)
{
	uint64_t a = g->gicd + GICV2_GICD_ICFGR1;
	unsigned shift;

	if (intid < GIC_NUM_SGIS || intid >= GIC_NUM_PRIVATE)
		return; /* SGIs are always edge-triggered */
	/* A PPI's configuration may be read-only (4.3.13): the write is then ignored. */
	shift = (intid - GIC_NUM_SGIS) * ICFGR_BITS_PER_INTID + ICFGR_EDGE_BIT;
	wr32(g, a, rd32(g, a) & ~(1u << shift));
}

void gicv2_private_clear(struct gicv2 *g, unsigned intid)
{
	intid %= GIC_NUM_PRIVATE;
	if (intid < GIC_NUM_SGIS)
		clear_sgis(g, 1u << intid);
	else
		wr32(g, g->gicd + GICV2_GICD_ICPENDR0, 1u << intid);
}

uint32_t gicv2_private_pending(const struct gicv2 *g)
{
	return rd32(g, g->gicd + GICV2_GICD_ISPENDR0);
}

uint32_t gicv2_private_active(const struct gicv2 *g)
{
	return rd32(g, g->gicd + GICV2_GICD_ISACTIVER0);
}

uint32_t gicv2_private_enabled(const struct gicv2 *g)
{
	return rd32(g, g->gicd + GICV2_GICD_ISENABLER0);
}

uint32_t gicv2_sgir_self(unsigned intid)
{
	return GICV2_SGIR_FILTER_SELF | (intid & GICV2_SGIR_INTID_MASK);
}

void gicv2_send_sgi_self(struct gicv2 *g, unsigned intid)
{
	wr32(g, g->gicd + GICV2_GICD_SGIR, gicv2_sgir_self(intid));
}

uint32_t gicv2_ack(struct gicv2 *g)
{
	return rd32(g, g->gicc + GICV2_GICC_IAR);
}

void gicv2_eoi(struct gicv2 *g, uint32_t iar)
{
	wr32(g, g->gicc + GICV2_GICC_EOIR, iar);
}

uint32_t gicv2_running_priority(const struct gicv2 *g)
{
	return rd32(g, g->gicc + GICV2_GICC_RPR);
}
