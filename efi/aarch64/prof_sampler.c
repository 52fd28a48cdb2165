/* The AArch64 hardware steps of the profiler's sampling sources (efi/prof_sampler_common.h, which
 * keeps the state, the timer source and the bookkeeping; its timer is the EL1 virtual timer):
 *  - `pmi`: PMUv3 counter overflow (arch/aarch64/pmu_pmi.h): the highest free event counter
 *    counts profile_event at EL1 from 2^width - period; its overflow raises the PMU's PPI (the
 *    MADT GICC entry's Performance Interrupt GSIV, else QEMU virt's 23), routed here through
 *    irq_platform_a64_private (level-sensitive); the handler clears the overflow and preloads the
 *    next drawn period. The counters used are kept from the runner's counter sets while sampling
 *    (pmu_info.counters_reserved).
 *  - application processors sample too, around their share of an smp_run_all job: each core
 *    brings up its own side of the GIC (GICv3: its redistributor and CPU interface; GICv2: its
 *    banked PPIs and CPU interface; irq_platform_a64_cpu_up) and samples with its own PMU counters
 *    or virtual timer (both are per core, as PPIs are); the INTID's routing is the boot CPU's (one
 *    table). */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "efi/prof_sampler_common.h"

#include "arch/aarch64/pmu_pmi.h"
#include "arch/irq.h"
#include "bench/core/probe.h"
#include "efi/aarch64/irq_platform.h"

/* Each core's own: its counters and, on an application processor, its side of the GIC. */
struct a64_cpu {
	struct a64_pmi pmi;
	struct gic gic;
};

static struct {
	const char *event;
	struct pmu_info *pmu;   /* for counters_reserved: the sampling counters kept from counter sets */
	struct pmu_info pmu_ap; /* the same PMU as found before our reservation: each core's own counters */
	unsigned intid;         /* the PPI sampled on */
} a;

static struct a64_cpu *port_of(struct prof_cpu *c)
{
	return c->port;
}

static bool pmi_start(struct irq_platform *p, struct probe_env *env, struct prof_cpu *c, const char *event,
		      const char **why)
{
	struct a64_pmi *pmi = &port_of(c)->pmi;
	unsigned intid = irq_platform_a64_facts()->pmu_intid;

	(void)p;
	if (!intid && irq_platform_a64_facts()->pmu_intid_reason) {
		*why = irq_platform_a64_facts()->pmu_intid_reason;
		return false;
	}
	if (intid < GIC_NUM_SGIS || intid >= GIC_NUM_PRIVATE) {
		*why = "the PMU's overflow interrupt (MADT GICC Performance Interrupt GSIV) is not a PPI";
		return false;
	}
	if (!a64_pmi_setup(pmi, env->pmu, event, why))
		return false;
	/* The probes see the PMU description read-only; the one field the sampler owns is the set of
	 * counters kept from counter sets (the object itself is not const: efi/main.c's). */
	a.event = event;
	a.pmu = (struct pmu_info *)env->pmu;
	a.pmu_ap = *env->pmu;
	a.pmu->counters_reserved |= a64_pmi_counters(pmi);
	a.intid = intid;
	if (!irq_platform_a64_private(intid, IRQ_VEC_PROF, true)) {
		a64_pmi_stop(pmi);
		a.pmu->counters_reserved &= ~a64_pmi_counters(pmi);
		*why = "the GIC refused the PMU's interrupt";
		return false;
	}
	return true;
}

static bool pmi_arm(struct irq_platform *p, struct prof_cpu *c, uint64_t period, const char **why)
{
	(void)p;
	(void)why;
	a64_pmi_arm(&port_of(c)->pmi, period);
	return true;
}

/* Before the EOI (the dispatcher sends it after the handler): the overflow bit is cleared in
 * a64_pmi_ack, so the level has dropped by then. */
static bool pmi_ack(struct irq_platform *p, struct prof_cpu *c, uint64_t next)
{
	struct a64_pmi *pmi = &port_of(c)->pmi;

	(void)p;
	return a64_pmi_ack(pmi, next ? next : pmi->max_period);
}

/* A level source: an overflow pending now is taken while the counter still runs (the handler
 * preloads the longest period), then the counter stops and the level drops. */
static void pmi_stop(struct irq_platform *p, struct prof_cpu *c)
{
	struct a64_pmi *pmi = &port_of(c)->pmi;

	(void)p;
	prof_drain_here();
	a64_pmi_stop(pmi);
	(void)irq_platform_a64_private(a.intid, 0, false);
	a.pmu->counters_reserved &= ~a64_pmi_counters(pmi);
}

static unsigned source_intid(bool pmi)
{
	return pmi ? a.intid : A64_INTID_CNTV;
}

static bool cpu_up(struct irq_platform *p, unsigned cpu, struct prof_cpu *c, bool pmi)
{
	struct a64_cpu *ac = port_of(c);
	const char *why = 0;

	(void)p;
	(void)cpu;
	if (!gic_ready(&ac->gic) && !irq_platform_a64_cpu_up(&ac->gic))
		return false;
	if (pmi) {
		/* This core's own counters: the same indices as the boot CPU's (a.pmu_ap does not
		 * carry their reservation). */
		if (!a64_pmi_setup(&ac->pmi, &a.pmu_ap, a.event, &why))
			return false;
	} else {
		gtimer_stop(&irq_platform_a64_facts()->timer, GT_VIRT);
	}
	if (!irq_platform_a64_cpu_private(&ac->gic, source_intid(pmi), true)) {
		a64_pmi_stop(&ac->pmi);
		return false;
	}
	return true;
}

/* A core's side of the GIC and the INTID sampled on. */
struct core_ppi {
	const struct gic *gic;
	unsigned intid;
};

/* Is a sample still pending on this core? */
static bool gic_pending(const void *arg)
{
	const struct core_ppi *w = arg;

	return (gic_private_pending(w->gic) >> w->intid) & 1u;
}

static void cpu_down(struct irq_platform *p, unsigned cpu, struct prof_cpu *c, bool pmi)
{
	struct a64_cpu *ac = port_of(c);
	struct core_ppi here = { &ac->gic, source_intid(pmi) };

	(void)p;
	(void)cpu;
	if (pmi) {
		prof_drain_pending(gic_pending, &here);
		a64_pmi_stop(&ac->pmi);
	} else {
		gtimer_stop(&irq_platform_a64_facts()->timer, GT_VIRT);
		prof_drain_pending(gic_pending, &here);
	}
	(void)irq_platform_a64_cpu_private(&ac->gic, source_intid(pmi), false);
}

static const struct prof_sampler_ops port = {
	.port_bytes = sizeof(struct a64_cpu),
	.pmi_on_aps = true,
	.pmi_start = pmi_start,
	.pmi_arm = pmi_arm,
	.pmi_ack = pmi_ack,
	.pmi_rearm = 0,
	.pmi_stop = pmi_stop,
	.cpu_up = cpu_up,
	.cpu_down = cpu_down,
};

PROF_SAMPLER_PORT(port)
