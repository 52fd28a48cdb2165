/* AArch64 interrupt set-up and its facts record (see efi/aarch64/irq_boot.h). */
/* OPT_SMALL: -Os (Makefile): set-up before the probes: a bounded wait for the test interrupt. */
#include "efi/aarch64/irq_boot.h"

#include "arch/cycles.h"
#include "arch/irq.h"
#include "bench/probes/irq/common.h"
#include "efi/aarch64/irq_platform.h"
#include "lib/emit.h"

#define GUARD_CHECK_DELAY_US 100    /* the test interrupt's distance */
/* How long it may take to arrive: microseconds on hardware; under QEMU TCG the timer is raised by
 * QEMU's own thread, which a loaded host (make test: four QEMUs on two cores) once left unscheduled
 * for over 20 ms. Waited in full only where the guard is broken: once per boot. */
#define GUARD_CHECK_BOUND_US 250000
_Static_assert(GUARD_CHECK_BOUND_US == 250000, "the warning below says 250 ms");
#define US_PER_S 1000000ull

static struct irq_platform plat;
static bool guard_fires; /* the guard timer (EL1 physical, PPI 30) interrupt arrived once */

static void guard_check_handler(void *ctx, uint64_t entry_cycles)
{
	(void)entry_cycles;
	*(volatile bool *)ctx = true;
}

/* The wfi ("hlt") waits end only when an interrupt comes, and their bound is the guard timer's
 * interrupt: verify once that it is delivered (a bounded spin with interrupts open) before
 * offering that wait; else no guard, and the hlt waits are skipped (irq_guard_for). */
static void check_guard(struct irq_platform *p, uint64_t counter_hz)
{
	volatile bool fired = false;
	uint64_t start, bound = GUARD_CHECK_BOUND_US * counter_hz / US_PER_S;

	irq_register(IRQ_VEC_GUARD, guard_check_handler, (void *)&fired);
	irq_source_prepare(p, IRQ_SRC_CNTV_ONESHOT, IRQ_VEC_GUARD);
	(void)irq_source_arm(p, IRQ_SRC_CNTV_ONESHOT, IRQ_VEC_GUARD, GUARD_CHECK_DELAY_US * counter_hz / US_PER_S, 0);
	start = cycles_read();
	irq_enable();
	while (!fired && cycles_read() - start < bound)
		cpu_relax();
	irq_disable();
	irq_source_disarm(p, IRQ_SRC_CNTV_ONESHOT, IRQ_VEC_GUARD);
	irq_source_release(p, IRQ_SRC_CNTV_ONESHOT, IRQ_VEC_GUARD);
	irq_unregister(IRQ_VEC_GUARD);
	guard_fires = fired;
	if (!fired)
		p->oneshot_per_vector = false; /* no independent timer bounds a wfi wait */
}

/* The GICv3's own facts: distributor, this CPU's redistributor and system-register interface. */
static void emit_gicv3(struct record *r, const struct gicv3 *g)
{
	rec_u64(r, "arch_rev", g->arch_rev);
	rec_hex(r, "typer", g->typer);
	rec_hex(r, "ctlr_found", g->ctlr_found);
	rec_hex(r, "ctlr_now", g->ctlr_now);
	rec_bool(r, "security_disabled", (g->ctlr_now & GICD_CTLR_DS) != 0);
	rec_hex(r, "gicr", g->rd);
	rec_str(r, "gicr_from", g->rd && !g->frames_walked ? "gicc" : "walk");
	rec_u64(r, "gicr_frames_walked", g->frames_walked);
	rec_hex(r, "mpidr", g->mpidr);
	rec_hex(r, "waker_found", g->waker_found);
	rec_hex(r, "ppi_sgi_enabled_found", g->enabled_found);
	rec_hex(r, "sre_found", g->sre_found);
	rec_u64(r, "wait_timeouts", g->timeouts);
}

/* The GICv2's: distributor, this CPU's banked SGI/PPI state and memory-mapped CPU interface. */
static void emit_gicv2(struct record *r, const struct gicv2 *g)
{
	rec_u64(r, "arch_rev", g->arch_rev);
	rec_hex(r, "typer", g->typer);
	rec_hex(r, "ctlr_found", g->ctlr_found);
	rec_hex(r, "ctlr_now", g->ctlr_now);
	rec_bool(r, "security_extn", g->security_extn);
	rec_hex(r, "gicc", g->gicc);
	rec_hex(r, "cpu_ctlr_found", g->cpu_ctlr_found);
	rec_hex(r, "cpu_ctlr_now", g->cpu_ctlr_now);
	rec_hex(r, "cpu_mask", g->cpu_mask);
	rec_hex(r, "group_found", g->group_found);
	rec_hex(r, "ppi_sgi_enabled_found", g->enabled_found);
}

static void emit_timers(struct record *r, const struct irq_platform *p, const struct a64_irq_facts *f)
{
	rec_hex(r, "cntv_ctl_found", f->cntv_ctl_found);
	rec_hex(r, "cntp_ctl_found", f->cntp_ctl_found);
	rec_i64(r, "cntvoff", f->timer.cntvoff);
	rec_u64(r, "cntvoff_uncertainty", f->timer.cntvoff_uncertainty);
	rec_u64(r, "timer_hz", p->timer_hz);
	rec_u64(r, "intid_oneshot", A64_INTID_CNTV);
	rec_u64(r, "intid_guard", A64_INTID_CNTP);
	rec_u64(r, "intid_sgi", A64_INTID_SGI_SELF);
	rec_u64(r, "intid_pmu", f->pmu_intid);
	rec_str(r, "intid_pmu_from", f->pmu_intid_from ? f->pmu_intid_from : "none");
	if (f->pmu_intid_reason)
		rec_str(r, "intid_pmu_reason", f->pmu_intid_reason);
}

static void emit_gic(const struct irq_platform *p, const struct irq_drain_stats *drained)
{
	const struct a64_irq_facts *f = irq_platform_a64_facts();
	struct record *r = emit_start("plat");

	rec_str(r, "kind", "gic");
	rec_bool(r, "ready", p->ready);
	if (!p->ready && p->reason)
		rec_str(r, "reason", p->reason);
	rec_str(r, "bases_from", f->bases_from ? f->bases_from : "none");
	rec_u64(r, "gic_version", f->gic.version);
	rec_hex(r, "gicd", f->bases.gicd);
	rec_u64(r, "madt_gic_version", f->bases.gic_version);
	rec_u64(r, "gicc_entries", f->bases.gicc_entries);
	rec_u64(r, "gicr_ranges", f->bases.gicr_ranges);
	if (f->gic.version == GIC_V2)
		emit_gicv2(r, &f->gic.v2);
	else
		emit_gicv3(r, &f->gic.v3);
	emit_timers(r, p, f);
	if (p->ready) {
		rec_bool(r, "guard_fires", guard_fires);
		rec_u64(r, "stale_in_service", drained->in_service);
		rec_u64(r, "stale_pending_taken", drained->delivered);
		rec_u64(r, "stale_left", drained->left);
	}
	emit_finish();
}

struct irq_platform *irq_boot_a64_setup(uint64_t madt, bool qemu_virt, uint64_t counter_hz)
{
	struct irq_drain_stats drained = { 0 };

	if (!irq_available())
		return 0; /* not our vectors (EL2): the GIC stays the firmware's */
	if (irq_platform_a64_init(&plat, madt, qemu_virt, counter_hz)) {
		(void)irq_drain(&plat, counter_hz, &drained);
		check_guard(&plat, counter_hz);
	}
	emit_gic(&plat, &drained);
	if (!plat.ready)
		emit_msg(MSG_WARN, "interrupt sources unusable: the interrupt probes will be skipped");
	else if (!guard_fires)
		emit_msg(MSG_WARN, "the guard timer's interrupt (PPI 30) did not arrive within 250 ms: the wfi "
				   "(wait=hlt) waits are skipped, nothing would bound them");
	return &plat;
}
