/* The GICv3 driver (drivers/irqchip/aarch64/gicv3.c) against a register model: the MADT's GIC entries, the
 * distributor's re-enable sequence (affinity routing before Group 1, each write waited on RWP),
 * the redistributor walk by MPIDR affinity (128 KiB and 256 KiB strides, the Last bit), the
 * GICR_WAKER wake-up and its bounded wait, the CPU interface's system-register writes, one
 * PPI's configuration in the SGI frame, and the self-SGI's ICC_SGI1R_EL1 encoding. */
#include "drivers/irqchip/aarch64/gicv3.h"
#include "tests/unit/regmodel.h"
#include "tests/unit/test.h"

#define SPACE_SYSREG 's'
#define GICD_BASE 0x08000000ull
#define GICR_BASE 0x080A0000ull
#define MPIDR_BOOT 0x80000000ull /* MPIDR_EL1 of QEMU virt's CPU 0: only the RES1 bit */
#define WAIT_TICKS 100
#define PIDR2_V3 0x3B

static struct regmodel m;
static uint64_t clock_ticks;
static bool waker_stuck, sre_stuck;

/* Register semantics the driver depends on: waking the redistributor clears ChildrenAsleep
 * (unless the test makes it stick); ICC_SRE_EL1.SRE may be stuck at 0. */
static uint32_t m_rd32(void *c, uint64_t a) { (void)c; return (uint32_t)regmodel_read(&m, SPACE_MMIO, a); }
static void m_wr32(void *c, uint64_t a, uint32_t v)
{
	(void)c;
	regmodel_write(&m, SPACE_MMIO, a, v);
	if ((a & 0xFFFFu) == GICR_WAKER && a >= GICR_BASE && !(v & GICR_WAKER_PROCESSOR_SLEEP) && !waker_stuck)
		regmodel_set(&m, SPACE_MMIO, a, v & ~GICR_WAKER_CHILDREN_ASLEEP);
}
static uint64_t m_rd64(void *c, uint64_t a) { (void)c; return regmodel_read(&m, SPACE_MMIO, a); }
static uint64_t m_srd(void *c, enum gic_sysreg r) { (void)c; return regmodel_read(&m, SPACE_SYSREG, r); }
static void m_swr(void *c, enum gic_sysreg r, uint64_t v)
{
	(void)c;
	regmodel_write(&m, SPACE_SYSREG, r, v);
	if (r == GIC_ICC_SRE && sre_stuck)
		regmodel_set(&m, SPACE_SYSREG, r, v & ~(uint64_t)ICC_SRE_SRE);
}
static uint64_t m_now(void *c) { (void)c; return clock_ticks++; }

static const struct gicv3_io model_io = { m_rd32, m_wr32, m_rd64, m_srd, m_swr, m_now, 0 };

/* A GICv3 as the firmware leaves it after ExitBootServices: distributor disabled, the boot
 * CPU's redistributor second in the range (the first is another CPU's), asleep. */
static void model_reset(uint32_t ctlr_found)
{
	regmodel_reset(&m);
	clock_ticks = 0;
	waker_stuck = sre_stuck = false;
	regmodel_set(&m, SPACE_MMIO, GICD_BASE + GICD_PIDR2, PIDR2_V3);
	regmodel_set(&m, SPACE_MMIO, GICD_BASE + GICD_TYPER, 0x37A0007);
	regmodel_set(&m, SPACE_MMIO, GICD_BASE + GICD_CTLR, ctlr_found);
	regmodel_set(&m, SPACE_MMIO, GICR_BASE + GICR_TYPER, 1ull << 40);                 /* Aff1 = 1 */
	regmodel_set(&m, SPACE_MMIO, GICR_BASE + GICR_STRIDE_V3 + GICR_TYPER, GICR_TYPER_LAST); /* ours */
	regmodel_set(&m, SPACE_MMIO, GICR_BASE + GICR_STRIDE_V3 + GICR_WAKER,
		     GICR_WAKER_PROCESSOR_SLEEP | GICR_WAKER_CHILDREN_ASLEEP);
	regmodel_set(&m, SPACE_SYSREG, GIC_ICC_SRE, 0x6);
	regmodel_set(&m, SPACE_SYSREG, GIC_ICC_CTLR, ICC_CTLR_EOIMODE);
}

static bool init_model(struct gicv3 *g)
{
	struct gicv3_bases b = { .gicd = GICD_BASE, .gicr = { { GICR_BASE, 0 } }, .gicr_ranges = 1 };

	*g = (struct gicv3){ .io = &model_io };
	return gicv3_init(g, &b, MPIDR_BOOT, WAIT_TICKS);
}

static void test_madt(void)
{
	uint8_t t[44 + 24 + 2 * 80 + 16] = { 'A', 'P', 'I', 'C' };
	struct gicv3_bases b;
	unsigned off = 44;

	t[4] = sizeof(t);
	t[off] = 0x0C; t[off + 1] = 24; t[off + 11] = 0x08; t[off + 20] = 3; /* GICD at 0x08000000, v3 */
	off += 24;
	for (unsigned i = 0; i < 2; i++, off += 80) {
		t[off] = 0x0B; t[off + 1] = 80; t[off + 12] = 1; /* enabled */
		t[off + 60 + 2] = 0x0A + 2 * i; t[off + 60 + 3] = 0x08; /* GICR 0x080A0000 + i * 0x20000 */
		t[off + 68] = (uint8_t)i; /* MPIDR Aff0 = i */
		t[off + 20] = (uint8_t)(23 + i); /* Performance Interrupt GSIV (distinct, to tell them apart) */
	}
	t[off] = 0x0E; t[off + 1] = 16; t[off + 4 + 2] = 0x0A; t[off + 4 + 3] = 0x08; t[off + 12 + 2] = 0xF6;
	CHECK(gicv3_madt_parse(t, sizeof(t), 0x80000001ull, &b));
	CHECK_EQ_U64(b.gicd, GICD_BASE);
	CHECK_EQ_U64(b.gic_version, 3);
	CHECK_EQ_U64(b.gicc_entries, 2);
	CHECK_EQ_U64(b.gicr_cpu, GICR_BASE + GICR_STRIDE_V3); /* the entry whose MPIDR is ours */
	CHECK_EQ_U64(b.gicr_ranges, 1);
	CHECK_EQ_U64(b.gicr[0].base, GICR_BASE);
	CHECK_EQ_U64(b.gicr[0].len, 0xF60000);
	CHECK_EQ_U64(b.gicc_gicr_entries, 2);
	CHECK(b.pmu_gsiv_found);
	CHECK_EQ_U64(b.pmu_gsiv, 24); /* our entry's, at offset 20 (ACPI 6.5 table 5.37) */
	CHECK(gicv3_madt_parse(t, sizeof(t), 0x80000007ull, &b)); /* no entry of ours */
	CHECK(!b.pmu_gsiv_found);
	t[0] = 'X';
	CHECK(!gicv3_madt_parse(t, sizeof(t), 0, &b));
}

/* MADT fixtures laid out as ACPI 6.5 5.2.12 gives them (not from our parser's tables): header 44
 * bytes; GICD (type 0x0C, 24 bytes: base at 8, version byte at 20); GICC (0x0B, 80 bytes: flags
 * at 12, Physical Base Address at 32, GICR Base Address at 60, MPIDR at 68); GICR (0x0E, 16
 * bytes: Discovery Range Base Address at 4, Length at 12). */
#define FX_MAX 512
struct madt_fx {
	uint8_t t[FX_MAX];
	unsigned len;
};

static void fx_put64(uint8_t *p, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void fx_begin(struct madt_fx *f, uint64_t gicd, unsigned version)
{
	memset(f, 0, sizeof(*f));
	memcpy(f->t, "APIC", 4);
	f->len = 44;
	f->t[f->len] = 0x0C;
	f->t[f->len + 1] = 24;
	fx_put64(f->t + f->len + 8, gicd);
	f->t[f->len + 20] = (uint8_t)version;
	f->len += 24;
}

static void fx_gicc(struct madt_fx *f, uint64_t mpidr, uint64_t gicc_base, uint64_t gicr_base)
{
	uint8_t *e = f->t + f->len;

	e[0] = 0x0B;
	e[1] = 80;
	e[12] = 1; /* Enabled */
	fx_put64(e + 32, gicc_base);
	fx_put64(e + 60, gicr_base);
	fx_put64(e + 68, mpidr);
	f->len += 80;
}

static void fx_gicr(struct madt_fx *f, uint64_t base, uint32_t len)
{
	uint8_t *e = f->t + f->len;

	e[0] = 0x0E;
	e[1] = 16;
	fx_put64(e + 4, base);
	e[12] = (uint8_t)len; e[13] = (uint8_t)(len >> 8); e[14] = (uint8_t)(len >> 16); e[15] = (uint8_t)(len >> 24);
	f->len += 16;
}

static void fx_end(struct madt_fx *f)
{
	f->t[4] = (uint8_t)f->len;
	f->t[5] = (uint8_t)(f->len >> 8);
}

#define SOCKET1_GICR 0x100080000ull
#define MPIDR_SOCKET1 (MPIDR_BOOT | (1u << 16)) /* Aff2 = 1: the second socket's first core */

/* Two sockets, one GICR structure each; the second socket's core finds its redistributor in the
 * second range after the first range's Last frame (GICv3 9.6: Last ends one contiguous range). */
static void test_madt_two_sockets(void)
{
	struct madt_fx f;
	struct gicv3_bases b;
	struct gicv3 g;

	fx_begin(&f, GICD_BASE, 3);
	fx_gicc(&f, MPIDR_BOOT, 0, 0);
	fx_gicc(&f, MPIDR_SOCKET1, 0, 0);
	fx_gicr(&f, GICR_BASE, 2 * GICR_STRIDE_V3);
	fx_gicr(&f, SOCKET1_GICR, 2 * GICR_STRIDE_V3);
	fx_end(&f);
	CHECK(gicv3_madt_parse(f.t, f.len, MPIDR_SOCKET1, &b));
	CHECK_EQ_U64(b.gicr_ranges, 2);
	CHECK_EQ_U64(b.gicr[0].base, GICR_BASE);
	CHECK_EQ_U64(b.gicr[1].base, SOCKET1_GICR);
	CHECK_EQ_U64(b.gicr[1].len, 2 * GICR_STRIDE_V3);
	CHECK_EQ_U64(b.gicr_cpu, 0);
	model_reset(0); /* range 0: Aff1=1, then Aff 0 (Last): neither is socket 1's */
	regmodel_set(&m, SPACE_MMIO, GICR_BASE + GICR_STRIDE_V3 + GICR_TYPER, GICR_TYPER_LAST);
	regmodel_set(&m, SPACE_MMIO, SOCKET1_GICR + GICR_TYPER, (1ull << 48) | GICR_TYPER_LAST); /* Aff2 = 1 */
	regmodel_set(&m, SPACE_MMIO, SOCKET1_GICR + GICR_WAKER, GICR_WAKER_PROCESSOR_SLEEP);
	g = (struct gicv3){ .io = &model_io };
	CHECK(gicv3_init(&g, &b, MPIDR_SOCKET1, WAIT_TICKS));
	CHECK_EQ_U64(g.rd, SOCKET1_GICR);
	CHECK_EQ_U64(g.frames_walked, 3);
}

/* More GICR structures than kept: counted, not silently lost. */
static void test_madt_gicr_overflow(void)
{
	struct madt_fx f;
	struct gicv3_bases b;

	fx_begin(&f, GICD_BASE, 3);
	for (unsigned i = 0; i < GIC_MAX_GICR_RANGES + 2; i++)
		fx_gicr(&f, GICR_BASE + i * 0x1000000ull, 0x100000);
	fx_end(&f);
	CHECK(gicv3_madt_parse(f.t, f.len, MPIDR_BOOT, &b));
	CHECK_EQ_U64(b.gicr_ranges, GIC_MAX_GICR_RANGES);
	CHECK_EQ_U64(b.gicr_ranges_dropped, 2);
}

/* Redistributors listed only in the GICC entries (no GICR structure): every core takes its own
 * entry's GICR Base Address; a core the table does not list has none. */
static void test_madt_gicc_only(void)
{
	struct madt_fx f;
	struct gicv3_bases boot, ap;

	fx_begin(&f, GICD_BASE, 3);
	fx_gicc(&f, MPIDR_BOOT, 0, GICR_BASE);
	fx_gicc(&f, MPIDR_BOOT | 1, 0, GICR_BASE + GICR_STRIDE_V3);
	fx_end(&f);
	CHECK(gicv3_madt_parse(f.t, f.len, MPIDR_BOOT, &boot));
	CHECK_EQ_U64(boot.gicr_ranges, 0);
	CHECK_EQ_U64(boot.gicr_cpu, GICR_BASE);
	CHECK_EQ_U64(boot.gicc_gicr_entries, 2);
	CHECK(gicv3_bases_for_cpu(&boot, f.t, f.len, MPIDR_BOOT | 1, &ap));
	CHECK_EQ_U64(ap.gicr_cpu, GICR_BASE + GICR_STRIDE_V3);
	CHECK_EQ_U64(ap.gicd, GICD_BASE);
	CHECK(!gicv3_bases_for_cpu(&boot, f.t, f.len, MPIDR_BOOT | 7, &ap));
	CHECK(!gicv3_bases_for_cpu(&boot, 0, 0, MPIDR_BOOT | 1, &ap)); /* no table, no range */
}

/* A GICv2 table as QEMU virt,gic-version=2 and a GIC-400 board give it: GICD version 2, GICC
 * entries with the CPU interface's Physical Base Address and GICR base 0, no GICR structure. */
static void test_madt_gicv2(void)
{
	struct madt_fx f;
	struct gicv3_bases b, ap;

	fx_begin(&f, GICD_BASE, 2);
	fx_gicc(&f, MPIDR_BOOT, 0x08010000ull, 0);
	fx_gicc(&f, MPIDR_BOOT | 1, 0x08010000ull, 0);
	fx_end(&f);
	CHECK(gicv3_madt_parse(f.t, f.len, MPIDR_BOOT | 1, &b));
	CHECK_EQ_U64(b.gic_version, 2);
	CHECK_EQ_U64(b.gicd, GICD_BASE);
	CHECK_EQ_U64(b.gicc, 0x08010000ull);
	CHECK_EQ_U64(b.gicr_cpu, 0);
	CHECK_EQ_U64(b.gicr_ranges, 0);
	CHECK_EQ_U64(b.gicc_gicr_entries, 0);
	CHECK(!gicv3_bases_for_cpu(&b, f.t, f.len, MPIDR_BOOT, &ap)); /* no redistributor anywhere */
	CHECK_EQ_U64(ap.gicc, 0x08010000ull); /* its CPU interface all the same */
}

static void test_init_sequence(void)
{
	struct gicv3 g;
	int i, j;

	model_reset(0); /* the firmware cleared everything, ARE included */
	CHECK(init_model(&g));
	CHECK_EQ_U64(g.arch_rev, 3);
	/* GICD_CTLR: groups off, then ARE alone, then ARE + Group 1 */
	i = regmodel_find(&m, SPACE_MMIO, GICD_BASE + GICD_CTLR, 0);
	CHECK(i >= 0 && m.log[i].value == 0);
	i = regmodel_find(&m, SPACE_MMIO, GICD_BASE + GICD_CTLR, (unsigned)i + 1);
	CHECK(i >= 0 && m.log[i].value == GICD_CTLR_ARE);
	i = regmodel_find(&m, SPACE_MMIO, GICD_BASE + GICD_CTLR, (unsigned)i + 1);
	CHECK(i >= 0 && m.log[i].value == (GICD_CTLR_ARE | GICD_CTLR_ENABLE_GRP1));
	CHECK_EQ_U64(g.ctlr_now, GICD_CTLR_ARE | GICD_CTLR_ENABLE_GRP1);
	/* the walk skipped Aff1=1's frame and took the second */
	CHECK_EQ_U64(g.rd, GICR_BASE + GICR_STRIDE_V3);
	CHECK_EQ_U64(g.sgi, GICR_BASE + GICR_STRIDE_V3 + GICR_SGI_OFFSET);
	CHECK_EQ_U64(g.frames_walked, 2);
	i = regmodel_find(&m, SPACE_MMIO, g.rd + GICR_WAKER, 0);
	CHECK(i >= 0 && m.log[i].value == GICR_WAKER_CHILDREN_ASLEEP); /* ProcessorSleep cleared */
	CHECK_EQ_U64(g.waker_found, GICR_WAKER_PROCESSOR_SLEEP | GICR_WAKER_CHILDREN_ASLEEP);
	i = regmodel_find(&m, SPACE_MMIO, g.sgi + GICR_ICENABLER0, 0);
	CHECK(i >= 0 && m.log[i].value == GIC_ALL_PRIVATE);
	j = regmodel_find(&m, SPACE_MMIO, g.sgi + GICR_ICPENDR0, 0);
	CHECK(j > i && m.log[j].value == GIC_ALL_PRIVATE);
	/* CPU interface, in order: SRE on, PMR open, BPR1 0, EOImode 0, Group 1 on */
	i = regmodel_find(&m, SPACE_SYSREG, GIC_ICC_SRE, 0);
	CHECK(i > j && m.log[i].value == (0x6 | ICC_SRE_SRE));
	j = regmodel_find(&m, SPACE_SYSREG, GIC_ICC_PMR, 0);
	CHECK(j > i && m.log[j].value == ICC_PMR_ALL);
	i = regmodel_find(&m, SPACE_SYSREG, GIC_ICC_BPR1, 0);
	CHECK(i > j && m.log[i].value == 0);
	j = regmodel_find(&m, SPACE_SYSREG, GIC_ICC_CTLR, 0);
	CHECK(j > i && m.log[j].value == 0);
	i = regmodel_find(&m, SPACE_SYSREG, GIC_ICC_IGRPEN1, 0);
	CHECK(i > j && m.log[i].value == ICC_IGRPEN1_ENABLE);
	CHECK_EQ_U64(g.timeouts, 0);
}

static void test_init_already_enabled(void)
{
	struct gicv3 g;

	model_reset(GICD_CTLR_ARE | GICD_CTLR_ENABLE_GRP1 | GICD_CTLR_DS);
	CHECK(init_model(&g));
	CHECK(regmodel_find(&m, SPACE_MMIO, GICD_BASE + GICD_CTLR, 0) < 0); /* nothing to change */
}

static void test_walk_vlpi_stride(void)
{
	struct gicv3 g;

	model_reset(0);
	regmodel_set(&m, SPACE_MMIO, GICR_BASE + GICR_TYPER, (1ull << 40) | GICR_TYPER_VLPIS);
	regmodel_set(&m, SPACE_MMIO, GICR_BASE + GICR_STRIDE_V4 + GICR_TYPER, GICR_TYPER_LAST);
	CHECK(init_model(&g));
	CHECK_EQ_U64(g.rd, GICR_BASE + GICR_STRIDE_V4);
	/* the Last frame is not ours: no redistributor, and the walk stopped there */
	model_reset(0);
	regmodel_set(&m, SPACE_MMIO, GICR_BASE + GICR_STRIDE_V3 + GICR_TYPER, GICR_TYPER_LAST | (2ull << 32));
	CHECK(!init_model(&g));
	CHECK_EQ_U64(g.frames_walked, 2);
	CHECK(g.reason != 0);
}

static void test_init_failures(void)
{
	struct gicv3 g;

	model_reset(0);
	regmodel_set(&m, SPACE_MMIO, GICD_BASE + GICD_PIDR2, 0x2B); /* GICv2 */
	CHECK(!init_model(&g));
	CHECK(m.nlog == 0); /* nothing written to a distributor that is not ours to drive */
	model_reset(0);
	waker_stuck = true;
	CHECK(!init_model(&g));
	CHECK_EQ_U64(g.timeouts, 1);
	CHECK(clock_ticks > WAIT_TICKS && clock_ticks < 4 * WAIT_TICKS); /* bounded */
	model_reset(0);
	sre_stuck = true;
	CHECK(!init_model(&g));
	CHECK(regmodel_find(&m, SPACE_SYSREG, GIC_ICC_IGRPEN1, 0) < 0);
}

static void test_private_config(void)
{
	struct gicv3 g;
	uint64_t prio;
	unsigned n;

	model_reset(0);
	CHECK(init_model(&g));
	regmodel_set(&m, SPACE_MMIO, g.sgi + GICR_IPRIORITYR + 24, 0x11223344);
	regmodel_set(&m, SPACE_MMIO, g.sgi + GICR_IGRPMODR0, GIC_ALL_PRIVATE);
	n = m.nlog;
	gicv3_private_config(&g, 27, 0x80);
	CHECK_EQ_U64(m.log[n].addr, g.sgi + GICR_ICENABLER0);
	CHECK_EQ_U64(m.log[n].value, 1u << 27);
	CHECK_EQ_U64(regmodel_get(&m, SPACE_MMIO, g.sgi + GICR_IGROUPR0), 1u << 27);
	CHECK_EQ_U64(regmodel_get(&m, SPACE_MMIO, g.sgi + GICR_IGRPMODR0), GIC_ALL_PRIVATE & ~(1u << 27));
	prio = regmodel_get(&m, SPACE_MMIO, g.sgi + GICR_IPRIORITYR + 24);
	CHECK_EQ_U64(prio, 0x80223344); /* INTID 27 is byte 3 of the word for 24-27 */
	CHECK_EQ_U64(regmodel_get(&m, SPACE_MMIO, g.sgi + GICR_ICPENDR0), 1u << 27);
	n = m.nlog;
	gicv3_private_enable(&g, 27, true);
	CHECK_EQ_U64(m.log[n].addr, g.sgi + GICR_ISENABLER0);
	CHECK_EQ_U64(m.log[n].value, 1u << 27);
	CHECK_EQ_U64(m.nlog, n + 1);
}

static void test_private_level(void)
{
	struct gicv3 g;
	unsigned n;

	model_reset(0);
	CHECK(init_model(&g));
	regmodel_set(&m, SPACE_MMIO, g.sgi + GICR_ICFGR1, 0xAAAAAAAAu); /* every PPI edge */
	gicv3_private_level(&g, 23);
	/* INTID 16 + k has bits [2k+1:2k]; the upper one set = edge: PPI 23's is bit 15 */
	CHECK_EQ_U64(regmodel_get(&m, SPACE_MMIO, g.sgi + GICR_ICFGR1), 0xAAAAAAAAu & ~(1u << 15));
	n = m.nlog;
	gicv3_private_level(&g, 1); /* an SGI: always edge, nothing written */
	gicv3_private_level(&g, 32);
	CHECK_EQ_U64(m.nlog, n);
}

static void test_sgi_and_eoi(void)
{
	struct gicv3 g;
	uint64_t mp = (4ull << 32) | (3u << 16) | (2u << 8) | 0x13;

	CHECK_EQ_U64(gicv3_sgi1r_self(MPIDR_BOOT, 1), (1ull << 24) | 1);
	CHECK_EQ_U64(gicv3_sgi1r_self(mp, 5), (1ull << 3) | (2ull << 16) | (5ull << 24) | (3ull << 32) | (1ull << 44) |
						      (4ull << 48));
	model_reset(0);
	CHECK(init_model(&g));
	gicv3_send_sgi_self(&g, 1);
	CHECK_EQ_U64(regmodel_get(&m, SPACE_SYSREG, GIC_ICC_SGI1R), (1ull << 24) | 1);
	regmodel_set(&m, SPACE_SYSREG, GIC_ICC_IAR1, 0xFF00001B);
	CHECK_EQ_U64(gicv3_ack(&g), 27);
	gicv3_eoi(&g, 27);
	CHECK_EQ_U64(m.log[m.nlog - 1].space, SPACE_SYSREG);
	CHECK_EQ_U64(m.log[m.nlog - 1].addr, GIC_ICC_EOIR1);
	CHECK_EQ_U64(m.log[m.nlog - 1].value, 27);
}

TEST_SUITE(gicv3) = {
	{ "madt_gic_entries", test_madt },
	{ "madt_two_sockets_every_gicr_range", test_madt_two_sockets },
	{ "madt_gicr_ranges_past_the_array_counted", test_madt_gicr_overflow },
	{ "madt_redistributors_only_in_gicc", test_madt_gicc_only },
	{ "madt_gicv2_table", test_madt_gicv2 },
	{ "init_sequence", test_init_sequence },
	{ "init_already_enabled", test_init_already_enabled },
	{ "walk_vlpi_stride_and_last", test_walk_vlpi_stride },
	{ "init_failures_bounded", test_init_failures },
	{ "private_config", test_private_config },
	{ "private_level", test_private_level },
	{ "sgi_self_and_eoi", test_sgi_and_eoi },
	{ 0, 0 },
};
