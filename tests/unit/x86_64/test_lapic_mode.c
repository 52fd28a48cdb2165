/* The local APIC mode switch (drivers/irqchip/x86_64/lapic_mode.c) and the x2APIC register paths after it,
 * against a model of the hardware's rules (Intel SDM vol. 3A, "x2APIC State Transitions" and
 * "x2APIC Register Availability"): IA32_APIC_BASE.EXTD is reserved (#GP) without CPUID x2APIC;
 * EXTD=1 with EN=0 is invalid (#GP); x2APIC -> xAPIC directly is invalid (#GP); the x2APIC MSRs
 * 0x800-0x8FF #GP outside x2APIC mode; the MMIO page is not the APIC in x2APIC mode. The model
 * refuses what the hardware refuses, so a driver that relied on a write taking effect where it
 * would fault is caught here, not on a machine. */
#include "arch/x86_64/msr.h"
#include "drivers/irqchip/x86_64/lapic.h"
#include "drivers/irqchip/x86_64/lapic_mode.h"
#include "drivers/irqchip/x86_64/lapic_timer.h"
#include "bench/core/options.h"
#include "lib/record.h"
#include "tests/unit/regmodel.h"
#include "tests/unit/test.h"

#define XAPIC_BASE 0xFEE00000ull
#define X2APIC_MSR_FIRST 0x800u
#define X2APIC_MSR_LAST 0x8FFu
#define FAR_ID 0x12345u /* an x2APIC id no xAPIC destination field can hold */

static struct {
	struct regmodel regs;
	bool cpu_x2apic;       /* CPUID.1:ECX.x2APIC */
	bool refuse_base;      /* a hypervisor that refuses every IA32_APIC_BASE write */
	bool ignore_base;      /* one that accepts the write and keeps the old value */
	unsigned base_writes;  /* IA32_APIC_BASE writes attempted */
	unsigned faults;       /* accesses the hardware would have faulted */
	unsigned mmio_in_x2;   /* MMIO accesses while in x2APIC mode */
} hw;

static bool in_x2apic(void)
{
	uint64_t b = regmodel_get(&hw.regs, SPACE_MSR, MSR_IA32_APIC_BASE);

	return (b & APIC_BASE_EXTD) && (b & APIC_BASE_ENABLE);
}

static bool x2apic_msr(uint32_t r) { return r >= X2APIC_MSR_FIRST && r <= X2APIC_MSR_LAST; }

static int hw_rdmsr(void *c, uint32_t r, uint64_t *v)
{
	(void)c;
	if (x2apic_msr(r) && !in_x2apic()) {
		hw.faults++;
		return MSR_FAULT;
	}
	*v = regmodel_read(&hw.regs, SPACE_MSR, r);
	return MSR_OK;
}

/* IA32_APIC_BASE's transition rules; everything else is stored. */
static int hw_wrmsr(void *c, uint32_t r, uint64_t v)
{
	uint64_t old = regmodel_get(&hw.regs, SPACE_MSR, MSR_IA32_APIC_BASE);

	(void)c;
	if (r == MSR_IA32_APIC_BASE) {
		hw.base_writes++;
		if (((v & APIC_BASE_EXTD) && !hw.cpu_x2apic) ||                  /* reserved bit */
		    ((v & APIC_BASE_EXTD) && !(v & APIC_BASE_ENABLE)) ||         /* invalid state */
		    ((old & APIC_BASE_EXTD) && (old & APIC_BASE_ENABLE) &&      /* x2APIC -> xAPIC */
		     (v & APIC_BASE_ENABLE) && !(v & APIC_BASE_EXTD)) || hw.refuse_base) {
			hw.faults++;
			return MSR_FAULT;
		}
		if (hw.ignore_base)
			return MSR_OK;
	} else if (x2apic_msr(r) && !in_x2apic()) {
		hw.faults++;
		return MSR_FAULT;
	}
	regmodel_write(&hw.regs, SPACE_MSR, r, v);
	return MSR_OK;
}

static uint32_t hw_rd32(void *c, uint64_t a)
{
	(void)c;
	if (in_x2apic()) {
		hw.mmio_in_x2++;
		return 0xFFFFFFFFu;
	}
	return (uint32_t)regmodel_read(&hw.regs, SPACE_MMIO, a);
}

static void hw_wr32(void *c, uint64_t a, uint32_t v)
{
	(void)c;
	if (in_x2apic())
		hw.mmio_in_x2++;
	else
		regmodel_write(&hw.regs, SPACE_MMIO, a, v);
}

static const struct lapic_io hw_io = { hw_rd32, hw_wr32, hw_rdmsr, hw_wrmsr, 0, 0 };

/* A processor as OVMF hands it over: xAPIC mode, APIC enabled, software-enabled. The x2APIC id
 * register (MSR 0x802) holds `x2id`; the xAPIC one holds the low 8 bits (what QEMU shows). */
static void machine(bool cpu_x2apic, uint64_t base_flags, uint32_t x2id)
{
	regmodel_reset(&hw.regs);
	hw.cpu_x2apic = cpu_x2apic;
	hw.refuse_base = hw.ignore_base = false;
	hw.base_writes = hw.faults = hw.mmio_in_x2 = 0;
	regmodel_set(&hw.regs, SPACE_MSR, MSR_IA32_APIC_BASE, XAPIC_BASE | base_flags);
	regmodel_set(&hw.regs, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_SVR, LAPIC_SVR_ENABLE | 0xFF);
	regmodel_set(&hw.regs, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_ID, (x2id & 0xFF) << LAPIC_ID_SHIFT);
	regmodel_set(&hw.regs, SPACE_MSR, X2APIC_MSR_BASE + (LAPIC_REG_SVR >> 4), LAPIC_SVR_ENABLE | 0xFF);
	regmodel_set(&hw.regs, SPACE_MSR, X2APIC_MSR_BASE + (LAPIC_REG_ID >> 4), x2id);
}

#define OVMF_BSP (APIC_BASE_ENABLE | APIC_BASE_BSP)

static void switch_writes_extd_with_en(void)
{
	struct lapic_mode_result r;

	machine(true, OVMF_BSP, 0);
	CHECK(lapic_mode_apply(&hw_io, LAPIC_MODE_X2APIC, true, &r));
	CHECK(r.x2apic && r.switched && !r.reason);
	CHECK_STR(lapic_mode_how(&r), "switched");
	/* exactly one write: the base and BSP bit kept, EN kept, EXTD added */
	CHECK_EQ_U64(hw.base_writes, 1);
	CHECK_EQ_U64(hw.regs.nlog, 1);
	CHECK_EQ_U64(hw.regs.log[0].space, SPACE_MSR);
	CHECK_EQ_U64(hw.regs.log[0].addr, 0x1B);
	CHECK_EQ_U64(hw.regs.log[0].value, 0xFEE00000ull | (1u << 8) | (1u << 10) | (1u << 11));
	CHECK_EQ_U64(r.apic_base_found, XAPIC_BASE | OVMF_BSP);
	CHECK_EQ_U64(r.apic_base_now, XAPIC_BASE | OVMF_BSP | APIC_BASE_EXTD);
	CHECK_EQ_U64(hw.faults, 0);
}

static void refused_without_cpuid_x2apic(void)
{
	struct lapic_mode_result r;
	struct lapic l = { .io = &hw_io };

	machine(false, OVMF_BSP, 0);
	CHECK(!lapic_mode_apply(&hw_io, LAPIC_MODE_X2APIC, false, &r));
	CHECK(!r.x2apic && !r.switched);
	CHECK(r.reason && strstr(r.reason, "CPUID.1:ECX.x2APIC is 0") && strstr(r.reason, "staying in xAPIC"));
	CHECK_STR(lapic_mode_how(&r), "firmware");
	CHECK_EQ_U64(hw.base_writes, 0); /* never attempted: it would #GP */
	CHECK_EQ_U64(hw.faults, 0);
	/* and the APIC still works in xAPIC mode */
	CHECK(lapic_init(&l, 0, false));
	CHECK(!l.x2apic);
}

static void refused_when_disabled_or_faulting(void)
{
	struct lapic_mode_result r;

	machine(true, APIC_BASE_BSP, 0); /* EN clear: EXTD alone would be the invalid state */
	CHECK(!lapic_mode_apply(&hw_io, LAPIC_MODE_X2APIC, true, &r));
	CHECK(r.reason && strstr(r.reason, "globally disabled"));
	CHECK_EQ_U64(hw.base_writes, 0);

	machine(true, OVMF_BSP, 0);
	hw.refuse_base = true;
	CHECK(!lapic_mode_apply(&hw_io, LAPIC_MODE_X2APIC, true, &r));
	CHECK(!r.x2apic && !r.switched && r.reason && strstr(r.reason, "faulted"));

	machine(true, OVMF_BSP, 0);
	hw.ignore_base = true; /* the write "succeeds" but EXTD reads back clear */
	CHECK(!lapic_mode_apply(&hw_io, LAPIC_MODE_X2APIC, true, &r));
	CHECK(!r.x2apic && r.reason && strstr(r.reason, "did not stick"));
}

static void firmware_mode_kept(void)
{
	struct lapic_mode_result r;

	/* handed over in x2APIC mode: nothing to do for x2apic or auto */
	machine(true, OVMF_BSP | APIC_BASE_EXTD, 7);
	CHECK(lapic_mode_apply(&hw_io, LAPIC_MODE_X2APIC, true, &r));
	CHECK(r.x2apic && !r.switched);
	CHECK(lapic_mode_apply(&hw_io, LAPIC_MODE_AUTO, true, &r));
	CHECK(r.x2apic && !r.switched && !r.reason);
	/* xapic asked, x2APIC found: going back needs a disable, so refused and left alone */
	CHECK(!lapic_mode_apply(&hw_io, LAPIC_MODE_XAPIC, true, &r));
	CHECK(r.x2apic && r.reason && strstr(r.reason, "x2APIC mode"));
	CHECK_EQ_U64(hw.base_writes, 0);

	machine(true, OVMF_BSP, 0);
	CHECK(lapic_mode_apply(&hw_io, LAPIC_MODE_AUTO, true, &r));
	CHECK(!r.x2apic && !r.switched);
	CHECK(lapic_mode_apply(&hw_io, LAPIC_MODE_XAPIC, true, &r));
	CHECK_EQ_U64(hw.base_writes, 0);
}

/* After the switch every APIC access is an MSR: the ICR as one 64-bit write with a 32-bit
 * destination, IRR/ISR at 0x820/0x810 + vector / 32, the id from 0x802; no MMIO at all. */
static void x2apic_paths_after_switch(void)
{
	struct lapic_mode_result r;
	struct lapic l = { .io = &hw_io };
	int at;

	machine(true, OVMF_BSP, FAR_ID);
	CHECK(lapic_mode_apply(&hw_io, LAPIC_MODE_X2APIC, true, &r));
	CHECK(lapic_init(&l, 0, true));
	CHECK(l.x2apic);
	CHECK_EQ_U64(lapic_id(&l), FAR_ID);

	hw.regs.nlog = 0;
	CHECK_EQ_U64(lapic_send_init(&l, FAR_ID, 1000000000ull), LAPIC_SEND_OK);
	at = regmodel_find(&hw.regs, SPACE_MSR, X2APIC_MSR_ICR, 0);
	CHECK(at >= 0);
	if (at >= 0) /* INIT (5 << 8), level assert (bit 14), level trigger (bit 15), physical */
		CHECK_EQ_U64(hw.regs.log[at].value, ((uint64_t)FAR_ID << 32) | 0xC500u);
	CHECK(regmodel_find(&hw.regs, SPACE_MSR, X2APIC_MSR_ICR, (unsigned)at + 1) < 0); /* one write */

	hw.regs.nlog = 0;
	CHECK_EQ_U64(lapic_send_startup(&l, FAR_ID, 0x9E, 1000000000ull), LAPIC_SEND_OK);
	at = regmodel_find(&hw.regs, SPACE_MSR, X2APIC_MSR_ICR, 0);
	if (at >= 0) /* STARTUP (6 << 8), assert, the start-up page number */
		CHECK_EQ_U64(hw.regs.log[at].value, ((uint64_t)FAR_ID << 32) | 0x469Eu);
	CHECK(at >= 0);

	hw.regs.nlog = 0;
	CHECK_EQ_U64(lapic_send_nmi(&l, 1, 1000000000ull), LAPIC_SEND_OK);
	at = regmodel_find(&hw.regs, SPACE_MSR, X2APIC_MSR_ICR, 0);
	if (at >= 0)
		CHECK_EQ_U64(hw.regs.log[at].value, (1ull << 32) | 0x4400u);
	CHECK(at >= 0);

	/* vector 0x45: register 2 of each array, bit 5 */
	regmodel_set(&hw.regs, SPACE_MSR, 0x822, 1u << 5);
	regmodel_set(&hw.regs, SPACE_MSR, 0x812, 1u << 5);
	CHECK(lapic_vector_pending(&l, 0x45) && lapic_vector_in_service(&l, 0x45));
	CHECK(!lapic_vector_pending(&l, 0x44));
	CHECK_EQ_U64(lapic_vectors_set(&l, false), 1);
	lapic_eoi(&l);
	CHECK(regmodel_find(&hw.regs, SPACE_MSR, 0x80B, 0) >= 0);
	lapic_self_ipi(&l, 0x45);
	CHECK(regmodel_find(&hw.regs, SPACE_MSR, 0x83F, 0) >= 0);
	lapic_timer_oneshot(&l, 0x40, 1000);
	CHECK_EQ_U64(regmodel_get(&hw.regs, SPACE_MSR, 0x832), 0x40);   /* LVT timer */
	CHECK_EQ_U64(regmodel_get(&hw.regs, SPACE_MSR, 0x838), 1000);   /* initial count */

	CHECK_EQ_U64(hw.mmio_in_x2, 0);
	CHECK_EQ_U64(hw.faults, 0);
}

/* Without the switch the same far destination cannot be reached, and nothing is sent. */
static void far_id_unreachable_in_xapic(void)
{
	struct lapic l = { .io = &hw_io };

	machine(true, OVMF_BSP, 0);
	CHECK(lapic_init(&l, 0, true));
	CHECK(!l.x2apic);
	hw.regs.nlog = 0;
	CHECK_EQ_U64(lapic_send_init(&l, FAR_ID, 1000000000ull), LAPIC_SEND_UNREACHABLE);
	CHECK(regmodel_find(&hw.regs, SPACE_MMIO, XAPIC_BASE + LAPIC_REG_ICR_LOW, 0) < 0);
	CHECK(regmodel_find(&hw.regs, SPACE_MSR, X2APIC_MSR_ICR, 0) < 0);
}

static unsigned cfg_warnings;

static void cfg_warn(const char *m, void *ctx)
{
	(void)m;
	(void)ctx;
	cfg_warnings++;
}

/* Option apic_mode: auto by default, the three names accepted, anything else refused with the
 * default kept; the cfg record carries the name. */
static void apic_mode_option(void)
{
	struct config c;
	struct config_parser p = { .cfg = &c, .warn = cfg_warn };
	struct record r;

	config_defaults(&c);
	cfg_warnings = 0;
	CHECK(c.apic_mode == APIC_MODE_AUTO);
	CHECK(config_set(&p, "apic_mode", "x2apic", "test"));
	CHECK(c.apic_mode == APIC_MODE_X2APIC);
	CHECK(config_set(&p, "apic_mode", "xapic", "test"));
	CHECK(c.apic_mode == APIC_MODE_XAPIC);
	CHECK(!config_set(&p, "apic_mode", "x2APIC", "test"));
	CHECK(!config_set(&p, "apic_mode", "", "test"));
	CHECK(c.apic_mode == APIC_MODE_XAPIC);
	CHECK_EQ_U64(cfg_warnings, 2);
	CHECK(config_set(&p, "apic_mode", "x2apic", "test"));
	rec_start(&r, 1, "cfg");
	config_to_record(&c, &r);
	rec_finish(&r);
	CHECK(strstr(r.buf, " apic_mode=x2apic ") != 0);
}

TEST_SUITE(lapic_mode) = {
	{ "apic_mode_option", apic_mode_option },
	{ "switch_writes_extd_with_en", switch_writes_extd_with_en },
	{ "refused_without_cpuid_x2apic", refused_without_cpuid_x2apic },
	{ "refused_when_disabled_or_faulting", refused_when_disabled_or_faulting },
	{ "firmware_mode_kept", firmware_mode_kept },
	{ "x2apic_paths_after_switch", x2apic_paths_after_switch },
	{ "far_id_unreachable_in_xapic", far_id_unreachable_in_xapic },
	{ 0, 0 },
};
