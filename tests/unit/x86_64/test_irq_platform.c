/* The interrupt platform against one register model of a q35-like PC (xAPIC, one 24-input
 * I/O APIC, QEMU's HPET, the PIC): init masks every firmware source and calibrates the APIC timer;
 * arming writes exactly the one register that starts the count; the HPET comparator is routed
 * through its I/O APIC input to our vector and CPU, and masked again on release. */
#include <string.h>

#include "arch/x86_64/msr.h"
#include "arch/cycles.h"
#include "bench/probes/irq/context.h"
#include "efi/x86_64/irq_platform.h"
#include "tests/unit/regmodel.h"
#include "tests/unit/test.h"

#define XAPIC_BASE 0xFEE00000ull
#define IOAPIC_BASE 0xFEC00000ull
#define HPET_BASE 0xFED00000ull
#define TSC_HZ 2000000000ull
#define APIC_ID 3
#define VEC 0x40

static struct regmodel pm;
static uint32_t ccr = 0xFFFFFFFFu;

/* The HPET main counter: frozen at the model's value, or (hpet_live) running off the host TSC at
 * one tick per HPET_MODEL_DIV cycles - a different rate from the nominal period in the
 * capabilities, so a deadline computed from the nominal period shows. A read latches the counter
 * `latch_pre` cycles into the access and returns `latch_post` cycles later (the unknown latch
 * time inside the TSC bracket); latch_tsc is when it latched. */
#define HPET_MODEL_DIV 25 /* 80 MHz against the 2 GHz nominal TSC; the capabilities say 100 MHz */
static int hpet_live;
static uint64_t latch_pre, latch_post, latch_tsc;

static void spin_cycles(uint64_t n)
{
	uint64_t t = cycles_read();

	while (cycles_read() - t < n)
		;
}

/* The current-count register runs down 100 ticks per read: a timer the calibration sees move. */
static uint32_t rd32(void *c, uint64_t a)
{
	(void)c;
	if (a == XAPIC_BASE + LAPIC_REG_TIMER_CURRENT)
		return ccr -= 100;
	return (uint32_t)regmodel_read(&pm, SPACE_MMIO, a);
}

/* SDM "End-of-Interrupt": an EOI write retires the highest-priority in-service vector (the
 * highest ISR bit); the written value is ignored. */
static void eoi_model(void)
{
	for (int r = LAPIC_VEC_REGS - 1; r >= 0; r--) {
		uint64_t a = XAPIC_BASE + LAPIC_REG_ISR0 + (uint64_t)r * LAPIC_VEC_REG_STRIDE;
		uint32_t isr = (uint32_t)regmodel_get(&pm, SPACE_MMIO, a);

		if (isr) {
			regmodel_set(&pm, SPACE_MMIO, a, isr & ~(1u << (31 - __builtin_clz(isr))));
			return;
		}
	}
}

static void wr32(void *c, uint64_t a, uint32_t v)
{
	(void)c;
	regmodel_write(&pm, SPACE_MMIO, a, v);
	if (a == XAPIC_BASE + LAPIC_REG_EOI)
		eoi_model();
}
static uint64_t rd64(void *c, uint64_t a)
{
	(void)c;
	if (hpet_live && a == HPET_BASE + HPET_REG_MAIN_COUNTER) {
		spin_cycles(latch_pre);
		latch_tsc = cycles_read();
		spin_cycles(latch_post);
		return latch_tsc / HPET_MODEL_DIV;
	}
	return regmodel_read(&pm, SPACE_MMIO, a);
}

/* Time jumping over an arm (an SMI or NMI between the counter read and the comparator taking
 * effect), on the frozen counter: cmp_jumps comparator writes each leave the counter
 * JUMP_PAST ticks beyond the value written, enable_jump one enable leaves it as far beyond the
 * comparator. IA-PC HPET spec 1.0a, 2.3.9.2.1 ("One-shot Mode"): the interrupt is generated when
 * the main counter equals the comparator, with Tn_INT_ENB_CNF set; counting through the value with
 * the interrupt enabled raises it (here: the IRR bit of the vector in the comparator's I/O APIC
 * entry, interrupts being masked while arming), jumping over it with the interrupt off does not. */
#define HPET_MODEL_TIMER 2
#define HPET_MODEL_GSI 23
#define JUMP_PAST 50
static int cmp_jumps, enable_jump;
static uint64_t latch_at_cmp; /* latch_tsc of the read before the last comparator write */

static void counter_set(uint64_t now)
{
	uint64_t old = regmodel_get(&pm, SPACE_MMIO, HPET_BASE + HPET_REG_MAIN_COUNTER);
	uint64_t cmp = regmodel_get(&pm, SPACE_MMIO, HPET_BASE + HPET_TN_CMP(HPET_MODEL_TIMER));
	uint64_t conf = regmodel_get(&pm, SPACE_MMIO, HPET_BASE + HPET_TN_CONF(HPET_MODEL_TIMER));
	unsigned vec = (unsigned)regmodel_get(&pm, 'i', IOAPIC_REG_REDTBL + 2 * HPET_MODEL_GSI) & 0xFF;
	uint64_t irr = XAPIC_BASE + LAPIC_REG_IRR0 + (vec / 32) * LAPIC_VEC_REG_STRIDE;

	if ((conf & HPET_TN_INT_ENB) && old < cmp && cmp <= now)
		regmodel_set(&pm, SPACE_MMIO, irr, regmodel_get(&pm, SPACE_MMIO, irr) | 1u << (vec % 32));
	regmodel_set(&pm, SPACE_MMIO, HPET_BASE + HPET_REG_MAIN_COUNTER, now);
}

static void wr64(void *c, uint64_t a, uint64_t v)
{
	(void)c;
	regmodel_write(&pm, SPACE_MMIO, a, v);
	if (a == HPET_BASE + HPET_TN_CMP(HPET_MODEL_TIMER)) {
		latch_at_cmp = latch_tsc;
		if (cmp_jumps > 0) {
			cmp_jumps--;
			counter_set(v + JUMP_PAST);
		}
	}
	if (a == HPET_BASE + HPET_TN_CONF(HPET_MODEL_TIMER) && (v & HPET_TN_INT_ENB) && enable_jump) {
		enable_jump = 0;
		counter_set(regmodel_get(&pm, SPACE_MMIO, HPET_BASE + HPET_TN_CMP(HPET_MODEL_TIMER)) + JUMP_PAST);
	}
}
static int rdmsr(void *c, uint32_t r, uint64_t *v) { (void)c; *v = regmodel_read(&pm, SPACE_MSR, r); return 0; }
static int wrmsr(void *c, uint32_t r, uint64_t v) { (void)c; regmodel_write(&pm, SPACE_MSR, r, v); return 0; }
static uint8_t inb_(void *c, uint16_t p) { (void)c; return (uint8_t)regmodel_read(&pm, SPACE_PORT, p); }
static void outb_(void *c, uint16_t p, uint8_t v) { (void)c; regmodel_write(&pm, SPACE_PORT, p, v); }

static const struct lapic_io lio = { rd32, wr32, rdmsr, wrmsr, 0, 0 };
static const struct ioapic_io iio = { rd32, wr32, 0 };
static const struct pic_io pio = { inb_, outb_, 0 };
static const struct hpet_io hio = { rd64, wr64, 0 };

static struct hpet hpet;
static struct madt_info madt;
/* The CPU as CPUID describes it: no x2APIC; with and without TSC-deadline. */
static const struct cpu_info cpu_plain = { .is_intel = true, .family = 6 };
static const struct cpu_info cpu_deadline = { .is_intel = true, .family = 6, .tsc_deadline = true };

static void machine(struct irq_platform *p)
{
	regmodel_reset(&pm);
	pm.sel_addr = IOAPIC_BASE + IOAPIC_IOREGSEL;
	pm.win_addr = IOAPIC_BASE + IOAPIC_IOWIN;
	regmodel_set(&pm, SPACE_MSR, MSR_IA32_APIC_BASE, XAPIC_BASE | APIC_BASE_ENABLE | APIC_BASE_BSP);
	regmodel_set(&pm, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_ID, (uint32_t)APIC_ID << 24);
	regmodel_set(&pm, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_VERSION, (5u << 16) | 0x14);
	regmodel_set(&pm, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_SVR, LAPIC_SVR_ENABLE | 0x0F); /* odd vector */
	regmodel_set(&pm, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_LVT_LINT0, LVT_DELIVERY_EXTINT);
	regmodel_set(&pm, 'i', IOAPIC_REG_VERSION, (23u << 16) | 0x20);
	for (unsigned pin = 0; pin < 24; pin++)
		regmodel_set(&pm, 'i', IOAPIC_REG_REDTBL + 2 * pin, IOAPIC_RTE_MASKED);
	regmodel_set(&pm, 'i', IOAPIC_REG_REDTBL + 2 * 4, 0x34); /* a live input left by firmware */
	regmodel_set(&pm, SPACE_PORT, PIC1_DATA, 0xB8);
	regmodel_set(&pm, SPACE_MMIO, HPET_BASE + HPET_REG_CAP_ID, (10000000ull << 32) | HPET_CAP_COUNT_SIZE_64 | (2ull << 8));
	for (unsigned n = 0; n < 3; n++)
		regmodel_set(&pm, SPACE_MMIO, HPET_BASE + HPET_TN_CONF(n), (0xff0104ull << 32) | HPET_TN_SIZE_64_CAP);
	regmodel_set(&pm, SPACE_MMIO, HPET_BASE + HPET_REG_MAIN_COUNTER, 5000);
	hpet = (struct hpet){ .io = &hio, .base = HPET_BASE, .hz = 100000000, .comparators = 3, .counter_64bit = true };
	madt = (struct madt_info){ .valid = true, .lapic_base = XAPIC_BASE, .num_ioapics = 1 };
	madt.ioapics[0] = (struct madt_ioapic){ 0, (uint32_t)IOAPIC_BASE, 0 };
	*p = (struct irq_platform){ .lapic_io = &lio, .ioapic_io = &iio, .pic_io = &pio };
	ccr = 0xFFFFFFFFu;
	hpet_live = 0;
	latch_pre = latch_post = 0;
	cmp_jumps = enable_jump = 0;
}

static void init_masks_everything(void)
{
	static struct irq_platform p;

	machine(&p);
	CHECK(irq_platform_init(&p, &madt, &hpet, &cpu_plain, TSC_HZ));
	CHECK(p.ready);
	CHECK_EQ_U64(p.apic_id, APIC_ID);
	CHECK_EQ_U64(regmodel_get(&pm, SPACE_PORT, PIC1_DATA), 0xFF);
	CHECK_EQ_U64(regmodel_get(&pm, SPACE_PORT, PIC2_DATA), 0xFF);
	CHECK_EQ_U64(p.pic.found1, 0xB8);
	CHECK(regmodel_get(&pm, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_LVT_LINT0) & LVT_MASKED);
	CHECK_EQ_U64(p.ioapic_live_found, 1);
	CHECK(regmodel_get(&pm, 'i', IOAPIC_REG_REDTBL + 8) & IOAPIC_RTE_MASKED);
	CHECK_EQ_U64(regmodel_get(&pm, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_SVR), LAPIC_SVR_ENABLE | 0xFF);
	CHECK_EQ_U64(p.svr_found & 0xFF, 0x0F);
	CHECK_EQ_U64(regmodel_get(&pm, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_TPR), 0);
	CHECK(p.timer_hz > 0);            /* the model's counter moved */
	CHECK(p.hpet_irq);
	CHECK_EQ_U64(p.hpet_gsi, 23);
	CHECK_EQ_U64(p.hpet_timer, 2);
	CHECK(irq_source_unavailable(&p, IRQ_SRC_APIC_DEADLINE) != 0); /* CPUID said no */
	CHECK(irq_source_unavailable(&p, IRQ_SRC_HPET) == 0);
}

static void arming_writes(void)
{
	static struct irq_platform p;
	uint64_t arm, t_before, deadline;
	int i;

	machine(&p);
	CHECK(irq_platform_init(&p, &madt, &hpet, &cpu_deadline, TSC_HZ));
	/* pin the ratio: a 1 GHz timer against the 2 GHz TSC */
	p.timer_hz = 1000000000ull;
	p.timer_ratio_q32 = lapic_ratio_q32(TSC_HZ, p.timer_hz);

	irq_source_prepare(&p, IRQ_SRC_APIC_ONESHOT, VEC);
	CHECK_EQ_U64(regmodel_get(&pm, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_LVT_TIMER), VEC | LVT_TIMER_ONESHOT);
	pm.nlog = 0;
	t_before = cycles_read();
	deadline = irq_source_arm(&p, IRQ_SRC_APIC_ONESHOT, VEC, 100000, &arm); /* 50 us */
	CHECK_EQ_U64(pm.nlog, 1); /* only the initial count: the arming window is one write */
	CHECK_EQ_U64(pm.log[0].addr, XAPIC_BASE + LAPIC_REG_TIMER_INITIAL);
	CHECK(pm.log[0].value == 50000 || pm.log[0].value == 49999);
	CHECK(deadline + 2 >= t_before + 100000 && deadline <= cycles_read() + 100000);

	irq_source_prepare(&p, IRQ_SRC_APIC_DEADLINE, VEC);
	pm.nlog = 0;
	deadline = irq_source_arm(&p, IRQ_SRC_APIC_DEADLINE, VEC, 1000, 0);
	CHECK_EQ_U64(pm.nlog, 1);
	CHECK_EQ_U64(pm.log[0].space, SPACE_MSR);
	CHECK_EQ_U64(pm.log[0].addr, MSR_IA32_TSC_DEADLINE);
	CHECK_EQ_U64(pm.log[0].value, deadline); /* the deadline is the value written */
	irq_source_release(&p, IRQ_SRC_APIC_DEADLINE, VEC);
	CHECK_EQ_U64(regmodel_get(&pm, SPACE_MSR, MSR_IA32_TSC_DEADLINE), 0);
	CHECK(regmodel_get(&pm, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_LVT_TIMER) & LVT_MASKED);

	/* HPET: routed through input 23 to VEC on this CPU, edge, unmasked; comparator = now + ticks */
	irq_source_prepare(&p, IRQ_SRC_HPET, VEC);
	CHECK_EQ_U64(regmodel_get(&pm, 'i', IOAPIC_REG_REDTBL + 46), VEC);
	CHECK_EQ_U64(regmodel_get(&pm, 'i', IOAPIC_REG_REDTBL + 47), (uint32_t)APIC_ID << 24);
	pm.nlog = 0;
	(void)irq_source_arm(&p, IRQ_SRC_HPET, VEC, 100000, 0); /* 50 us = 5000 HPET ticks */
	i = regmodel_find(&pm, SPACE_MMIO, HPET_BASE + HPET_TN_CMP(2), 0);
	CHECK(i >= 0);
	if (i >= 0)
		CHECK(pm.log[i].value == 5000 + 5000 || pm.log[i].value == 5000 + 4999);
	CHECK(regmodel_get(&pm, SPACE_MMIO, HPET_BASE + HPET_TN_CONF(2)) & HPET_TN_INT_ENB);
	irq_source_release(&p, IRQ_SRC_HPET, VEC);
	CHECK(!(regmodel_get(&pm, SPACE_MMIO, HPET_BASE + HPET_TN_CONF(2)) & HPET_TN_INT_ENB));
	CHECK(regmodel_get(&pm, 'i', IOAPIC_REG_REDTBL + 46) & IOAPIC_RTE_MASKED);

	/* self-IPI: the deadline is the send time, one ICR write */
	pm.nlog = 0;
	(void)irq_source_arm(&p, IRQ_SRC_SELF_IPI, VEC, 0, 0);
	CHECK_EQ_U64(pm.nlog, 1);
	CHECK_EQ_U64(pm.log[0].addr, XAPIC_BASE + LAPIC_REG_ICR_LOW);
}

/* The HPET/TSC ratio comes from the TSC, not the nominal period: a counter running at 80 MHz
 * whose capabilities claim 100 MHz calibrates to 80 MHz, 25 TSC cycles per tick. */
static void hpet_calibrated_against_tsc(void)
{
	static struct irq_platform p;

	machine(&p);
	hpet_live = 1;
	CHECK(irq_platform_init(&p, &madt, &hpet, &cpu_plain, TSC_HZ));
	CHECK(p.hpet_irq);
	/* 10 ms windows of 2e7 cycles: +-1 tick of 800000 plus the brackets' placement */
	CHECK(p.hpet_hz_cal > 80000000ull - 80000 && p.hpet_hz_cal < 80000000ull + 80000);
	for (unsigned w = 0; w < IRQP_CAL_WINDOWS; w++)
		CHECK(p.hpet_hz_win[w] > 0);
	/* rounded up: 25 when the median landed at or above 80 MHz, 26 just below */
	CHECK(p.platform_tick_cycles == HPET_MODEL_DIV || p.platform_tick_cycles == HPET_MODEL_DIV + 1);
	CHECK(p.hpet_ratio_q32 > (uint64_t)(HPET_MODEL_DIV - 1) << 32 &&
	      p.hpet_ratio_q32 < (uint64_t)(HPET_MODEL_DIV + 1) << 32);
	/* a frozen counter cannot calibrate: the nominal period is used and the failure recorded */
	machine(&p);
	CHECK(irq_platform_init(&p, &madt, &hpet, &cpu_plain, TSC_HZ));
	CHECK_EQ_U64(p.hpet_hz_cal, 0);
	CHECK_EQ_U64(p.platform_tick_cycles, 20);
}

/* The HPET arm: one counter read bracketed by the TSC, the comparator = read + ticks written
 * between the route/mode write and the enable, the deadline at the bracket's midpoint + ticks
 * and an uncertainty of half the bracket + one period that contains the true due time (the TSC
 * at which the model's counter reaches the comparator). The model latches 3000 cycles into a read
 * that lasts 4000: a deadline taken from the TSC before the read (3000 off) falls outside. The
 * counter is read once more after the write (the read-back): the latch that counts is the first. */
#define HPET_ARM_TRIES 5            /* arms taken until one was not preempted */
#define HPET_ARM_QUIET_CYCLES 12000 /* a bracket this wide (3 x the read) was not preempted */
static void hpet_arm_bracketed(void)
{
	static struct irq_platform p;
	uint64_t t_before, t_after, deadline, due, cmp, ticks, half;
	int ic, i0, i1;

	machine(&p);
	hpet_live = 1;
	CHECK(irq_platform_init(&p, &madt, &hpet, &cpu_plain, TSC_HZ));
	p.hpet_ratio_q32 = (uint64_t)HPET_MODEL_DIV << 32; /* pin the calibrated ratio */
	p.platform_tick_cycles = HPET_MODEL_DIV;
	irq_source_prepare(&p, IRQ_SRC_HPET, VEC);
	latch_pre = 3000;
	latch_post = 1000;
	/* The model's read runs on this host's TSC: an arm the OS or hypervisor preempted (its
	 * bracket far wider than the read's 4000 cycles) says nothing of the code, so it is retaken. */
	for (unsigned tries = 0; tries < HPET_ARM_TRIES; tries++) {
		pm.nlog = 0;
		t_before = cycles_read();
		deadline = irq_source_arm(&p, IRQ_SRC_HPET, VEC, 100000, 0); /* 4000 ticks of 25 cycles */
		t_after = cycles_read();
		if (t_after - t_before <= HPET_ARM_QUIET_CYCLES)
			break;
	}
	/* exact writes: CONF (interrupt off), CMP, CONF | INT_ENB - nothing else */
	CHECK_EQ_U64(pm.nlog, 3);
	i0 = regmodel_find(&pm, SPACE_MMIO, HPET_BASE + HPET_TN_CONF(2), 0);
	ic = regmodel_find(&pm, SPACE_MMIO, HPET_BASE + HPET_TN_CMP(2), 0);
	i1 = i0 >= 0 ? regmodel_find(&pm, SPACE_MMIO, HPET_BASE + HPET_TN_CONF(2), (unsigned)i0 + 1) : -1;
	CHECK(i0 == 0 && ic == 1 && i1 == 2);
	if (i0 != 0 || ic != 1 || i1 != 2)
		return;
	CHECK(!(pm.log[0].value & HPET_TN_INT_ENB) && (pm.log[2].value & HPET_TN_INT_ENB));
	cmp = pm.log[1].value;
	ticks = cmp - latch_at_cmp / HPET_MODEL_DIV; /* the read before the write, not the read-back */
	CHECK_EQ_U64(ticks, 4000);
	/* the uncertainty: half the bracket (>= half the model's 4000-cycle read) + one period */
	half = p.arm_uncertainty - HPET_MODEL_DIV;
	CHECK(p.arm_uncertainty > HPET_MODEL_DIV && half >= 2000 && half <= (t_after - t_before) / 2 + 1);
	/* the counter reaches cmp at TSC cmp x 25: within +- uncertainty of the deadline */
	due = cmp * HPET_MODEL_DIV;
	CHECK(due + p.arm_uncertainty >= deadline && due <= deadline + p.arm_uncertainty);
	/* the bracket's midpoint sits ~1000 cycles before the latch; the TSC before the read ~3000 */
	CHECK(deadline + 1500 > latch_at_cmp + ticks * HPET_MODEL_DIV && deadline < latch_at_cmp + ticks * HPET_MODEL_DIV);
	irq_source_release(&p, IRQ_SRC_HPET, VEC);
}

/* The comparator writes of the last arm, in order; returns how many. */
static unsigned cmp_writes(uint64_t *v, unsigned max)
{
	unsigned n = 0;

	for (int i = regmodel_find(&pm, SPACE_MMIO, HPET_BASE + HPET_TN_CMP(2), 0); i >= 0 && n < max;
	     i = regmodel_find(&pm, SPACE_MMIO, HPET_BASE + HPET_TN_CMP(2), (unsigned)i + 1))
		v[n++] = pm.log[i].value;
	return n;
}

static void hpet_armed_machine(struct irq_platform *p)
{
	machine(p);
	CHECK(irq_platform_init(p, &madt, &hpet, &cpu_plain, TSC_HZ)); /* frozen: 20 cycles a tick */
	irq_source_prepare(p, IRQ_SRC_HPET, VEC);
	pm.nlog = 0;
}

/* Linux's hpet_clkevt_set_next_event (arch/x86/kernel/hpet.c) reads the counter back after the
 * comparator write and fails the arm (-ETIME) when fewer than HPET_MIN_CYCLES (128) ticks are
 * left; its minimum programming delta is 1.5 x 128 = 192 ticks. Time that jumps past the comparator
 * during the write (the model's SMI) is detected and the arm retaken from a fresh read, the
 * deadline from that read; a counter that stays short of the comparator is armed once. */
static void hpet_arm_passed_rearmed(void)
{
	static struct irq_platform p;
	uint64_t v[8], deadline;
	int stop;

	hpet_armed_machine(&p);
	cmp_jumps = 1;
	deadline = irq_source_arm(&p, IRQ_SRC_HPET, VEC, 100000, 0); /* 5000 ticks */
	CHECK_EQ_U64(cmp_writes(v, 8), 2);
	CHECK_EQ_U64(v[0], 5000 + 5000);
	/* from the counter read again, twice as far ahead (Linux's clockevents raise their minimum
	 * delta when an event was past at programming) */
	CHECK_EQ_U64(v[1], 5000 + 5000 + JUMP_PAST + 2 * 5000);
	stop = regmodel_find(&pm, SPACE_MMIO, HPET_BASE + HPET_TN_CONF(2), 3); /* after the first arm's 3 writes */
	CHECK(stop >= 0 && !(pm.log[stop].value & HPET_TN_INT_ENB));
	CHECK(regmodel_get(&pm, SPACE_MMIO, HPET_BASE + HPET_TN_CONF(2)) & HPET_TN_INT_ENB);
	CHECK_EQ_U64(p.hpet_rearms, 1);
	CHECK_EQ_U64(p.hpet_arms_missed, 0);
	CHECK(deadline >= (5000 + JUMP_PAST) * 20ull); /* not the first read's due time */
	CHECK(deadline >= (5000 + 5000 + JUMP_PAST + 2 * 5000) * 20ull - 20 * 20); /* the doubled one's */
	irq_source_prepare(&p, IRQ_SRC_HPET, VEC); /* the next set counts afresh */
	CHECK_EQ_U64(p.hpet_rearms, 0);

	/* fewer than 128 ticks left at the read-back: not trusted either */
	hpet_armed_machine(&p);
	regmodel_set(&pm, SPACE_MMIO, HPET_BASE + HPET_REG_MAIN_COUNTER, 5000);
	cmp_jumps = 1;
	(void)irq_source_arm(&p, IRQ_SRC_HPET, VEC, 20 * (JUMP_PAST + 100), 0); /* 150 ticks: raised to 192 */
	CHECK_EQ_U64(cmp_writes(v, 8), 2);
	CHECK_EQ_U64(v[0], 5000 + 192);
	CHECK_EQ_U64(v[1], 5000 + 192 + JUMP_PAST + 2 * 192);

	/* an undisturbed arm: one comparator write, no re-arm */
	hpet_armed_machine(&p);
	(void)irq_source_arm(&p, IRQ_SRC_HPET, VEC, 100000, 0);
	CHECK_EQ_U64(cmp_writes(v, 8), 1);
	CHECK_EQ_U64(p.hpet_rearms, 0);
	irq_source_release(&p, IRQ_SRC_HPET, VEC);
}

/* The counter ran through the comparator after the enable: the interrupt was raised (pending, as
 * interrupts are masked while arming) and is this arm's; no second comparator. And an arm that
 * keeps being overtaken is given up after a bound (8 tries, each twice as far ahead), the
 * comparator left off and no deadline returned (0: nothing armed, bench/core/irq_platform.h). */
#define HPET_GIVE_UP_TRIES 8
static void hpet_arm_fired_or_bounded(void)
{
	static struct irq_platform p;
	uint64_t v[16];

	hpet_armed_machine(&p);
	enable_jump = 1;
	CHECK(irq_source_arm(&p, IRQ_SRC_HPET, VEC, 100000, 0) != 0);
	CHECK(irq_vector_pending(&p, VEC));
	CHECK_EQ_U64(cmp_writes(v, 16), 1);
	CHECK_EQ_U64(p.hpet_rearms, 0);

	hpet_armed_machine(&p);
	cmp_jumps = 100;
	CHECK_EQ_U64(irq_source_arm(&p, IRQ_SRC_HPET, VEC, 100000, 0), 0);
	CHECK_EQ_U64(cmp_writes(v, 16), HPET_GIVE_UP_TRIES);
	CHECK_EQ_U64(p.hpet_arms_missed, 1);
	CHECK_EQ_U64(p.hpet_rearms, HPET_GIVE_UP_TRIES - 1);
	CHECK(!(regmodel_get(&pm, SPACE_MMIO, HPET_BASE + HPET_TN_CONF(2)) & HPET_TN_INT_ENB));
	CHECK(!irq_vector_pending(&p, VEC));
}

/* The periodic period start: the current count read between two TSC reads, placed at their
 * midpoint, minus the elapsed ticks; uncertainty half the bracket + one tick. */
static void periodic_expiry_bracketed(void)
{
	static struct irq_platform p;
	uint64_t unc, t_before, t_after, start;

	machine(&p);
	CHECK(irq_platform_init(&p, &madt, &hpet, &cpu_plain, TSC_HZ));
	p.timer_ratio_q32 = 2ull << 32; /* 1 GHz timer, 2 GHz TSC */
	p.timer_tick_cycles = 2;
	p.periodic_ticks = 1000;
	ccr = 800; /* the model's read returns 700: 300 ticks = 600 cycles into the period */
	t_before = cycles_read();
	start = irq_periodic_expiry(&p, &unc);
	t_after = cycles_read();
	CHECK(start + 600 >= t_before && start + 600 <= t_after);
	CHECK(unc >= 2 && unc <= (t_after - t_before + 1) / 2 + 2);
	ccr = 800;
	start = irq_periodic_expiry(&p, 0);
	CHECK(start + 600 <= cycles_read());
}

/* A latency set's effective frequency: TSC rate x APERF/MPERF, in ppm then Hz. */
static void context_frequency_arithmetic(void)
{
	CHECK_EQ_U64(irq_context_ppm(3000, 2000), 1500000);      /* turbo: 1.5x */
	CHECK_EQ_U64(irq_context_ppm(1, 3), 333333);             /* truncated, not rounded */
	CHECK_EQ_U64(irq_context_ppm(5, 0), 0);                  /* MPERF did not move */
	CHECK_EQ_U64(irq_context_eff_hz(2000000000ull, 1500000), 3000000000ull);
	CHECK_EQ_U64(irq_context_eff_hz(2096033025ull, 1000000), 2096033000ull); /* kHz resolution */
	/* a 10 s set at 5 GHz: 5e10 x 1e6 = 5e16 fits in 64 bits */
	CHECK_EQ_U64(irq_context_ppm(50000000000ull, 25000000000ull), 2000000);
}

/* The TSC-deadline source on a CPU Linux refuses it on (apic.c deadline_match: SKYLAKE, model
 * 0x5E, needs microcode 0xb2): below the fix it is unavailable with a reason naming model and
 * revision although CPUID reports the mode; at the fix, and on a model not listed, it is offered. */
static void tsc_deadline_erratum_refused(void)
{
	static struct irq_platform p;
	struct cpu_info cpu = cpu_deadline;
	const char *why;

	cpu.model = 0x5E;
	cpu.stepping = 3;
	cpu.ucode = 0xb0;
	cpu.ucode_valid = true;
	machine(&p);
	CHECK(irq_platform_init(&p, &madt, &hpet, &cpu, TSC_HZ));
	why = irq_source_unavailable(&p, IRQ_SRC_APIC_DEADLINE);
	CHECK(why != 0);
	if (why) {
		CHECK(strstr(why, "model 0x5e (SKYLAKE) stepping 3") != 0);
		CHECK(strstr(why, "microcode 0xb0 is below 0xb2") != 0);
	}
	CHECK(p.tsc_deadline && p.tsc_deadline_erratum);
	CHECK(irq_source_unavailable(&p, IRQ_SRC_APIC_ONESHOT) == 0); /* only the deadline mode */
	cpu.ucode = 0xb2;
	machine(&p);
	CHECK(irq_platform_init(&p, &madt, &hpet, &cpu, TSC_HZ));
	CHECK(irq_source_unavailable(&p, IRQ_SRC_APIC_DEADLINE) == 0);
	cpu.model = 0x7E; /* ICELAKE_L: not listed */
	cpu.ucode = 0x10;
	machine(&p);
	CHECK(irq_platform_init(&p, &madt, &hpet, &cpu, TSC_HZ));
	CHECK(irq_source_unavailable(&p, IRQ_SRC_APIC_DEADLINE) == 0);
}

static void no_timer_no_platform(void)
{
	static struct irq_platform p;

	machine(&p);
	CHECK(!irq_platform_init(&p, &madt, &hpet, &cpu_plain, 0));
	CHECK(p.reason != 0);
	CHECK(irq_source_unavailable(&p, IRQ_SRC_SELF_IPI) != 0);
	machine(&p);
	madt.num_ioapics = 0;
	CHECK(irq_platform_init(&p, &madt, &hpet, &cpu_plain, TSC_HZ));
	CHECK(!p.hpet_irq);
	CHECK(irq_source_unavailable(&p, IRQ_SRC_HPET) != 0);
}

/* Left-over interrupts: a pending (IRR) or in-service (ISR) vector makes the platform not quiet;
 * the in-service ones are retired by one EOI each, highest first. */
static void stale_vectors(void)
{
	static struct irq_platform p;
	uint64_t irr2 = XAPIC_BASE + LAPIC_REG_IRR0 + 2 * LAPIC_VEC_REG_STRIDE; /* vectors 0x40-0x5F */
	uint64_t isr2 = XAPIC_BASE + LAPIC_REG_ISR0 + 2 * LAPIC_VEC_REG_STRIDE;
	uint64_t isr3 = XAPIC_BASE + LAPIC_REG_ISR0 + 3 * LAPIC_VEC_REG_STRIDE; /* 0x60-0x7F */
	unsigned mark;

	machine(&p);
	CHECK(irq_platform_init(&p, &madt, &hpet, &cpu_plain, TSC_HZ));
	CHECK(irq_platform_quiet(&p));
	regmodel_set(&pm, SPACE_MMIO, irr2, 1u << (VEC - 0x40));
	CHECK(irq_vector_pending(&p, VEC));
	CHECK(!irq_vector_pending(&p, VEC + 1));
	CHECK(!irq_vector_pending(&p, 0x60));
	CHECK_EQ_U64(irq_platform_stale(&p, false), 1);
	CHECK(!irq_platform_quiet(&p));
	regmodel_set(&pm, SPACE_MMIO, irr2, 0);
	CHECK(irq_platform_quiet(&p));
	regmodel_set(&pm, SPACE_MMIO, isr2, 1u << (VEC - 0x40));
	regmodel_set(&pm, SPACE_MMIO, isr3, 1u << 0); /* 0x60 */
	CHECK(!irq_platform_quiet(&p));
	CHECK_EQ_U64(irq_platform_stale(&p, true), 2);
	mark = pm.nlog;
	CHECK_EQ_U64(irq_platform_eoi_in_service(&p), 2);
	CHECK(regmodel_find(&pm, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_EOI, mark) >= 0);
	CHECK_EQ_U64(regmodel_get(&pm, SPACE_MMIO, isr2) | regmodel_get(&pm, SPACE_MMIO, isr3), 0);
	CHECK(irq_platform_quiet(&p));
	CHECK_EQ_U64(irq_platform_eoi_in_service(&p), 0); /* nothing in service: no EOI */
}

TEST_SUITE(irq_platform) = {
	{ "stale_vectors", stale_vectors },
	{ "init_masks_everything", init_masks_everything },
	{ "arming_writes", arming_writes },
	{ "no_timer_no_platform", no_timer_no_platform },
	{ "tsc_deadline_erratum_refused", tsc_deadline_erratum_refused },
	{ "hpet_calibrated_against_tsc", hpet_calibrated_against_tsc },
	{ "hpet_arm_bracketed", hpet_arm_bracketed },
	{ "hpet_arm_passed_rearmed", hpet_arm_passed_rearmed },
	{ "hpet_arm_fired_or_bounded", hpet_arm_fired_or_bounded },
	{ "periodic_expiry_bracketed", periodic_expiry_bracketed },
	{ "context_frequency_arithmetic", context_frequency_arithmetic },
	{ 0, 0 },
};
