/* The x86_64 hardware steps of the profiler's sampling sources (efi/prof_sampler_common.h, which
 * keeps the state, the timer source and the bookkeeping): counter overflow through the local
 * APIC's performance-counter LVT where a PMU counts (the boot processor only), and each
 * application processor's local APIC readied for the one-shot timer (time-based sampling: under
 * QEMU TCG and wherever a hypervisor hides the PMU). */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "efi/prof_sampler_common.h"

#include "arch/irq.h"
#include "arch/x86_64/pmu_pmi.h"
#include "bench/core/probe.h"
#include "efi/x86_64/irq_platform.h"
#include "drivers/irqchip/x86_64/lapic_perf.h"
#include "drivers/irqchip/x86_64/lapic_timer.h"

#define PMI_STOP_PERIOD 1 /* what a stopping handler preloads: the counter is stopped next */

static struct {
	struct pmu_pmi pmi;
	struct pmu_info *pmu; /* for gp_reserved: the sampling counter kept from counter sets */
} x;

static bool pmi_start(struct irq_platform *p, struct probe_env *env, struct prof_cpu *c, const char *event,
		      const char **why)
{
	(void)c;
	if (!lapic_perf_lvt_present(&p->lapic)) {
		*why = "the local APIC has no performance-counter LVT entry";
		return false;
	}
	if (!pmu_pmi_setup(&x.pmi, env->pmu, event, why))
		return false;
	/* The probes see the PMU description read-only; the one field the sampler owns is the set of
	 * counters kept from counter sets (the object itself is not const: efi/main.c's). */
	x.pmu = (struct pmu_info *)env->pmu;
	x.pmu->gp_reserved |= 1u << x.pmi.counter;
	lapic_perf_lvt_set(&p->lapic, IRQ_VEC_PROF);
	return true;
}

static bool pmi_arm(struct irq_platform *p, struct prof_cpu *c, uint64_t period, const char **why)
{
	(void)p;
	(void)c;
	return pmu_pmi_arm(&x.pmi, period, why);
}

static bool pmi_ack(struct irq_platform *p, struct prof_cpu *c, uint64_t next)
{
	(void)p;
	(void)c;
	return pmu_pmi_ack(&x.pmi, next ? next : PMI_STOP_PERIOD);
}

/* Intel masks the LVT entry when it delivers a PMI (SDM vol. 3B, "Generating an Interrupt on
 * Overflow"): unmask it for the next one. */
static void pmi_rearm(struct irq_platform *p, struct prof_cpu *c)
{
	(void)c;
	lapic_perf_lvt_set(&p->lapic, IRQ_VEC_PROF);
}

static void pmi_stop(struct irq_platform *p, struct prof_cpu *c)
{
	(void)c;
	pmu_pmi_stop(&x.pmi);
	lapic_perf_lvt_mask(&p->lapic);
	prof_drain_here();
	x.pmu->gp_reserved &= ~(1u << x.pmi.counter);
}

/* The timer only (pmi_on_aps is false). The AP's own local APIC (every CPU's is at the same
 * address or MSRs): software-enabled with our spurious vector (INIT left it off), every priority
 * accepted, the timer's LVT on the sampling vector. */
static bool cpu_up(struct irq_platform *p, unsigned cpu, struct prof_cpu *c, bool pmi)
{
	(void)cpu;
	(void)c;
	(void)pmi;
	lapic_software_enable(&p->lapic);
	lapic_accept_all(&p->lapic);
	irq_source_prepare(p, IRQ_SRC_ONESHOT_TIMER, IRQ_VEC_PROF);
	return true;
}

/* Its local APIC's pending bit is what irq_vector_pending reads on this CPU. */
static void cpu_down(struct irq_platform *p, unsigned cpu, struct prof_cpu *c, bool pmi)
{
	(void)cpu;
	(void)c;
	(void)pmi;
	irq_source_release(p, IRQ_SRC_ONESHOT_TIMER, IRQ_VEC_PROF);
	prof_drain_here();
}

static const struct prof_sampler_ops port = {
	.port_bytes = 0,
	.pmi_on_aps = false,
	.pmi_start = pmi_start,
	.pmi_arm = pmi_arm,
	.pmi_ack = pmi_ack,
	.pmi_rearm = pmi_rearm,
	.pmi_stop = pmi_stop,
	.cpu_up = cpu_up,
	.cpu_down = cpu_down,
};

PROF_SAMPLER_PORT(port)
