/* Interrupt sources of a PC for the probes (see efi/x86_64/irq_platform.h). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "efi/x86_64/irq_platform.h"

#include "arch/cycles.h"
#include "arch/x86_64/tsc_deadline_errata.h"
#include "lib/fmt.h"
#include "lib/record.h"

#define US_PER_S 1000000ull
#define HPET_ARM_TRIES 8 /* arms of one HPET deadline before it is given up (counted): 50 us doubled
                          * seven times is 6.4 ms, longer than a host scheduler's time slice */
#define APIC_MAX_COUNT 0xFFFFFFFFull /* the initial-count register is 32 bits */
#define IRQ_APIC_VECTORS 256
#define HPET_CAL_MAX_TICKS (1ull << 28) /* a window's ticks x counter_hz stays within 64 bits */
#define Q32_ONE_MINUS_1 0xFFFFFFFFull   /* rounds a 32.32 ratio up to whole cycles */

const char *const irq_source_names[IRQ_NUM_SOURCES] = {
	"lapic_oneshot", "lapic_tsc_deadline", "lapic_periodic", "self_ipi", "hpet",
};

const char *const irq_deadline_names[IRQ_NUM_SOURCES] = {
	"apic_count_ratio", "tsc_deadline", "period_start", "send_tsc", "hpet_count_ratio",
};

static void sort3(uint64_t *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/* Whole TSC cycles of one tick of a clock with this 32.32 ratio, rounded up. */
static uint64_t tick_cycles(uint64_t ratio_q32)
{
	return (ratio_q32 + Q32_ONE_MINUS_1) >> 32;
}

/* Timer ticks per second: a free-running masked one-shot read at both ends of a TSC window.
 * The current count is read between two TSC reads and placed at their midpoint. */
static void calibrate_timer(struct irq_platform *p)
{
	uint64_t window = IRQP_CAL_WINDOW_US * (p->counter_hz / US_PER_S), sorted[IRQP_CAL_WINDOWS];

	for (unsigned w = 0; w < IRQP_CAL_WINDOWS; w++) {
		uint64_t a0, a1, b0, b1;
		uint32_t ca, cb;

		lapic_timer_free_run(&p->lapic);
		a0 = cycles_read();
		ca = lapic_timer_current(&p->lapic);
		a1 = cycles_read();
		while (cycles_read() - a1 < window)
			;
		b0 = cycles_read();
		cb = lapic_timer_current(&p->lapic);
		b1 = cycles_read();
		p->timer_hz_win[w] = lapic_timer_hz_from(ca, cb, (b0 + b1) / 2 - (a0 + a1) / 2, p->counter_hz);
		sorted[w] = p->timer_hz_win[w];
	}
	lapic_timer_stop(&p->lapic, 0);
	sort3(sorted, IRQP_CAL_WINDOWS);
	p->timer_hz = sorted[IRQP_CAL_WINDOWS / 2];
	p->timer_ratio_q32 = lapic_ratio_q32(p->counter_hz, p->timer_hz);
	p->timer_tick_cycles = tick_cycles(p->timer_ratio_q32);
}

/* One HPET main-counter read bracketed by the TSC: *mid the bracket's midpoint, *half its
 * half-width (rounded up). */
static uint64_t hpet_read_bracketed(struct hpet *h, uint64_t *mid, uint64_t *half)
{
	uint64_t t0 = cycles_read(), v = hpet_read(h), t1 = cycles_read();

	*mid = t0 + (t1 - t0) / 2;
	*half = (t1 - t0 + 1) / 2;
	return v;
}

/* HPET ticks per second against the TSC, as calibrate_timer does for the APIC timer: windows of
 * IRQP_CAL_WINDOW_US, each end a TSC-bracketed counter read placed at the bracket's midpoint, the
 * median window kept. The ratio then comes from the measurement, not the nominal period (which
 * the spec allows to be off by 500 ppm, and which says nothing about the TSC's own error). */
static void calibrate_hpet(struct irq_platform *p)
{
	uint64_t window = IRQP_CAL_WINDOW_US * (p->counter_hz / US_PER_S), sorted[IRQP_CAL_WINDOWS];

	for (unsigned w = 0; w < IRQP_CAL_WINDOWS; w++) {
		uint64_t ma, mb, half, ha, hb, ticks;

		ha = hpet_read_bracketed(p->hpet, &ma, &half);
		while (cycles_read() - ma < window)
			;
		hb = hpet_read_bracketed(p->hpet, &mb, &half);
		ticks = p->hpet->counter_64bit ? hb - ha : (hb - ha) & HPET_COUNTER32_MASK;
		p->hpet_hz_win[w] = mb > ma && ticks && ticks < HPET_CAL_MAX_TICKS ? ticks * p->counter_hz / (mb - ma) : 0;
		sorted[w] = p->hpet_hz_win[w];
	}
	sort3(sorted, IRQP_CAL_WINDOWS);
	p->hpet_hz_cal = sorted[IRQP_CAL_WINDOWS / 2];
	p->hpet_ratio_q32 = lapic_ratio_q32(p->counter_hz, p->hpet_hz_cal ? p->hpet_hz_cal : p->hpet->hz);
	p->platform_tick_cycles = tick_cycles(p->hpet_ratio_q32);
}

static struct ioapic *ioapic_for(struct irq_platform *p, unsigned gsi)
{
	for (unsigned i = 0; i < p->num_ioapics; i++) {
		struct ioapic *a = &p->ioapics[i];

		if (gsi >= a->gsi_base && gsi < a->gsi_base + a->pins)
			return a;
	}
	return 0;
}

static void setup_hpet(struct irq_platform *p, struct hpet *hpet)
{
	unsigned timer, route, inputs;

	p->hpet = hpet;
	if (!hpet) {
		p->hpet_reason = "no working HPET";
		return;
	}
	p->hpet_live_found = hpet_comparators_quiet(hpet);
	if (!p->num_ioapics) {
		p->hpet_reason = "no I/O APIC to route HPET comparators through";
		return;
	}
	/* Inputs of the I/O APIC that serves GSI 0 (the one HPET routes address) */
	inputs = p->ioapics[0].gsi_base == 0 ? p->ioapics[0].pins : 0;
	if (!hpet_pick_route(hpet, inputs, &timer, &route) || !ioapic_for(p, route)) {
		p->hpet_reason = "no HPET comparator can be routed to an I/O APIC input";
		return;
	}
	p->hpet_timer = timer;
	p->hpet_gsi = route;
	calibrate_hpet(p);
	p->hpet_irq = true;
}

/* The TSC-deadline source: CPUID's bit, then Linux's errata list (a CPU that reports the mode but
 * whose microcode is older than the fix for its model is refused, with model and revision). */
static void check_tsc_deadline(struct irq_platform *p, const struct cpu_info *cpu)
{
	const struct tsc_deadline_erratum *e = tsc_deadline_erratum_for(cpu);
	struct sbuf s;

	p->tsc_deadline = cpu->tsc_deadline;
	p->tsc_deadline_erratum = false;
	p->deadline_reason = cpu->tsc_deadline ? 0 : "CPUID.1:ECX.TSC_Deadline is 0: the CPU has no TSC-deadline timer mode";
	if (!cpu->tsc_deadline || !tsc_deadline_erratum_applies(cpu, e))
		return;
	sb_init(&s, p->deadline_reason_buf, sizeof(p->deadline_reason_buf));
	sb_puts(&s, "TSC-deadline erratum: family 6 model ");
	sb_hex(&s, cpu->model);
	sb_puts(&s, " (");
	sb_puts(&s, e->name);
	sb_puts(&s, ") stepping ");
	sb_u64(&s, cpu->stepping);
	if (cpu->ucode_valid) {
		sb_puts(&s, " microcode ");
		sb_hex(&s, cpu->ucode);
		sb_puts(&s, " is below ");
	} else {
		sb_puts(&s, " microcode revision unreadable; the fix is ");
	}
	sb_hex(&s, e->min_ucode);
	sb_puts(&s, " (Linux apic.c deadline_match)");
	p->tsc_deadline_erratum = true;
	p->deadline_reason = p->deadline_reason_buf;
}

/* irq_platform_describe's part here: the local APIC's mode. */
static void describe_mode(const struct irq_platform *p, struct record *r)
{
	if (p->lapic.present)
		rec_str(r, "lapic_mode", p->lapic.x2apic ? "x2apic" : "xapic");
}

/* irq_source_describe's part for the HPET (the platform timer). */
static void describe_hpet(const struct irq_platform *p, struct record *r)
{
	rec_u64(r, "hpet_hz", p->hpet->hz);
	rec_u64(r, "hpet_hz_calibrated", p->hpet_hz_cal);
	rec_u64(r, "hpet_timer", p->hpet_timer);
	rec_u64(r, "gsi", p->hpet_gsi);
	rec_u64(r, "hpet_rearms", p->hpet_rearms);
	rec_u64(r, "hpet_arms_missed", p->hpet_arms_missed);
}

bool irq_platform_init(struct irq_platform *p, const struct madt_info *madt, struct hpet *hpet,
		       const struct cpu_info *cpu, uint64_t counter_hz)
{
	bool cpu_x2apic = cpu->x2apic;

	p->ready = false;
	p->describe_mode = describe_mode;
	p->describe_platform_timer = describe_hpet;
	p->cpu_x2apic = cpu_x2apic;
	check_tsc_deadline(p, cpu);
	p->counter_hz = counter_hz;
	if (!counter_hz) {
		p->reason = "TSC frequency unknown: deadlines cannot be converted";
		return false;
	}
	p->lapic.io = p->lapic_io;
	if (!lapic_init(&p->lapic, madt && madt->valid ? madt->lapic_base : 0, cpu_x2apic)) {
		p->reason = p->lapic.reason;
		return false;
	}
	p->apic_id = lapic_id(&p->lapic);
	p->apic_version = lapic_read(&p->lapic, LAPIC_REG_VERSION);
	/* Spurious interrupts to our vector 0xFF (counted, never EOI'd), whatever the firmware chose:
	 * a low spurious vector would land on an exception gate. */
	p->svr_found = lapic_read(&p->lapic, LAPIC_REG_SVR);
	lapic_write(&p->lapic, LAPIC_REG_SVR,
		    (p->svr_found & ~LAPIC_SVR_VECTOR_MASK) | LAPIC_SVR_ENABLE | LAPIC_SPURIOUS_VECTOR);
	/* Everything the firmware may have left able to interrupt us: masked first. */
	pic_mask_all(p->pic_io, &p->pic);
	lapic_lvt_mask_all(&p->lapic, &p->lvt);
	p->num_ioapics = 0;
	p->ioapic_live_found = 0;
	for (unsigned i = 0; madt && madt->valid && i < madt->num_ioapics; i++) {
		struct ioapic *a = &p->ioapics[p->num_ioapics];

		a->io = p->ioapic_io;
		if (!ioapic_init(a, madt->ioapics[i].address, madt->ioapics[i].gsi_base))
			continue;
		p->ioapic_live_found += ioapic_mask_all(a);
		p->num_ioapics++;
	}
	lapic_accept_all(&p->lapic);
	calibrate_timer(p);
	if (!p->timer_hz) {
		p->reason = "the local APIC timer did not count";
		return false;
	}
	setup_hpet(p, hpet);
	p->ready = true;
	return true;
}

const char *irq_source_unavailable(const struct irq_platform *p, enum irq_source s)
{
	if (!p || !p->ready)
		return p && p->reason ? p->reason : "interrupt platform not initialised";
	switch (s) {
	case IRQ_SRC_APIC_DEADLINE:
		return p->deadline_reason;
	case IRQ_SRC_HPET:
		return p->hpet_irq ? 0 : p->hpet_reason;
	default:
		return s < IRQ_NUM_SOURCES ? 0 : "unknown source";
	}
}

static void hpet_route(struct irq_platform *p, uint8_t vector, bool masked)
{
	struct ioapic *a = ioapic_for(p, p->hpet_gsi);

	if (a)
		ioapic_write_entry(a, p->hpet_gsi - a->gsi_base,
				   ioapic_entry(vector, p->apic_id, false, false, masked));
}

void irq_source_prepare(struct irq_platform *p, enum irq_source s, uint8_t vector)
{
	switch (s) {
	case IRQ_SRC_APIC_ONESHOT:
		lapic_timer_oneshot(&p->lapic, vector, 0); /* mode and vector; a zero count is idle */
		break;
	case IRQ_SRC_APIC_DEADLINE:
		(void)lapic_timer_tsc_deadline(&p->lapic, vector, 0); /* 0 = disarmed */
		break;
	case IRQ_SRC_HPET:
		hpet_comparator_stop(p->hpet, p->hpet_timer);
		hpet_route(p, vector, false);
		p->hpet_rearms = p->hpet_arms_missed = 0; /* counted per set */
		break;
	default:
		break;
	}
}

/* One HPET arm: comparator = a TSC-bracketed counter read + ticks, then the counter read back. */
static bool hpet_arm_once(struct irq_platform *p, uint64_t ticks, uint64_t *mid, uint64_t *half)
{
	uint64_t h = hpet_read_bracketed(p->hpet, mid, half);
	uint64_t cmp = p->hpet->counter_64bit ? h + ticks : (h + ticks) & HPET_COUNTER32_MASK;

	hpet_comparator_oneshot(p->hpet, p->hpet_timer, p->hpet_gsi, cmp);
	return hpet_comparator_ahead(p->hpet, cmp, HPET_MIN_AHEAD_TICKS);
}

/* The comparator *ticks from now, as Linux's hpet_clkevt_set_next_event: an arm whose counter,
 * read back, is (nearly) past the comparator may never fire (equality match: not before the
 * counter wraps), so the comparator is stopped and, unless its interrupt was raised after all
 * (interrupts are masked while arming: its vector is then pending at the local APIC), armed again
 * from a fresh read, each time twice as far ahead (as Linux's clockevents core raises its minimum
 * delta when a programmed event was already past: the arm itself took longer than the distance,
 * a vCPU preempted in it under load), at most HPET_ARM_TRIES times. *ticks: the distance of the
 * arm in use; *mid, *half: the bracket of its read. False: given up, the comparator stopped and
 * no interrupt to come (the caller retakes the arm). */
static bool hpet_arm(struct irq_platform *p, uint8_t vector, uint64_t *ticks, uint64_t *mid, uint64_t *half)
{
	for (unsigned t = 0; t < HPET_ARM_TRIES; t++) {
		if (t) {
			p->hpet_rearms++;
			if (*ticks <= HPET_COUNTER32_MASK / 4)
				*ticks *= 2;
		}
		if (hpet_arm_once(p, *ticks, mid, half))
			return true;
		hpet_comparator_stop(p->hpet, p->hpet_timer);
		if (lapic_vector_pending(&p->lapic, vector))
			return true; /* it fired in time: that interrupt is this arm's */
	}
	p->hpet_arms_missed++; /* left stopped: nothing armed, the probe retakes the arm */
	return false;
}

uint64_t irq_source_arm(struct irq_platform *p, enum irq_source s, uint8_t vector, uint64_t delay_cycles,
			uint64_t *arm_cycles)
{
	uint64_t t0 = 0, t1, deadline = 0, ticks, mid, half;

	p->arm_uncertainty = 0;
	switch (s) {
	case IRQ_SRC_APIC_ONESHOT:
		ticks = lapic_tsc_to_ticks(delay_cycles, p->timer_ratio_q32);
		ticks = ticks < 1 ? 1 : ticks > APIC_MAX_COUNT ? APIC_MAX_COUNT : ticks;
		t0 = cycles_read();
		lapic_write(&p->lapic, LAPIC_REG_TIMER_INITIAL, (uint32_t)ticks);
		deadline = t0 + lapic_ticks_to_tsc(ticks, p->timer_ratio_q32);
		break;
	case IRQ_SRC_APIC_DEADLINE:
		t0 = cycles_read();
		deadline = t0 + delay_cycles;
		(void)lapic_wrmsr_ordered(&p->lapic, MSR_IA32_TSC_DEADLINE, deadline);
		break;
	case IRQ_SRC_SELF_IPI:
		t0 = cycles_read();
		lapic_self_ipi(&p->lapic, vector);
		deadline = t0;
		break;
	case IRQ_SRC_HPET:
		ticks = lapic_tsc_to_ticks(delay_cycles, p->hpet_ratio_q32);
		if (ticks < HPET_MIN_PROG_TICKS)
			ticks = HPET_MIN_PROG_TICKS;
		/* the counter was latched somewhere in the TSC bracket of the read the comparator came
		 * from and had been current for up to one period: due at mid + ticks, within
		 * +- (half-width + one period). */
		t0 = cycles_read();
		if (hpet_arm(p, vector, &ticks, &mid, &half))
			deadline = mid + lapic_ticks_to_tsc(ticks, p->hpet_ratio_q32);
		p->arm_uncertainty = half + p->platform_tick_cycles;
		break;
	default:
		break;
	}
	t1 = cycles_read();
	if (arm_cycles)
		*arm_cycles = t1 - t0;
	return deadline;
}

void irq_source_disarm(struct irq_platform *p, enum irq_source s, uint8_t vector)
{
	(void)vector;
	switch (s) {
	case IRQ_SRC_APIC_ONESHOT:
	case IRQ_SRC_APIC_PERIODIC:
		lapic_write(&p->lapic, LAPIC_REG_TIMER_INITIAL, 0);
		break;
	case IRQ_SRC_APIC_DEADLINE:
		(void)lapic_wrmsr_ordered(&p->lapic, MSR_IA32_TSC_DEADLINE, 0);
		break;
	case IRQ_SRC_HPET:
		hpet_comparator_stop(p->hpet, p->hpet_timer);
		break;
	default:
		break;
	}
}

void irq_source_release(struct irq_platform *p, enum irq_source s, uint8_t vector)
{
	switch (s) {
	case IRQ_SRC_APIC_ONESHOT:
	case IRQ_SRC_APIC_PERIODIC:
	case IRQ_SRC_APIC_DEADLINE:
		if (s == IRQ_SRC_APIC_DEADLINE)
			(void)lapic_wrmsr_ordered(&p->lapic, MSR_IA32_TSC_DEADLINE, 0);
		lapic_timer_stop(&p->lapic, vector);
		break;
	case IRQ_SRC_HPET:
		hpet_comparator_stop(p->hpet, p->hpet_timer);
		hpet_route(p, vector, true);
		break;
	default:
		break;
	}
}

uint64_t irq_periodic_start(struct irq_platform *p, uint8_t vector, uint64_t period_cycles)
{
	uint64_t ticks = lapic_tsc_to_ticks(period_cycles, p->timer_ratio_q32);

	if (ticks < 1 || ticks > APIC_MAX_COUNT)
		return 0;
	p->periodic_ticks = (uint32_t)ticks;
	lapic_timer_periodic(&p->lapic, vector, (uint32_t)ticks);
	return lapic_ticks_to_tsc(ticks, p->timer_ratio_q32);
}

uint64_t irq_periodic_expiry(const struct irq_platform *p, uint64_t *uncertainty)
{
	uint64_t t0 = cycles_read();
	uint32_t cur = lapic_timer_current(&p->lapic);
	uint64_t t1 = cycles_read();
	uint64_t elapsed = cur <= p->periodic_ticks ? p->periodic_ticks - cur : 0;

	/* The count was read somewhere in [t0, t1]; a tick's fraction is unknown on top. */
	if (uncertainty)
		*uncertainty = (t1 - t0 + 1) / 2 + p->timer_tick_cycles;
	return t0 + (t1 - t0) / 2 - lapic_ticks_to_tsc(elapsed, p->timer_ratio_q32);
}

bool irq_vector_pending(const struct irq_platform *p, uint8_t vector)
{
	return lapic_vector_pending(&p->lapic, vector);
}

unsigned irq_platform_stale(const struct irq_platform *p, bool in_service)
{
	return lapic_vectors_set(&p->lapic, in_service);
}

unsigned irq_platform_eoi_in_service(struct irq_platform *p)
{
	unsigned n = 0;

	/* Each EOI retires the highest-priority in-service vector; at most one per vector. */
	while (n < IRQ_APIC_VECTORS && lapic_vectors_set(&p->lapic, true)) {
		lapic_eoi(&p->lapic);
		n++;
	}
	return n;
}

bool irq_platform_quiet(const struct irq_platform *p)
{
	struct ioapic *a;

	if (!(lapic_read(&p->lapic, LAPIC_REG_LVT_TIMER) & LVT_MASKED))
		return false;
	if (lapic_vectors_set(&p->lapic, false) || lapic_vectors_set(&p->lapic, true))
		return false;
	if (!p->hpet_irq)
		return true;
	if (hpet_reg_read(p->hpet, HPET_TN_CONF(p->hpet_timer)) & HPET_TN_INT_ENB)
		return false;
	a = ioapic_for((struct irq_platform *)p, p->hpet_gsi);
	return !a || (ioapic_read_entry(a, p->hpet_gsi - a->gsi_base) & IOAPIC_RTE_MASKED);
}

void irq_platform_eoi(void *ctx)
{
	const struct irq_platform *p = ctx;

	lapic_eoi(&p->lapic);
}
