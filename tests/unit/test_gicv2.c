/* The GICv2 driver (drivers/irqchip/aarch64/gicv2.c) against tests/unit/gicv2_model.c, a model
 * of IHI 0048B's behaviour: the bring-up writes and their order, acknowledge order by priority
 * and INTID, the EOI of the raw GICC_IAR value (an SGI's source CPU included), the self-SGI
 * through GICD_SGIR, SGI pending state cleared through GICD_CPENDSGIRn, the banked per-CPU
 * registers of two cores, and the two security views. */
#include "drivers/irqchip/aarch64/gicv2.h"
#include "tests/unit/gicv2_model.h"
#include "tests/unit/test.h"

#define PRIO 0x80
#define PRIO_HIGH 0x40
#define INTID_SGI 1
#define INTID_CNTV 27
#define INTID_CNTP 30

static struct gicv2_model m;
static struct gicv3_io io;

static bool init_on(struct gicv2 *g, unsigned cpu, bool distributor)
{
	m.cpu = cpu;
	io = g2m_io;
	io.ctx = &m;
	*g = (struct gicv2){ .io = &io };
	return gicv2_init(g, G2M_GICD, G2M_GICC, distributor);
}

static void test_init_sequence(void)
{
	struct gicv2 g;
	int d, i, p, s, c;

	g2m_reset(&m, false);
	m.c[0].enable = 1u << 27; /* the firmware left the virtual timer enabled */
	m.c[0].cctlr = 1u << 9;   /* and EOImodeS set */
	CHECK(init_on(&g, 0, true));
	CHECK_EQ_U64(g.arch_rev, 2);
	CHECK(!g.security_extn);
	d = g2m_find(&m, G2M_GICD + GICD_CTLR, 0);
	CHECK(d >= 0 && (m.log[d].value & GICV2_GICD_CTLR_ENABLE));
	CHECK_EQ_U64(g.enabled_found, 0xFFFFu | 1u << 27); /* SGIs permanently enabled here */
	i = g2m_find(&m, G2M_GICD + GICV2_GICD_ICENABLER0, 0);
	CHECK(i > d && m.log[i].value == GIC_ALL_PRIVATE);
	p = g2m_find(&m, G2M_GICD + GICV2_GICD_ICPENDR0, 0);
	CHECK(p > i && m.log[p].value == 0xFFFF0000u);
	s = g2m_find(&m, G2M_GICD + GICV2_GICD_CPENDSGIR, 0);
	CHECK(s > i && m.log[s].value == 0xFFFFFFFFu); /* SGIs 0-3, every source */
	CHECK(g2m_find(&m, G2M_GICD + GICV2_GICD_CPENDSGIR + 12, 0) > s);
	/* CPU interface: PMR and BPR before the enable */
	CHECK(g2m_find(&m, G2M_GICC + GICV2_GICC_PMR, 0) > s);
	CHECK(g2m_find(&m, G2M_GICC + GICV2_GICC_BPR, 0) > s);
	c = g2m_find(&m, G2M_GICC + GICV2_GICC_CTLR, 0);
	CHECK(c > g2m_find(&m, G2M_GICC + GICV2_GICC_PMR, 0) && c > g2m_find(&m, G2M_GICC + GICV2_GICC_BPR, 0));
	CHECK_EQ_U64(m.c[0].cctlr, GICV2_GICC_CTLR_ENABLE); /* EOImode 0 */
	CHECK_EQ_U64(m.c[0].pmr, 0xF8);
	CHECK_EQ_U64(m.c[0].enable, 0);
	CHECK_EQ_U64(g.cpu_mask, 1);
}

static void test_init_refusals(void)
{
	struct gicv2 g;

	g2m_reset(&m, false);
	m.pidr2 = 0x3B; /* a GICv3 distributor */
	CHECK(!init_on(&g, 0, true));
	CHECK(g.reason != 0);
	CHECK_EQ_U64(m.nlog, 0);
	g2m_reset(&m, false);
	m.cpu = 0;
	io = g2m_io;
	io.ctx = &m;
	g = (struct gicv2){ .io = &io };
	CHECK(!gicv2_init(&g, G2M_GICD, 0, true)); /* no CPU interface address */
	CHECK_EQ_U64(m.nlog, 0);
}

/* The timers' PPIs pending together: the higher priority first, then by INTID at equal
 * priority; each EOI lets the next through; nothing left: 1023. */
static void test_ack_order_and_eoi(void)
{
	struct gicv2 g;
	uint32_t iar;

	g2m_reset(&m, false);
	m.c[0].group = GIC_ALL_PRIVATE; /* the firmware left everything in Group 1 */
	CHECK(init_on(&g, 0, true));
	gicv2_private_config(&g, INTID_CNTV, PRIO);
	gicv2_private_config(&g, INTID_CNTP, PRIO_HIGH);
	gicv2_private_config(&g, 26, PRIO);
	gicv2_private_enable(&g, INTID_CNTV, true);
	gicv2_private_enable(&g, INTID_CNTP, true);
	gicv2_private_enable(&g, 26, true);
	g2m_raise_ppi(&m, 0, INTID_CNTV);
	g2m_raise_ppi(&m, 0, INTID_CNTP);
	g2m_raise_ppi(&m, 0, 26);
	CHECK_EQ_U64(gicv2_private_pending(&g) >> 26, 0x13); /* 26, 27, 30 */
	iar = gicv2_ack(&g);
	CHECK_EQ_U64(iar, INTID_CNTP); /* 0x40 before 0x80 */
	CHECK_EQ_U64(gicv2_private_active(&g), 1u << INTID_CNTP);
	gicv2_eoi(&g, iar);
	CHECK_EQ_U64(gicv2_private_active(&g), 0);
	iar = gicv2_ack(&g);
	CHECK_EQ_U64(iar, 26); /* equal priority: the lower INTID */
	gicv2_eoi(&g, iar);
	CHECK_EQ_U64(gicv2_ack(&g) & GICV2_IAR_INTID_MASK, INTID_CNTV);
	gicv2_eoi(&g, INTID_CNTV);
	CHECK_EQ_U64(gicv2_ack(&g), GIC_INTID_SPURIOUS);
	CHECK_EQ_U64(m.eoi_mismatch, 0);
}

/* SGI to self: TargetListFilter 0b10, taken on the sending CPU alone with its CPUID in the IAR,
 * which the EOI must carry back. */
static void test_sgi_self_banked(void)
{
	struct gicv2 g0, g1;
	uint32_t iar;

	CHECK_EQ_U64(gicv2_sgir_self(INTID_SGI), 0x02000001u);
	CHECK_EQ_U64(gicv2_sgir_self(17), 0x02000001u); /* SGIINTID is 4 bits */
	g2m_reset(&m, false);
	CHECK(init_on(&g0, 0, true));
	CHECK(init_on(&g1, 1, false));
	CHECK_EQ_U64(g1.cpu_mask, 2);
	gicv2_private_config(&g1, INTID_SGI, PRIO);
	gicv2_private_enable(&g1, INTID_SGI, true);
	gicv2_send_sgi_self(&g1, INTID_SGI);
	CHECK_EQ_U64(m.log[m.nlog - 1].addr, G2M_GICD + GICV2_GICD_SGIR);
	CHECK_EQ_U64(m.c[0].sgi_sources[INTID_SGI], 0); /* not CPU 0's */
	iar = gicv2_ack(&g1);
	CHECK_EQ_U64(iar, INTID_SGI | 1u << GICV2_IAR_CPUID_SHIFT);
	gicv2_eoi(&g1, iar);
	CHECK_EQ_U64(m.eoi_mismatch, 0);
	CHECK_EQ_U64(m.c[1].active, 0);
	/* an SGI's pending state goes through GICD_CPENDSGIRn (ICPENDR0's SGI bits are read-only) */
	gicv2_send_sgi_self(&g1, INTID_SGI);
	CHECK_EQ_U64(gicv2_private_pending(&g1), 1u << INTID_SGI);
	gicv2_private_clear(&g1, INTID_SGI);
	CHECK_EQ_U64(gicv2_private_pending(&g1), 0);
}

/* Each core's SGI/PPI registers are its own: CPU 1's init does not touch the distributor's
 * enable, and enabling a PPI on one core leaves the other's alone. */
static void test_banked_per_cpu(void)
{
	struct gicv2 g0, g1;

	g2m_reset(&m, false);
	CHECK(init_on(&g0, 0, true));
	CHECK(init_on(&g1, 1, false));
	for (unsigned i = 0; i < m.nlog; i++)
		if (m.log[i].cpu == 1)
			CHECK(m.log[i].addr != G2M_GICD + GICD_CTLR);
	m.cpu = 1;
	gicv2_private_config(&g1, INTID_CNTV, PRIO);
	gicv2_private_level(&g1, 23);
	gicv2_private_enable(&g1, INTID_CNTV, true);
	CHECK_EQ_U64(m.c[1].enable, 1u << INTID_CNTV);
	CHECK_EQ_U64(m.c[0].enable, 0);
	CHECK_EQ_U64(m.c[1].prio[INTID_CNTV], PRIO);
	CHECK_EQ_U64(m.c[0].prio[INTID_CNTV], 0);
	CHECK_EQ_U64(m.c[1].cfg1 >> 15 & 1u, 0); /* PPI 23 level: bit 2*7+1 clear */
	m.cpu = 0;
	CHECK_EQ_U64(gicv2_private_enabled(&g0), 0xFFFFu);
}

/* With the Security Extensions we are the non-secure side: groups are the firmware's
 * (GICD_IGROUPR0 RAZ/WI, never written), bit 0 enables Group 1, interrupts still arrive. */
static void test_security_extensions(void)
{
	struct gicv2 g;

	g2m_reset(&m, true);
	CHECK(init_on(&g, 0, true));
	CHECK(g.security_extn);
	gicv2_private_config(&g, INTID_CNTV, PRIO);
	gicv2_private_enable(&g, INTID_CNTV, true);
	CHECK_EQ_U64(g2m_find(&m, G2M_GICD + GICV2_GICD_IGROUPR0, 0), -1);
	g2m_raise_ppi(&m, 0, INTID_CNTV);
	CHECK_EQ_U64(gicv2_ack(&g), INTID_CNTV);
}

TEST_SUITE(gicv2) = {
	{ "init_sequence", test_init_sequence },
	{ "init_refusals_write_nothing", test_init_refusals },
	{ "ack_order_priority_then_intid_and_eoi", test_ack_order_and_eoi },
	{ "sgi_self_cpuid_in_eoi_and_cpendsgir", test_sgi_self_banked },
	{ "banked_per_cpu_registers", test_banked_per_cpu },
	{ "security_extensions_nonsecure_view", test_security_extensions },
	{ 0, 0 },
};
