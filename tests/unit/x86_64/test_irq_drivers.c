/* Interrupt-source drivers against a register model: the local APIC timer in one-shot, periodic
 * and TSC-deadline modes in xAPIC (MMIO) and x2APIC (MSR) encodings, self-IPI, EOI and LVT
 * masking; I/O APIC redirection entries; PIC masking; HPET comparator programming and routing. */
#include "arch/x86_64/msr.h"
#include "drivers/timer/hpet.h"
#include "drivers/irqchip/x86_64/ioapic.h"
#include "drivers/irqchip/x86_64/lapic.h"
#include "drivers/irqchip/x86_64/lapic_timer.h"
#include "drivers/irqchip/x86_64/pic.h"
#include "tests/unit/regmodel.h"
#include "tests/unit/test.h"

#define XAPIC_BASE 0xFEE00000ull
#define IOAPIC_BASE 0xFEC00000ull
#define HPET_BASE 0xFED00000ull
#define VEC 0x40

/* The hardware accessors lapic.c falls back to; never reached with a model installed. */
int rdmsr_safe(uint32_t msr, uint64_t *value)
{
	(void)msr;
	*value = 0;
	return MSR_FAULT;
}

int wrmsr_safe(uint32_t msr, uint64_t value)
{
	(void)msr;
	(void)value;
	return MSR_FAULT;
}

static struct regmodel m;

static uint32_t m_rd32(void *c, uint64_t a) { (void)c; return (uint32_t)regmodel_read(&m, SPACE_MMIO, a); }
static void m_wr32(void *c, uint64_t a, uint32_t v) { (void)c; regmodel_write(&m, SPACE_MMIO, a, v); }
static uint64_t m_rd64(void *c, uint64_t a) { (void)c; return regmodel_read(&m, SPACE_MMIO, a); }
static void m_wr64(void *c, uint64_t a, uint64_t v) { (void)c; regmodel_write(&m, SPACE_MMIO, a, v); }
static int m_rdmsr(void *c, uint32_t r, uint64_t *v) { (void)c; *v = regmodel_read(&m, SPACE_MSR, r); return 0; }
static int m_wrmsr(void *c, uint32_t r, uint64_t v) { (void)c; regmodel_write(&m, SPACE_MSR, r, v); return 0; }
static uint8_t m_inb(void *c, uint16_t p) { (void)c; return (uint8_t)regmodel_read(&m, SPACE_PORT, p); }
static void m_outb(void *c, uint16_t p, uint8_t v) { (void)c; regmodel_write(&m, SPACE_PORT, p, v); }

static const struct lapic_io lapic_model = { m_rd32, m_wr32, m_rdmsr, m_wrmsr, 0, 0 };
/* The same model with the WRMSR fence logged as a write in space 'f', so a test sees where it
 * falls among the register writes. */
#define SPACE_FENCE 'f'
static void m_fence(void *c) { (void)c; regmodel_write(&m, SPACE_FENCE, 0, 0); }
static const struct lapic_io lapic_model_fenced = { m_rd32, m_wr32, m_rdmsr, m_wrmsr, 0, m_fence };
static const struct ioapic_io ioapic_model = { m_rd32, m_wr32, 0 };
static const struct hpet_io hpet_model = { m_rd64, m_wr64, 0 };
static const struct pic_io pic_model = { m_inb, m_outb, 0 };

/* A local APIC as lapic_init finds it: enabled, xAPIC or x2APIC per IA32_APIC_BASE. */
static struct lapic model_lapic(bool x2)
{
	struct lapic l = { .io = &lapic_model };

	regmodel_reset(&m);
	regmodel_set(&m, SPACE_MSR, MSR_IA32_APIC_BASE,
		     XAPIC_BASE | APIC_BASE_ENABLE | APIC_BASE_BSP | (x2 ? APIC_BASE_EXTD : 0));
	regmodel_set(&m, x2 ? SPACE_MSR : SPACE_MMIO, x2 ? X2APIC_MSR_BASE + (LAPIC_REG_SVR >> 4) :
		     XAPIC_BASE + LAPIC_REG_SVR, LAPIC_SVR_ENABLE | 0xFF);
	CHECK(lapic_init(&l, 0, x2));
	CHECK(l.x2apic == x2);
	m.nlog = 0;
	return l;
}

/* Where register `reg` lives in each encoding. */
static char space_of(bool x2) { return x2 ? SPACE_MSR : SPACE_MMIO; }
static uint64_t addr_of(bool x2, unsigned reg) { return x2 ? X2APIC_MSR_BASE + (reg >> 4) : XAPIC_BASE + reg; }

static void check_write(unsigned i, char space, uint64_t addr, uint64_t value)
{
	CHECK(i < m.nlog);
	if (i >= m.nlog)
		return;
	CHECK_EQ_U64(m.log[i].space, space);
	CHECK_EQ_U64(m.log[i].addr, addr);
	CHECK_EQ_U64(m.log[i].value, value);
}

static void timer_modes(bool x2)
{
	struct lapic l = model_lapic(x2);
	char s = space_of(x2);

	lapic_timer_oneshot(&l, VEC, 50000);
	CHECK_EQ_U64(m.nlog, 3);
	check_write(0, s, addr_of(x2, LAPIC_REG_TIMER_DIVIDE), LAPIC_DIVIDE_BY_1);
	check_write(1, s, addr_of(x2, LAPIC_REG_LVT_TIMER), VEC | LVT_TIMER_ONESHOT);
	check_write(2, s, addr_of(x2, LAPIC_REG_TIMER_INITIAL), 50000); /* the count starts last */

	m.nlog = 0;
	lapic_timer_periodic(&l, VEC, 1000);
	check_write(1, s, addr_of(x2, LAPIC_REG_LVT_TIMER), VEC | LVT_TIMER_PERIODIC);
	CHECK_EQ_U64(LVT_TIMER_PERIODIC, 1u << 17);
	check_write(2, s, addr_of(x2, LAPIC_REG_TIMER_INITIAL), 1000);

	m.nlog = 0;
	CHECK(lapic_timer_tsc_deadline(&l, VEC, 0x123456789ull));
	CHECK_EQ_U64(m.nlog, 2);
	check_write(0, s, addr_of(x2, LAPIC_REG_LVT_TIMER), VEC | LVT_TIMER_TSC_DEADLINE);
	CHECK_EQ_U64(LVT_TIMER_TSC_DEADLINE, 2u << 17);
	check_write(1, SPACE_MSR, MSR_IA32_TSC_DEADLINE, 0x123456789ull); /* after the LVT */

	m.nlog = 0;
	lapic_timer_stop(&l, VEC);
	check_write(0, s, addr_of(x2, LAPIC_REG_LVT_TIMER), VEC | LVT_MASKED);
	check_write(1, s, addr_of(x2, LAPIC_REG_TIMER_INITIAL), 0);

	m.nlog = 0;
	lapic_timer_free_run(&l);
	check_write(1, s, addr_of(x2, LAPIC_REG_LVT_TIMER), LVT_MASKED);
	check_write(2, s, addr_of(x2, LAPIC_REG_TIMER_INITIAL), 0xFFFFFFFFu);
}

static void timer_xapic(void) { timer_modes(false); }
static void timer_x2apic(void) { timer_modes(true); }

static void eoi_and_self_ipi(void)
{
	struct lapic l = model_lapic(false);

	lapic_eoi(&l);
	check_write(0, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_EOI, 0);
	lapic_self_ipi(&l, VEC);
	/* xAPIC: ICR low with the self shorthand (bits 19:18 = 01), fixed, assert */
	check_write(1, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_ICR_LOW, (1u << 18) | (1u << 14) | VEC);
	CHECK_EQ_U64(m.nlog, 2);

	l = model_lapic(true);
	lapic_eoi(&l);
	check_write(0, SPACE_MSR, 0x80B, 0);
	lapic_self_ipi(&l, VEC);
	check_write(1, SPACE_MSR, X2APIC_MSR_SELF_IPI, VEC); /* the SELF IPI MSR, 0x83F */
	CHECK_EQ_U64(X2APIC_MSR_SELF_IPI, 0x83F);
	CHECK_EQ_U64(m.nlog, 2);
}

/* Linux's weak_wrmsr_fence (arch/x86/include/asm/barrier.h: "mfence; lfence", "only required for
 * the IA32_TSC_DEADLINE and X2APIC MSRs": such a WRMSR is not serialising and MFENCE does not order
 * it) comes right before every x2APIC send (ICR, SELF IPI) and every TSC_DEADLINE write; Linux
 * does not fence the x2APIC EOI (native_apic_msr_eoi), nor do we. */
static void wrmsr_fence_before_send(void)
{
	struct lapic l = model_lapic(true);

	l.io = &lapic_model_fenced;
	lapic_self_ipi(&l, VEC);
	CHECK_EQ_U64(m.nlog, 2);
	check_write(0, SPACE_FENCE, 0, 0);
	check_write(1, SPACE_MSR, X2APIC_MSR_SELF_IPI, VEC);

	m.nlog = 0;
	CHECK_EQ_U64(lapic_send_nmi(&l, 7, 1000000000ull), LAPIC_SEND_OK);
	{
		int icr = regmodel_find(&m, SPACE_MSR, X2APIC_MSR_ICR, 0);

		CHECK(icr >= 1);
		if (icr >= 1)
			check_write((unsigned)icr - 1, SPACE_FENCE, 0, 0);
	}

	m.nlog = 0;
	CHECK(lapic_timer_tsc_deadline(&l, VEC, 0x1000));
	CHECK_EQ_U64(m.nlog, 3);
	check_write(0, SPACE_MSR, X2APIC_MSR_BASE + (LAPIC_REG_LVT_TIMER >> 4), VEC | LVT_TIMER_TSC_DEADLINE);
	check_write(1, SPACE_FENCE, 0, 0);
	check_write(2, SPACE_MSR, MSR_IA32_TSC_DEADLINE, 0x1000);

	m.nlog = 0;
	lapic_eoi(&l);
	CHECK_EQ_U64(m.nlog, 1);
	check_write(0, SPACE_MSR, X2APIC_MSR_BASE + (LAPIC_REG_EOI >> 4), 0);

	/* xAPIC: the self-IPI is an MMIO store, no WRMSR to order; the deadline MSR still is one */
	l = model_lapic(false);
	l.io = &lapic_model_fenced;
	lapic_self_ipi(&l, VEC);
	CHECK_EQ_U64(m.nlog, 1);
	m.nlog = 0;
	CHECK(lapic_timer_tsc_deadline(&l, VEC, 0x2000));
	check_write(1, SPACE_FENCE, 0, 0);
	check_write(2, SPACE_MSR, MSR_IA32_TSC_DEADLINE, 0x2000);
}

static void lvt_masking(void)
{
	struct lapic l = model_lapic(false);
	struct lapic_lvt_state st;

	/* maxlvt 5: perf and thermal exist, CMCI does not. LINT0 ExtINT live (OVMF), LINT1 NMI. */
	regmodel_set(&m, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_VERSION, (5u << 16) | 0x14);
	regmodel_set(&m, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_LVT_LINT0, LVT_DELIVERY_EXTINT);
	regmodel_set(&m, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_LVT_LINT1, LVT_DELIVERY_NMI);
	regmodel_set(&m, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_LVT_ERROR, LVT_MASKED | 0xFE);
	regmodel_set(&m, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_LVT_TIMER, LVT_MASKED | 0x20);
	lapic_lvt_mask_all(&l, &st);
	CHECK_EQ_U64(st.maxlvt, 5);
	CHECK(st.present[4] && !st.present[5]);
	CHECK_EQ_U64(st.found[0], LVT_DELIVERY_EXTINT);
	CHECK_EQ_U64(regmodel_get(&m, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_LVT_LINT0), LVT_DELIVERY_EXTINT | LVT_MASKED);
	CHECK_EQ_U64(regmodel_get(&m, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_LVT_LINT1), LVT_DELIVERY_NMI | LVT_MASKED);
	CHECK(regmodel_find(&m, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_LVT_ERROR, 0) < 0); /* already masked */
	CHECK(regmodel_find(&m, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_LVT_CMCI, 0) < 0);  /* absent */
	CHECK(regmodel_get(&m, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_LVT_PERF) & LVT_MASKED);
}

static void timer_arithmetic(void)
{
	uint64_t r;

	/* 10^7 ticks over 24.45e6 TSC cycles at 2.445 GHz: a 1 GHz timer (QEMU's). */
	CHECK_EQ_U64(lapic_timer_hz_from(4000000000u, 3990000000u, 24450000, 2445000000ull), 1000000000ull);
	CHECK_EQ_U64(lapic_timer_hz_from(5, 10, 100, 1000), 0); /* counted up: no rate */
	CHECK_EQ_U64(lapic_timer_hz_from(10, 5, 0, 1000), 0);
	r = lapic_ratio_q32(2445000000ull, 1000000000ull);
	CHECK_EQ_U64(lapic_ticks_to_tsc(50000, r), 122250); /* 50 us */
	CHECK(lapic_tsc_to_ticks(122250, r) == 50000 || lapic_tsc_to_ticks(122250, r) == 49999);
	CHECK_EQ_U64(lapic_ratio_q32(1, 0), 0);
	/* large counts do not overflow */
	CHECK_EQ_U64(lapic_timer_hz_from(0xFFFFFFFFu, 0, 0xFFFFFFFFull * 5, 5000000000ull), 1000000000ull);
}

static void ioapic_entries(void)
{
	struct ioapic a = { .io = &ioapic_model };
	uint64_t e;

	regmodel_reset(&m);
	m.sel_addr = IOAPIC_BASE + IOAPIC_IOREGSEL;
	m.win_addr = IOAPIC_BASE + IOAPIC_IOWIN;
	regmodel_set(&m, 'i', IOAPIC_REG_VERSION, (23u << 16) | 0x20); /* 24 pins */
	regmodel_set(&m, 'i', IOAPIC_REG_REDTBL + 2 * 2, 0x30);        /* pin 2 left live */
	regmodel_set(&m, 'i', IOAPIC_REG_REDTBL + 2 * 9, 0x39 | IOAPIC_RTE_LEVEL);
	for (unsigned p = 0; p < 24; p++)
		if (p != 2 && p != 9)
			regmodel_set(&m, 'i', IOAPIC_REG_REDTBL + 2 * p, IOAPIC_RTE_MASKED);
	CHECK(ioapic_init(&a, IOAPIC_BASE, 0));
	CHECK_EQ_U64(a.pins, 24);
	CHECK_EQ_U64(ioapic_mask_all(&a), 2);
	CHECK(regmodel_get(&m, 'i', IOAPIC_REG_REDTBL + 4) & IOAPIC_RTE_MASKED);
	CHECK(regmodel_get(&m, 'i', IOAPIC_REG_REDTBL + 18) & IOAPIC_RTE_MASKED);
	CHECK_EQ_U64(m.nlog, 2);

	e = ioapic_entry(VEC, 3, false, false, false);
	CHECK_EQ_U64(e, (3ull << 56) | VEC); /* fixed, physical, edge, high, unmasked */
	CHECK_EQ_U64(ioapic_entry(VEC, 0, true, true, true),
		     VEC | IOAPIC_RTE_LEVEL | IOAPIC_RTE_ACTIVE_LOW | IOAPIC_RTE_MASKED);
	m.nlog = 0;
	ioapic_write_entry(&a, 20, e); /* unmasking: destination (high) first */
	check_write(0, 'i', IOAPIC_REG_REDTBL + 41, 3u << 24);
	check_write(1, 'i', IOAPIC_REG_REDTBL + 40, VEC);
	CHECK_EQ_U64(ioapic_read_entry(&a, 20), e);
	m.nlog = 0;
	ioapic_write_entry(&a, 20, e | IOAPIC_RTE_MASKED); /* masking: low half first */
	check_write(0, 'i', IOAPIC_REG_REDTBL + 40, VEC | IOAPIC_RTE_MASKED);
	ioapic_mask(&a, 21);
	CHECK(regmodel_get(&m, 'i', IOAPIC_REG_REDTBL + 42) & IOAPIC_RTE_MASKED);
}

static void pic_masked(void)
{
	struct pic_state st;

	regmodel_reset(&m);
	regmodel_set(&m, SPACE_PORT, PIC1_DATA, 0xB8);
	regmodel_set(&m, SPACE_PORT, PIC2_DATA, 0x8E);
	pic_mask_all(&pic_model, &st);
	CHECK_EQ_U64(st.found1, 0xB8);
	CHECK_EQ_U64(st.found2, 0x8E);
	check_write(0, SPACE_PORT, 0x21, 0xFF);
	check_write(1, SPACE_PORT, 0xA1, 0xFF);
}

/* QEMU's HPET: 100 MHz, 3 comparators, each may drive inputs 2, 8 and 16-23 (intcap 0xff0104),
 * 64-bit, periodic-capable. */
static struct hpet model_hpet(bool legacy)
{
	struct hpet h = { .io = &hpet_model };

	regmodel_reset(&m);
	regmodel_set(&m, SPACE_MMIO, HPET_BASE + HPET_REG_CAP_ID,
		     (10000000ull << 32) | HPET_CAP_COUNT_SIZE_64 | (2ull << 8) | 1);
	regmodel_set(&m, SPACE_MMIO, HPET_BASE + HPET_REG_CONFIG, legacy ? HPET_CONFIG_LEGACY : 0);
	for (unsigned n = 0; n < 3; n++)
		regmodel_set(&m, SPACE_MMIO, HPET_BASE + HPET_TN_CONF(n),
			     (0xff0104ull << 32) | HPET_TN_PERIODIC_CAP | HPET_TN_SIZE_64_CAP |
			     (n == 0 ? HPET_TN_INT_ENB : 0));
	h.base = HPET_BASE;
	(void)hpet_init(&h, HPET_BASE); /* the model's counter does not move: liveness fails */
	m.nlog = 0;
	return h;
}

static void hpet_comparators(void)
{
	struct hpet h = model_hpet(false);
	unsigned timer = 99, route = 99;
	uint64_t conf;

	CHECK_EQ_U64(h.hz, 100000000ull);
	CHECK_EQ_U64(h.comparators, 3);
	CHECK_EQ_U64(hpet_route_cap(&h, 1), 0xff0104);
	CHECK(hpet_pick_route(&h, 24, &timer, &route));
	CHECK_EQ_U64(route, 23);
	CHECK_EQ_U64(timer, 2);
	CHECK(hpet_pick_route(&h, 10, &timer, &route)); /* a small I/O APIC: input 8 */
	CHECK_EQ_U64(route, 8);
	CHECK_EQ_U64(hpet_comparators_quiet(&h), 1);
	CHECK(!(regmodel_get(&m, SPACE_MMIO, HPET_BASE + HPET_TN_CONF(0)) & HPET_TN_INT_ENB));

	m.nlog = 0;
	hpet_comparator_oneshot(&h, 2, 23, 0x1000);
	CHECK_EQ_U64(m.nlog, 3);
	conf = (0xff0104ull << 32) | HPET_TN_PERIODIC_CAP | HPET_TN_SIZE_64_CAP | (23ull << 9);
	check_write(0, SPACE_MMIO, HPET_BASE + 0x140, conf); /* T2 conf at 0x100 + 0x20 * 2, enable off */
	check_write(1, SPACE_MMIO, HPET_BASE + 0x148, 0x1000);
	check_write(2, SPACE_MMIO, HPET_BASE + 0x140, conf | HPET_TN_INT_ENB); /* edge, one-shot */

	m.nlog = 0;
	CHECK(hpet_comparator_periodic(&h, 2, 23, 0x2000, 500));
	check_write(0, SPACE_MMIO, HPET_BASE + 0x140, conf | HPET_TN_PERIODIC | HPET_TN_VAL_SET);
	check_write(1, SPACE_MMIO, HPET_BASE + 0x148, 0x2000);
	check_write(2, SPACE_MMIO, HPET_BASE + 0x148, 500);
	check_write(3, SPACE_MMIO, HPET_BASE + 0x140, conf | HPET_TN_PERIODIC | HPET_TN_INT_ENB);

	m.nlog = 0;
	hpet_comparator_stop(&h, 2);
	check_write(0, SPACE_MMIO, HPET_BASE + 0x140, conf);
}

static void hpet_legacy_routing_respected(void)
{
	struct hpet h = model_hpet(true);
	unsigned timer = 0, route = 0;

	CHECK(h.legacy_routing);
	/* Only timer 2 is free; with one timer only (0 and 1 legacy) nothing else may be picked. */
	CHECK(hpet_pick_route(&h, 24, &timer, &route));
	CHECK_EQ_U64(timer, 2);
	regmodel_set(&m, SPACE_MMIO, HPET_BASE + HPET_TN_CONF(2), 0);
	CHECK(!hpet_pick_route(&h, 24, &timer, &route));
}

TEST_SUITE(irq_drivers) = {
	{ "timer_xapic", timer_xapic },
	{ "timer_x2apic", timer_x2apic },
	{ "eoi_and_self_ipi", eoi_and_self_ipi },
	{ "lvt_masking", lvt_masking },
	{ "wrmsr_fence_before_send", wrmsr_fence_before_send },
	{ "timer_arithmetic", timer_arithmetic },
	{ "ioapic_entries", ioapic_entries },
	{ "pic_masked", pic_masked },
	{ "hpet_comparators", hpet_comparators },
	{ "hpet_legacy_routing_respected", hpet_legacy_routing_respected },
	{ 0, 0 },
};
