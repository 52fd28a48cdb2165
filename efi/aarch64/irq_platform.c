/* The interrupt sources of bench/core/irq_platform.h on AArch64: a GICv3 or GICv2 plus the EL1
 * generic timers and self-SGIs (see efi/aarch64/irq_platform.h). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "efi/aarch64/irq_platform.h"

#include "arch/aarch64/gic_cpuif.h" /* mpidr_el1_read */
#include "arch/cycles.h"
#include "arch/irq.h"
#include "drivers/fw/aarch64/platform_id.h"
#include "drivers/irqchip/aarch64/gicv2_hw.h"
#include "drivers/irqchip/aarch64/gicv3_hw.h"
#include "drivers/timer/aarch64/gtimer_hw.h"
#include "lib/record.h"

#define US_PER_S 1000000ull
#define MADT_LEN_OFF 4
#define MADT_MIN_LEN 44
#define MADT_MAX_LEN 0x10000u
#define PERIODIC_MAX_SKIPS 1000000u /* bound on re-arming past missed periods */
#define USED_MASK ((1u << A64_INTID_CNTV) | (1u << A64_INTID_CNTP) | (1u << A64_INTID_SGI_SELF) | pmu_bit())

const char *const irq_source_names[IRQ_NUM_SOURCES] = {
	"cntv_oneshot", "tsc_deadline", "cntv_periodic", "sgi_self", "hpet",
};

const char *const irq_deadline_names[IRQ_NUM_SOURCES] = {
	"cntv_cval", "none", "cntv_cval", "send_cntvct", "none",
};

static struct {
	struct a64_irq_facts f;
	uint8_t vec_of[GIC_NUM_PRIVATE]; /* our copy of the routing, for irq_vector_pending */
	uint64_t period;                  /* virtual timer periodic (0: one-shot) */
	const uint8_t *madt;              /* the MADT the GIC came from (0: none), for the other cores */
	uint32_t madt_len;
} a64;

/* The PMU overflow PPI is ours too (efi/aarch64/prof_sampler.c routes it): cleanup looks at it. */
static uint32_t pmu_bit(void)
{
	return a64.f.pmu_intid >= GIC_NUM_SGIS && a64.f.pmu_intid < GIC_NUM_PRIVATE ? 1u << a64.f.pmu_intid : 0;
}

const struct a64_irq_facts *irq_platform_a64_facts(void)
{
	return &a64.f;
}

static void timer_stop(unsigned intid);

static void route(unsigned intid, unsigned vector)
{
	a64.vec_of[intid] = (uint8_t)vector;
	a64_irq_route(intid, vector);
}

static void timers_off(void)
{
	gtimer_stop(&a64.f.timer, GT_VIRT);
	gtimer_stop(&a64.f.timer, GT_PHYS);
}

/* QEMU virt without a MADT: which GIC is at its distributor address. Its GICv2 distributor
 * frame is 4 KiB (GICv3's GICD_PIDR2 at 0xFFE8 would abort there), so GICv2's ICPIDR2 at 0xFE8
 * is asked first: ArchRev 2 there; a GICv3 distributor has that offset reserved, RAZ (IHI 0069
 * 12.9). */
static bool virt_gic_is_v2(void)
{
	uint32_t pidr2 = gicv3_hw_io.read32(0, A64_VIRT_GICD + GICV2_GICD_PIDR2);

	return ((pidr2 >> GIC_PIDR2_ARCHREV_SHIFT) & GIC_PIDR2_ARCHREV_MASK) == GICV2_ARCH_REV_V2;
}

/* The MADT's GIC when it has a distributor and a redistributor; QEMU virt's fixed addresses only
 * with no MADT at all on QEMU virt; else NULL with *why (nothing is programmed). */
static const struct gicv3_bases *find_bases(uint64_t madt, bool qemu_virt, const char **why)
{
	struct gicv3_bases *b = &a64.f.bases;
	const uint8_t *t = (const uint8_t *)(uintptr_t)madt;
	uint64_t mpidr = mpidr_el1_read();
	bool parsed = false;
	enum a64_gic_from from;
	unsigned gic;

	a64.f.bases_from = "none";
	a64.f.pmu_intid = 0;
	a64.f.pmu_intid_from = "none";
	a64.f.pmu_intid_reason = "no GIC";

	if (madt) {
		uint32_t len = (uint32_t)t[MADT_LEN_OFF] | (uint32_t)t[MADT_LEN_OFF + 1] << 8 |
			       (uint32_t)t[MADT_LEN_OFF + 2] << 16 | (uint32_t)t[MADT_LEN_OFF + 3] << 24;

		parsed = len >= MADT_MIN_LEN && len <= MADT_MAX_LEN && gicv3_madt_parse(t, len, mpidr, b);
		if (parsed) {
			a64.madt = t; /* the other cores find their own GICC entries in it */
			a64.madt_len = len;
		}
	}
	from = a64_gic_bases_from(madt != 0, parsed, parsed && (b->gicr_cpu || b->gicr_ranges), parsed && b->gicc,
				  parsed ? b->gic_version : 0, qemu_virt, &gic, why);
	a64.f.gic.version = gic;
	if (from == A64_GIC_REFUSED)
		return 0;
	if (from == A64_GIC_FROM_MADT) {
		a64.f.bases_from = "madt";
		a64.f.pmu_intid = a64_pmu_intid(true, b->pmu_gsiv_found, b->pmu_gsiv, &a64.f.pmu_intid_from,
						 &a64.f.pmu_intid_reason);
		return b;
	}
	a64.f.pmu_intid = a64_pmu_intid(false, false, 0, &a64.f.pmu_intid_from, &a64.f.pmu_intid_reason);
	*b = (struct gicv3_bases){ .gicd = A64_VIRT_GICD, .gicr = { { A64_VIRT_GICR, A64_VIRT_GICR_LEN } },
				   .gicr_ranges = 1 };
	if (virt_gic_is_v2()) {
		a64.f.gic.version = GIC_V2;
		*b = (struct gicv3_bases){ .gicd = A64_VIRT_GICD, .gicc = A64_VIRT_GICC };
	}
	a64.f.bases_from = "qemu_virt_default";
	return b;
}

/* Right after the acknowledge: a one-shot timer is disabled (its output is a level: it would
 * fire again after the EOI), before the handler, which may arm it anew (the profiler does). */
static void timer_ack(void *ctx, unsigned intid)
{
	(void)ctx;
	if (intid == A64_INTID_CNTP || (intid == A64_INTID_CNTV && !a64.period))
		timer_stop(intid);
}

/* The chosen GIC up on the boot CPU; a GICv2's acknowledge/EOI installed in the dispatcher
 * (interrupts are still masked). */
static bool gic_up(struct gic *g, const struct gicv3_bases *b, uint64_t counter_hz)
{
	if (g->version == GIC_V2) {
		g->v2.io = &gicv3_hw_io;
		if (!gicv2_init(&g->v2, b->gicd, b->gicc, true))
			return false;
		gicv2_hw_cpuif_base(b->gicc);
		a64_irq_set_cpuif(&gicv2_hw_cpuif);
		return true;
	}
	g->v3.io = &gicv3_hw_io;
	return gicv3_init(&g->v3, b, mpidr_el1_read(), A64_GIC_WAIT_US * (counter_hz / US_PER_S));
}

bool irq_platform_a64_init(struct irq_platform *p, uint64_t madt, bool qemu_virt, uint64_t counter_hz)
{
	struct gic *g = &a64.f.gic;
	const struct gicv3_bases *bases;

	*p = (struct irq_platform){ 0 };
	p->counter_hz = counter_hz;
	p->hpet_reason = "no HPET on AArch64 (the EL1 physical timer guards the wfi waits instead)";
	if (!counter_hz) {
		p->reason = "CNTFRQ_EL0 is 0: no time base";
		return false;
	}
	/* The firmware's timer may still be armed: off before anything can reach us. */
	a64.f.timer.io = &gtimer_hw_io;
	a64.f.cntv_ctl_found = gtimer_hw_io.read(0, GT_CNTV_CTL);
	a64.f.cntp_ctl_found = gtimer_hw_io.read(0, GT_CNTP_CTL);
	timers_off();
	gtimer_measure_offset(&a64.f.timer);
	bases = find_bases(madt, qemu_virt, &p->reason);
	if (!bases)
		return false;
	if (!gic_up(g, bases, counter_hz)) {
		p->reason = gic_reason(g);
		return false;
	}
	gic_private_config(g, A64_INTID_CNTV, A64_IRQ_PRIORITY);
	gic_private_config(g, A64_INTID_CNTP, A64_IRQ_PRIORITY);
	gic_private_config(g, A64_INTID_SGI_SELF, A64_IRQ_PRIORITY);
	p->timer_hz = counter_hz;                 /* the timers count the stub's own clock */
	p->timer_ratio_q32 = 1ull << 32;
	p->timer_tick_cycles = 0;             /* compare values: exact, never early */
	p->tsc_deadline = false;
	p->oneshot_per_vector = true;         /* virtual timer; the guard vector's is the physical one */
	irq_set_eoi(irq_platform_eoi, p);
	a64_irq_set_ack_hook(timer_ack, p);
	p->ready = true;
	return true;
}

/* One PPI/SGI of a redistributor on or off (level-sensitive for a PPI); the routing is the
 * caller's business. */
static bool private_switch(struct gic *g, unsigned intid, bool on)
{
	if (!gic_ready(g) || intid >= GIC_NUM_PRIVATE)
		return false;
	if (!on) {
		gic_private_enable(g, intid, false);
		gic_private_clear(g, intid);
		return true;
	}
	gic_private_config(g, intid, A64_IRQ_PRIORITY);
	gic_private_level(g, intid);
	gic_private_enable(g, intid, true);
	return true;
}

bool irq_platform_a64_private(unsigned intid, uint8_t vector, bool on)
{
	if (!gic_ready(&a64.f.gic) || intid >= GIC_NUM_PRIVATE)
		return false;
	if (on)
		route(intid, vector);
	(void)private_switch(&a64.f.gic, intid, on);
	if (!on)
		route(intid, 0);
	return true;
}

/* This core's side of the GIC. GICv3: its redistributor from its own GICC entry's GICR base when
 * the MADT gives one (machines that list redistributors only there, with no GICR structure),
 * else the GICR ranges walked. GICv2: its banked SGIs/PPIs and CPU interface, at its own GICC
 * entry's address (the same on every core in practice; the distributor is the boot CPU's). */
bool irq_platform_a64_cpu_up(struct gic *g)
{
	struct gicv3_bases b;
	uint64_t mpidr = mpidr_el1_read();
	bool has_redist;

	*g = (struct gic){ .version = a64.f.gic.version };
	if (!gic_ready(&a64.f.gic))
		return false;
	has_redist = gicv3_bases_for_cpu(&a64.f.bases, a64.madt, a64.madt_len, mpidr, &b);
	if (g->version == GIC_V2) {
		g->v2.io = &gicv3_hw_io;
		return gicv2_init(&g->v2, b.gicd, b.gicc, false);
	}
	g->v3.io = &gicv3_hw_io;
	return has_redist && gicv3_init(&g->v3, &b, mpidr, a64.f.gic.v3.wait_ticks);
}

bool irq_platform_a64_cpu_private(struct gic *g, unsigned intid, bool on)
{
	return private_switch(g, intid, on);
}

const char *irq_source_unavailable(const struct irq_platform *p, enum irq_source s)
{
	if (!p || !p->ready)
		return p && p->reason ? p->reason : "interrupt platform not initialised";
	switch (s) {
	case IRQ_SRC_DEADLINE_TIMER:
		return "AArch64: no TSC-deadline mode; the generic timer's compare value is cntv_oneshot's (already "
		       "deadline-exact)";
	case IRQ_SRC_PLATFORM_TIMER:
		return p->hpet_reason;
	default:
		return s < IRQ_NUM_SOURCES ? 0 : "unknown source";
	}
}

static unsigned timer_for(uint8_t vector)
{
	return vector == IRQ_VEC_GUARD ? A64_INTID_CNTP : A64_INTID_CNTV;
}

static void timer_stop(unsigned intid)
{
	gtimer_stop(&a64.f.timer, intid == A64_INTID_CNTP ? GT_PHYS : GT_VIRT);
}

void irq_source_prepare(struct irq_platform *p, enum irq_source s, uint8_t vector)
{
	struct gic *g = &a64.f.gic;
	unsigned intid;

	(void)p;
	if (s == IRQ_SRC_CNTV_ONESHOT || s == IRQ_SRC_CNTV_PERIODIC) {
		intid = timer_for(vector);
		timer_stop(intid);
		if (intid == A64_INTID_CNTV)
			a64.period = 0;
	} else if (s == IRQ_SRC_SGI_SELF) {
		intid = A64_INTID_SGI_SELF;
	} else {
		return;
	}
	route(intid, vector);
	gic_private_clear(g, intid);
	gic_private_enable(g, intid, true);
}

uint64_t irq_source_arm(struct irq_platform *p, enum irq_source s, uint8_t vector, uint64_t delay_cycles,
			uint64_t *arm_cycles)
{
	uint64_t t0 = cycles_read(), deadline = t0, t1;

	p->arm_uncertainty = 0;
	if (s == IRQ_SRC_CNTV_ONESHOT) {
		deadline = t0 + delay_cycles;
		if (timer_for(vector) == A64_INTID_CNTP) {
			gtimer_arm(&a64.f.timer, GT_PHYS, deadline);
			p->arm_uncertainty = a64.f.timer.cntvoff_uncertainty;
		} else {
			gtimer_arm(&a64.f.timer, GT_VIRT, deadline);
		}
	} else if (s == IRQ_SRC_SGI_SELF) {
		route(A64_INTID_SGI_SELF, vector);
		t0 = deadline = cycles_read();
		gic_send_sgi_self(&a64.f.gic, A64_INTID_SGI_SELF);
	}
	t1 = cycles_read();
	if (arm_cycles)
		*arm_cycles = t1 - t0;
	return deadline;
}

void irq_source_disarm(struct irq_platform *p, enum irq_source s, uint8_t vector)
{
	(void)p;
	if (s == IRQ_SRC_CNTV_ONESHOT || s == IRQ_SRC_CNTV_PERIODIC) {
		unsigned intid = timer_for(vector);

		timer_stop(intid);
		gic_private_clear(&a64.f.gic, intid);
	}
}

static void release_intid(unsigned intid)
{
	gic_private_enable(&a64.f.gic, intid, false);
	gic_private_clear(&a64.f.gic, intid);
	route(intid, 0);
}

/* Either timer source releases both timers: the guard's (physical) timer is released with the
 * measured one, as the probes' cleanup only names the measured source. */
void irq_source_release(struct irq_platform *p, enum irq_source s, uint8_t vector)
{
	(void)p;
	(void)vector;
	if (s == IRQ_SRC_CNTV_ONESHOT || s == IRQ_SRC_CNTV_PERIODIC) {
		timers_off();
		a64.period = 0;
		release_intid(A64_INTID_CNTV);
		release_intid(A64_INTID_CNTP);
	} else if (s == IRQ_SRC_SGI_SELF) {
		release_intid(A64_INTID_SGI_SELF);
	}
}

uint64_t irq_periodic_start(struct irq_platform *p, uint8_t vector, uint64_t period_cycles)
{
	if (!period_cycles || period_cycles > UINT32_MAX)
		return 0;
	irq_source_prepare(p, IRQ_SRC_CNTV_PERIODIC, vector);
	a64.period = period_cycles;
	p->periodic_ticks = (uint32_t)period_cycles;
	gtimer_arm(&a64.f.timer, GT_VIRT, cycles_read() + period_cycles);
	return period_cycles;
}

/* In the handler, before the EOI callback re-arms: the compare value that fired. */
uint64_t irq_periodic_expiry(const struct irq_platform *p, uint64_t *uncertainty)
{
	(void)p;
	if (uncertainty)
		*uncertainty = 0;
	return gtimer_cval(&a64.f.timer, GT_VIRT);
}

static unsigned popcount32(uint32_t v)
{
	unsigned n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

bool irq_vector_pending(const struct irq_platform *p, uint8_t vector)
{
	uint32_t pend = gic_private_pending(&a64.f.gic) & USED_MASK;

	(void)p;
	for (unsigned i = 0; i < GIC_NUM_PRIVATE; i++)
		if ((pend >> i & 1u) && a64.vec_of[i] == vector)
			return true;
	return false;
}

unsigned irq_platform_stale(const struct irq_platform *p, bool in_service)
{
	(void)p;
	return popcount32((in_service ? gic_private_active(&a64.f.gic) : gic_private_pending(&a64.f.gic)) &
			  USED_MASK);
}

unsigned irq_platform_eoi_in_service(struct irq_platform *p)
{
	uint32_t act = gic_private_active(&a64.f.gic) & USED_MASK;
	unsigned n = 0;

	(void)p;
	for (unsigned i = 0; i < GIC_NUM_PRIVATE; i++)
		if (act >> i & 1u) {
			gic_eoi_stale(&a64.f.gic, i);
			n++;
		}
	return n;
}

bool irq_platform_quiet(const struct irq_platform *p)
{
	(void)p;
	if (gtimer_enabled(&a64.f.timer, GT_VIRT) || gtimer_enabled(&a64.f.timer, GT_PHYS))
		return false;
	return !irq_platform_stale(p, false) && !irq_platform_stale(p, true);
}

/* Before the EOI: the periodic timer moves its compare value to the next grid point after now
 * (a one-shot timer was disabled at the acknowledge: timer_ack). */
void irq_platform_eoi(void *ctx)
{
	unsigned intid = a64_irq_current_intid();

	(void)ctx;
	if (intid == A64_INTID_CNTV && a64.period) {
		gtimer_arm(&a64.f.timer, GT_VIRT, gtimer_next_period(gtimer_cval(&a64.f.timer, GT_VIRT), a64.period,
									  cycles_read(), PERIODIC_MAX_SKIPS));
	}
	gic_eoi(&a64.f.gic, a64_irq_current_iar());
}
