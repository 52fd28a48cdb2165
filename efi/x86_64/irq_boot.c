/* Interrupt-source set-up and facts (see irq_boot.h). */
/* OPT_SMALL: -Os (Makefile): set-up before the probes: installs the EOI callback, takes no interrupt itself. */
#include "efi/x86_64/irq_boot.h"
#include "efi/x86_64/irq_platform.h"

#include "arch/irq.h"
#include "bench/probes/irq/common.h"
#include "drivers/irqchip/x86_64/lapic_mode.h"
#include "efi/x86_64/madt_boot.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define LIST_MAX 256

static struct irq_platform plat;
static const struct madt_info *madt; /* NULL: none */

static void emit_apic(const struct irq_platform *p, const struct irq_drain_stats *drained)
{
	struct record *r = emit_start("plat");
	char wins[LIST_MAX];
	struct sbuf s;

	rec_str(r, "kind", "apic");
	rec_bool(r, "ready", p->ready);
	if (!p->ready && p->reason)
		rec_str(r, "reason", p->reason);
	if (p->lapic.present) {
		rec_str(r, "mode", p->lapic.x2apic ? "x2apic" : "xapic");
		rec_str(r, "lapic_mode_how", lapic_mode_how(lapic_mode_bsp()));
		rec_str(r, "lapic_mode_request", lapic_mode_request_name(lapic_mode_bsp()->request));
		rec_hex(r, "base", p->lapic.base);
		rec_u64(r, "apic_id", p->apic_id);
		rec_hex(r, "version", p->apic_version);
		rec_u64(r, "maxlvt", p->lvt.maxlvt);
		rec_hex(r, "svr_found", p->svr_found);
		rec_u64(r, "spurious_vector", LAPIC_SPURIOUS_VECTOR);
	}
	rec_bool(r, "x2apic_cpu", p->cpu_x2apic);
	rec_bool(r, "tsc_deadline", p->tsc_deadline);
	if (p->tsc_deadline_erratum)
		rec_str(r, "tsc_deadline_refused", p->deadline_reason);
	rec_u64(r, "timer_hz", p->timer_hz);
	rec_u64(r, "timer_divide", 1);
	sb_init(&s, wins, sizeof(wins));
	for (unsigned w = 0; w < IRQP_CAL_WINDOWS && p->timer_hz; w++) {
		if (w)
			sb_putc(&s, ',');
		sb_u64(&s, p->timer_hz_win[w]);
	}
	if (p->timer_hz)
		rec_str(r, "timer_hz_windows", wins);
	rec_u64(r, "timer_cal_us", IRQP_CAL_WINDOW_US);
	rec_str(r, "timer_cal_source", "tsc");
	if (p->lapic.present) {
		rec_hex(r, "lvt_timer_found", p->lvt.timer_found);
		for (unsigned i = 0; i < LAPIC_LVT_OTHERS; i++) {
			char key[32];

			if (!p->lvt.present[i])
				continue;
			sb_init(&s, key, sizeof(key));
			sb_puts(&s, "lvt_");
			sb_puts(&s, lapic_lvt_names[i]);
			sb_puts(&s, "_found");
			rec_hex(r, key, p->lvt.found[i]);
		}
		rec_str(r, "lvt_now", "masked");
	}
	if (p->ready) {
		rec_u64(r, "stale_in_service", drained->in_service);
		rec_u64(r, "stale_pending_taken", drained->delivered);
		rec_u64(r, "stale_left", drained->left);
	}
	emit_finish();
}

static void emit_ioapic(const struct irq_platform *p)
{
	struct record *r = emit_start("plat");
	char buf[LIST_MAX];
	struct sbuf s;

	rec_str(r, "kind", "ioapic");
	rec_u64(r, "count", p->num_ioapics);
	rec_u64(r, "madt_entries", madt ? madt->num_ioapics : 0);
	sb_init(&s, buf, sizeof(buf));
	for (unsigned i = 0; i < p->num_ioapics; i++) {
		if (i)
			sb_putc(&s, ',');
		sb_hex(&s, p->ioapics[i].base);
		sb_putc(&s, '/');
		sb_u64(&s, p->ioapics[i].gsi_base);
		sb_putc(&s, '/');
		sb_u64(&s, p->ioapics[i].pins);
	}
	rec_str(r, "ioapics", p->num_ioapics ? buf : "none"); /* base/first GSI/inputs */
	rec_u64(r, "live_found", p->ioapic_live_found);
	rec_str(r, "inputs_now", "masked");
	sb_init(&s, buf, sizeof(buf));
	for (unsigned i = 0; madt && i < madt->num_isos; i++) {
		if (i)
			sb_putc(&s, ',');
		sb_u64(&s, madt->isos[i].source);
		sb_putc(&s, '>');
		sb_u64(&s, madt->isos[i].gsi);
		if ((madt->isos[i].flags & MADT_INTI_TRIGGER_MASK) == MADT_INTI_TRIGGER_LEVEL)
			sb_putc(&s, 'l');
		if ((madt->isos[i].flags & MADT_INTI_POLARITY_MASK) == MADT_INTI_POLARITY_LOW)
			sb_putc(&s, 'n');
	}
	rec_str(r, "overrides", madt && madt->num_isos ? buf : "none"); /* irq>gsi, l level, n low */
	emit_finish();

	r = emit_start("plat");
	rec_str(r, "kind", "pic");
	rec_hex(r, "mask1_found", p->pic.found1);
	rec_hex(r, "mask2_found", p->pic.found2);
	rec_str(r, "now", "masked");
	emit_finish();
}

static void emit_hpet_irq(const struct irq_platform *p)
{
	struct record *r = emit_start("plat");
	char wins[LIST_MAX];
	struct sbuf s;

	rec_str(r, "kind", "hpet_irq");
	rec_bool(r, "usable", p->hpet_irq);
	if (p->hpet) {
		rec_u64(r, "comparators", p->hpet->comparators);
		rec_u64(r, "live_found", p->hpet_live_found);
		rec_bool(r, "legacy_routing", p->hpet->legacy_routing);
	}
	if (p->hpet_irq) {
		rec_u64(r, "timer", p->hpet_timer);
		rec_u64(r, "gsi", p->hpet_gsi);
		rec_hex(r, "route_cap", hpet_route_cap(p->hpet, p->hpet_timer));
		rec_str(r, "trigger", "edge");
		rec_str(r, "delivery", "ioapic");
		/* The HPET/TSC ratio the deadlines use: calibrated against the TSC (median window). */
		rec_u64(r, "hz_nominal", p->hpet->hz);
		rec_u64(r, "hz_calibrated", p->hpet_hz_cal);
		rec_str(r, "ratio_source", p->hpet_hz_cal ? "calibrated" : "nominal (calibration failed)");
		rec_u64(r, "ratio_q32", p->hpet_ratio_q32);
		rec_u64(r, "tick_cycles", p->platform_tick_cycles);
		rec_u64(r, "cal_window_us", IRQP_CAL_WINDOW_US);
		sb_init(&s, wins, sizeof(wins));
		for (unsigned w = 0; w < IRQP_CAL_WINDOWS; w++) {
			if (w)
				sb_putc(&s, ',');
			sb_u64(&s, p->hpet_hz_win[w]);
		}
		rec_str(r, "hz_windows", wins);
		rec_str(r, "cal_source", "tsc");
	} else if (p->hpet_reason) {
		rec_str(r, "reason", p->hpet_reason);
	}
	emit_finish();
}

struct irq_platform *irq_boot_setup(struct hpet *hpet, const struct cpu_info *cpu, uint64_t counter_hz)
{
	struct irq_drain_stats drained = { 0 };

	madt = madt_boot(); /* parsed before ExitBootServices by smp_boot_reserve */
	if (irq_platform_init(&plat, madt, hpet, cpu, counter_hz)) {
		irq_set_eoi(irq_platform_eoi, &plat);
		/* What the firmware left pending or in service before we masked its sources. */
		(void)irq_drain(&plat, counter_hz, &drained);
	}
	emit_apic(&plat, &drained);
	if (plat.ready) {
		emit_ioapic(&plat);
		emit_hpet_irq(&plat);
	} else {
		emit_msg(MSG_WARN, "interrupt sources unusable: the interrupt probes will be skipped");
	}
	return &plat;
}
