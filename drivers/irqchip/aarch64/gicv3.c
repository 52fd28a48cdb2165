/* GICv3 distributor, redistributor and CPU interface (see gicv3.h). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "drivers/irqchip/aarch64/gicv3.h"

/* MADT layout (ACPI 6.5 5.2.12): entries after the 44-byte header; the GIC entries' fields. */
#define MADT_ENTRIES_OFF 44
#define MADT_SIG "APIC"
#define MADT_T_GICC 0x0B
#define MADT_T_GICD 0x0C
#define MADT_T_GICR 0x0E
#define GICC_MIN_LEN 76
#define GICC_OFF_FLAGS 12
#define GICC_OFF_PERF_GSIV 20 /* Performance Interrupt GSIV: the PMU overflow's INTID */
#define GICC_OFF_BASE 32      /* Physical Base Address: the GICv2 CPU interface (GICC_*) */
#define GICC_OFF_GICR 60
#define GICC_OFF_MPIDR 68
#define GICC_FLAG_ENABLED 1u
#define GICD_MIN_LEN 24
#define GICD_OFF_BASE 8
#define GICD_OFF_VERSION 20
#define GICR_ENTRY_MIN_LEN 16
#define GICR_OFF_BASE 4
#define GICR_OFF_LEN 12
#define MPIDR_AFF_MASK 0xFF00FFFFFFull /* Aff3, Aff2, Aff1, Aff0 */
#define PRIORITY_BYTES_PER_WORD 4
#define BITS_PER_BYTE 8

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

bool gicv3_madt_parse(const uint8_t *madt, uint32_t len, uint64_t mpidr, struct gicv3_bases *out)
{
	bool have_gicd = false;
	uint32_t table_len;

	*out = (struct gicv3_bases){ 0 };
	if (!madt || len < MADT_ENTRIES_OFF)
		return false;
	for (unsigned i = 0; i < 4; i++)
		if (madt[i] != (uint8_t)MADT_SIG[i])
			return false;
	table_len = le32(madt + 4);
	if (table_len < len)
		len = table_len;
	for (uint32_t off = MADT_ENTRIES_OFF; off + 2 <= len;) {
		const uint8_t *e = madt + off;
		unsigned type = e[0], elen = e[1];

		if (elen < 2 || off + elen > len)
			break;
		if (type == MADT_T_GICD && elen >= GICD_MIN_LEN) {
			out->gicd = le64(e + GICD_OFF_BASE);
			out->gic_version = e[GICD_OFF_VERSION];
			have_gicd = true;
		} else if (type == MADT_T_GICC && elen >= GICC_MIN_LEN) {
			bool enabled = (le32(e + GICC_OFF_FLAGS) & GICC_FLAG_ENABLED) != 0;

			out->gicc_entries++;
			if (enabled && le64(e + GICC_OFF_GICR))
				out->gicc_gicr_entries++;
			if (enabled && (le64(e + GICC_OFF_MPIDR) & MPIDR_AFF_MASK) == (mpidr & MPIDR_AFF_MASK)) {
				out->gicr_cpu = le64(e + GICC_OFF_GICR);
				out->gicc = le64(e + GICC_OFF_BASE);
				out->pmu_gsiv = le32(e + GICC_OFF_PERF_GSIV);
				out->pmu_gsiv_found = true;
			}
		} else if (type == MADT_T_GICR && elen >= GICR_ENTRY_MIN_LEN) {
			/* Every range: a two-socket machine has one per socket, ours may be any. */
			if (out->gicr_ranges < GIC_MAX_GICR_RANGES) {
				out->gicr[out->gicr_ranges].base = le64(e + GICR_OFF_BASE);
				out->gicr[out->gicr_ranges++].len = le32(e + GICR_OFF_LEN);
			} else {
				out->gicr_ranges_dropped++;
			}
		}
		off += elen;
	}
	return have_gicd;
}

bool gicv3_bases_for_cpu(const struct gicv3_bases *boot, const uint8_t *madt, uint32_t len, uint64_t mpidr,
			 struct gicv3_bases *out)
{
	struct gicv3_bases mine;

	*out = *boot;
	out->gicr_cpu = 0; /* the boot CPU's: never another core's */
	/* pmu_gsiv_found: its enabled GICC entry is in the table */
	if (madt && gicv3_madt_parse(madt, len, mpidr, &mine) && mine.pmu_gsiv_found) {
		out->gicr_cpu = mine.gicr_cpu;
		out->gicc = mine.gicc ? mine.gicc : boot->gicc;
		out->pmu_gsiv = mine.pmu_gsiv;
	}
	return out->gicr_cpu || out->gicr_ranges;
}

static uint32_t rd32(const struct gicv3 *g, uint64_t a)
{
	return g->io->read32(g->io->ctx, a);
}

static void wr32(const struct gicv3 *g, uint64_t a, uint32_t v)
{
	g->io->write32(g->io->ctx, a, v);
}

static uint64_t sr_read(const struct gicv3 *g, enum gic_sysreg r)
{
	return g->io->sysreg_read(g->io->ctx, r);
}

static void sr_write(const struct gicv3 *g, enum gic_sysreg r, uint64_t v)
{
	g->io->sysreg_write(g->io->ctx, r, v);
}

/* Wait until (read32(addr) & mask) == want, at most g->wait_ticks; false (and counted) if not. */
static bool wait_bits(struct gicv3 *g, uint64_t addr, uint32_t mask, uint32_t want)
{
	uint64_t t0 = g->io->now(g->io->ctx);

	while ((rd32(g, addr) & mask) != want) {
		if (g->io->now(g->io->ctx) - t0 > g->wait_ticks) {
			g->timeouts++;
			return false;
		}
	}
	return true;
}

static bool dist_write_ctlr(struct gicv3 *g, uint32_t v)
{
	wr32(g, g->gicd + GICD_CTLR, v);
	return wait_bits(g, g->gicd + GICD_CTLR, GICD_CTLR_RWP, 0);
}

/* Affinity routing first (it may only change with both groups disabled), then Group 1. */
static bool dist_enable(struct gicv3 *g)
{
	uint32_t c = g->ctlr_found & ~GICD_CTLR_RWP;

	if (!(c & GICD_CTLR_ARE)) {
		c &= ~(GICD_CTLR_ENABLE_GRP0 | GICD_CTLR_ENABLE_GRP1);
		if (!dist_write_ctlr(g, c))
			return false;
		c |= GICD_CTLR_ARE;
		if (!dist_write_ctlr(g, c))
			return false;
	}
	if (!(c & GICD_CTLR_ENABLE_GRP1) && !dist_write_ctlr(g, c | GICD_CTLR_ENABLE_GRP1))
		return false;
	g->ctlr_now = rd32(g, g->gicd + GICD_CTLR);
	return (g->ctlr_now & (GICD_CTLR_ARE | GICD_CTLR_ENABLE_GRP1)) == (GICD_CTLR_ARE | GICD_CTLR_ENABLE_GRP1);
}

/* The frame of one GICR range whose GICR_TYPER affinity is ours (frames of 128 KiB, 256 KiB
 * with VLPIs, up to the Last bit or the range's end). */
static bool walk_range(struct gicv3 *g, const struct gicr_range *r)
{
	uint64_t want = MPIDR_TO_GICR_AFF(g->mpidr), a = r->base;

	for (unsigned i = 0; a && i < GICR_MAX_FRAMES; i++) {
		uint64_t t = g->io->read64(g->io->ctx, a + GICR_TYPER);

		g->frames_walked++;
		if ((t >> GICR_TYPER_AFF_SHIFT) == want) {
			g->rd = a;
			return true;
		}
		if (t & GICR_TYPER_LAST)
			break;
		a += (t & GICR_TYPER_VLPIS) ? GICR_STRIDE_V4 : GICR_STRIDE_V3;
		if (r->len && a >= r->base + r->len)
			break;
	}
	return false;
}

/* This CPU's redistributor: the GICC entry's, else the first matching frame of the GICR ranges
 * in table order (each range's Last bit ends that range only: the next socket's follows). */
static bool find_redistributor(struct gicv3 *g, const struct gicv3_bases *b)
{
	if (b->gicr_cpu) {
		g->rd = b->gicr_cpu;
		return true;
	}
	for (unsigned i = 0; i < b->gicr_ranges && i < GIC_MAX_GICR_RANGES; i++)
		if (walk_range(g, &b->gicr[i]))
			return true;
	return false;
}

bool gicv3_init(struct gicv3 *g, const struct gicv3_bases *b, uint64_t mpidr, uint64_t wait_ticks)
{
	uint64_t sre;

	g->ready = false;
	g->gicd = b->gicd;
	g->mpidr = mpidr;
	g->wait_ticks = wait_ticks;
	g->arch_rev = (rd32(g, g->gicd + GICD_PIDR2) >> GIC_PIDR2_ARCHREV_SHIFT) & GIC_PIDR2_ARCHREV_MASK;
	if (g->arch_rev != 3 && g->arch_rev != 4) {
		g->reason = "GICD_PIDR2.ArchRev is not 3 or 4: not a GICv3/v4 distributor";
		return false;
	}
	g->typer = rd32(g, g->gicd + GICD_TYPER);
	g->ctlr_found = rd32(g, g->gicd + GICD_CTLR);
	if (!dist_enable(g)) {
		g->reason = "GICD_CTLR: affinity routing and Group 1 could not be enabled";
		return false;
	}
	if (!find_redistributor(g, b)) {
		g->reason = "no redistributor with this CPU's MPIDR affinity";
		return false;
	}
	g->sgi = g->rd + GICR_SGI_OFFSET;
	g->waker_found = rd32(g, g->rd + GICR_WAKER);
	wr32(g, g->rd + GICR_WAKER, g->waker_found & ~GICR_WAKER_PROCESSOR_SLEEP);
	if (!wait_bits(g, g->rd + GICR_WAKER, GICR_WAKER_CHILDREN_ASLEEP, 0)) {
		g->reason = "GICR_WAKER.ChildrenAsleep stayed set: the redistributor did not wake";
		return false;
	}
	/* Nothing the firmware left enabled may reach us: every SGI/PPI off, recorded. */
	g->enabled_found = rd32(g, g->sgi + GICR_ISENABLER0);
	wr32(g, g->sgi + GICR_ICENABLER0, GIC_ALL_PRIVATE);
	(void)wait_bits(g, g->rd + GICR_CTLR, GICR_CTLR_RWP, 0);
	wr32(g, g->sgi + GICR_ICPENDR0, GIC_ALL_PRIVATE);
	/* CPU interface: system registers on, all priorities through, EOI drops and deactivates. */
	g->sre_found = sr_read(g, GIC_ICC_SRE);
	sr_write(g, GIC_ICC_SRE, g->sre_found | ICC_SRE_SRE);
	sre = sr_read(g, GIC_ICC_SRE);
	if (!(sre & ICC_SRE_SRE)) {
		g->reason = "ICC_SRE_EL1.SRE stays 0: the GIC system-register interface is disabled";
		return false;
	}
	sr_write(g, GIC_ICC_PMR, ICC_PMR_ALL);
	sr_write(g, GIC_ICC_BPR1, 0);
	sr_write(g, GIC_ICC_CTLR, sr_read(g, GIC_ICC_CTLR) & ~(uint64_t)ICC_CTLR_EOIMODE);
	sr_write(g, GIC_ICC_IGRPEN1, ICC_IGRPEN1_ENABLE);
	g->ready = true;
	return true;
}

void gicv3_private_config(struct gicv3 *g, unsigned intid, uint8_t priority)
{
	uint32_t bit = 1u << (intid % GIC_NUM_PRIVATE);
	uint64_t pa = g->sgi + GICR_IPRIORITYR + (intid / PRIORITY_BYTES_PER_WORD) * PRIORITY_BYTES_PER_WORD;
	unsigned shift = (intid % PRIORITY_BYTES_PER_WORD) * BITS_PER_BYTE;

	gicv3_private_enable(g, intid, false);
	wr32(g, g->sgi + GICR_IGROUPR0, rd32(g, g->sgi + GICR_IGROUPR0) | bit);  /* Group 1 ... */
	wr32(g, g->sgi + GICR_IGRPMODR0, rd32(g, g->sgi + GICR_IGRPMODR0) & ~bit); /* ... non-secure */
	wr32(g, pa, (rd32(g, pa) & ~(0xFFu << shift)) | (uint32_t)priority << shift);
	gicv3_private_clear(g, intid);
}

void gicv3_private_level(struct gicv3 *g, unsigned intid)
{
	uint64_t a = g->sgi + GICR_ICFGR1;
	unsigned shift;

	if (intid < GIC_NUM_SGIS || intid >= GIC_NUM_PRIVATE)
		return; /* SGIs are always edge-triggered */
	shift = (intid - GIC_NUM_SGIS) * GICR_ICFGR_BITS_PER_INTID + GICR_ICFGR_EDGE_BIT;
	wr32(g, a, rd32(g, a) & ~(1u << shift));
}

void gicv3_private_enable(struct gicv3 *g, unsigned intid, bool on)
{
	uint32_t bit = 1u << (intid % GIC_NUM_PRIVATE);

	if (on) {
		wr32(g, g->sgi + GICR_ISENABLER0, bit);
		return;
	}
	wr32(g, g->sgi + GICR_ICENABLER0, bit);
	(void)wait_bits(g, g->rd + GICR_CTLR, GICR_CTLR_RWP, 0); /* the disable has taken effect */
}

void gicv3_private_clear(struct gicv3 *g, unsigned intid)
{
	wr32(g, g->sgi + GICR_ICPENDR0, 1u << (intid % GIC_NUM_PRIVATE));
}

uint32_t gicv3_private_pending(const struct gicv3 *g)
{
	return rd32(g, g->sgi + GICR_ISPENDR0);
}

uint32_t gicv3_private_active(const struct gicv3 *g)
{
	return rd32(g, g->sgi + GICR_ISACTIVER0);
}

uint32_t gicv3_private_enabled(const struct gicv3 *g)
{
	return rd32(g, g->sgi + GICR_ISENABLER0);
}

uint64_t gicv3_sgi1r_self(uint64_t mpidr, unsigned intid)
{
	uint64_t aff0 = MPIDR_AFF0(mpidr);

	return (1ull << (aff0 % GIC_SGI_TARGETS_PER_RANGE)) |
	       (uint64_t)MPIDR_AFF1(mpidr) << ICC_SGI1R_AFF1_SHIFT |
	       (uint64_t)(intid % GIC_NUM_SGIS) << ICC_SGI1R_INTID_SHIFT |
	       (uint64_t)MPIDR_AFF2(mpidr) << ICC_SGI1R_AFF2_SHIFT |
	       (aff0 / GIC_SGI_TARGETS_PER_RANGE) << ICC_SGI1R_RS_SHIFT |
	       (uint64_t)MPIDR_AFF3(mpidr) << ICC_SGI1R_AFF3_SHIFT;
}

void gicv3_send_sgi_self(struct gicv3 *g, unsigned intid)
{
	sr_write(g, GIC_ICC_SGI1R, gicv3_sgi1r_self(g->mpidr, intid));
}

uint32_t gicv3_ack(struct gicv3 *g)
{
	return (uint32_t)sr_read(g, GIC_ICC_IAR1) & GIC_INTID_MASK;
}

void gicv3_eoi(struct gicv3 *g, uint32_t intid)
{
	sr_write(g, GIC_ICC_EOIR1, intid);
}

uint64_t gicv3_running_priority(const struct gicv3 *g)
{
	return sr_read(g, GIC_ICC_RPR);
}
