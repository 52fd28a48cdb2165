/* The profiler's sampling interrupts on AArch64 (drivers/prof_sampler.h), on the CPU that runs
 * the probes, both on the profiler's vector (IRQ_VEC_PROF); the IRQ stub passes the interrupted
 * PC (ELR_EL1) to the handler:
 *  - `pmi`: PMUv3 counter overflow (arch/aarch64/pmu_pmi.h): the highest free event counter
 *    counts profile_event at EL1 from 2^width - period; its overflow raises the PMU's PPI (the
 *    MADT GICC entry's Performance Interrupt GSIV, else QEMU virt's 23), routed here through
 *    irq_platform_a64_private (level-sensitive); the handler clears the overflow and preloads the
 *    next drawn period. The counters used are kept from the runner's counter sets while sampling
 *    (pmu_info.counters_reserved).
 *  - `timer`: the EL1 virtual timer (cntv_oneshot), re-armed from the handler with a freshly
 *    drawn delay (time-based sampling) — profile_source=timer, or auto when the PMU cannot count
 *    the event (out->fallback says why).
 * Application processors do not sample here. */
#include "drivers/prof_sampler.h"

#include "arch/aarch64/pmu_pmi.h"
#include "arch/cycles.h"
#include "arch/irq.h"
#include "bench/probe.h"
#include "bench/prof_period.h"
#include "drivers/irq_platform.h"
#include "drivers/irq_platform_a64.h"

#define NS_PER_S 1000000000ull
/* As on x86_64: a shorter period would leave the probe no time (the handler takes some
 * microseconds under TCG). */
#define PROF_MIN_PERIOD_NS 2000ull
#define PROF_STOP_DRAIN_US 2000ull

enum prof_active { ACTIVE_NONE, ACTIVE_TIMER, ACTIVE_PMI };

static struct {
	volatile enum prof_active active;
	volatile bool rearm;
	volatile uint64_t exit_tsc;
	struct irq_platform *p;
	uint64_t tsc_hz;
	struct prof_period per;
	prof_hit_fn hit;
	void *ctx;
	struct a64_pmi pmi;
	struct pmu_info *pmu; /* for counters_reserved: the sampling counters kept from counter sets */
	unsigned pmu_intid;
} s;

static uint64_t ns_to_ticks(uint64_t ns, uint64_t hz)
{
	return ns / NS_PER_S * hz + ns % NS_PER_S * hz / NS_PER_S;
}

static void arm_next(void)
{
	(void)irq_source_arm(s.p, IRQ_SRC_APIC_ONESHOT, IRQ_VEC_PROF, ns_to_ticks(prof_period_next(&s.per), s.tsc_hz), 0);
}

static void timer_handler(void *ctx, uint64_t entry_tsc, uint64_t pc)
{
	(void)ctx;
	s.hit(s.ctx, 0, pc, entry_tsc);
	if (s.rearm)
		arm_next();
	s.exit_tsc = tsc_rdtsc();
}

/* Before the EOI (the dispatcher sends it after the handler): the overflow bit is cleared in
 * a64_pmi_ack, so the level has dropped by then. An interrupt without our bit is not a sample. */
static void pmi_handler(void *ctx, uint64_t entry_tsc, uint64_t pc)
{
	(void)ctx;
	if (a64_pmi_ack(&s.pmi, s.rearm ? prof_period_next(&s.per) : s.pmi.max_period))
		s.hit(s.ctx, 0, pc, entry_tsc);
	s.exit_tsc = tsc_rdtsc();
}

static bool start_pmi(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
		      const char **why)
{
	uint64_t period = req->period ? req->period : PROF_DEFAULT_PERIOD_EVENTS;
	const char *event = req->event && *req->event ? req->event : "cycles";
	unsigned intid = irq_platform_a64_facts()->pmu_intid;

	if (!env->pmu || !env->pmu->present) {
		*why = env->pmu && env->pmu->reason ? env->pmu->reason : "no PMU";
		return false;
	}
	if (intid < GIC_NUM_SGIS || intid >= GIC_NUM_PRIVATE) {
		*why = "the PMU's overflow interrupt (MADT GICC Performance Interrupt GSIV) is not a PPI";
		return false;
	}
	if (!a64_pmi_setup(&s.pmi, env->pmu, event, why))
		return false;
	/* The probes see the PMU description read-only; the one field the sampler owns is the set of
	 * counters kept from counter sets (the object itself is not const: efi/main_aarch64.c's). */
	s.pmu = (struct pmu_info *)env->pmu;
	s.pmu->counters_reserved |= a64_pmi_counters(&s.pmi);
	s.pmu_intid = intid;
	prof_period_init(&s.per, period, req->seed);
	s.exit_tsc = 0;
	irq_register_pc(IRQ_VEC_PROF, pmi_handler, 0);
	if (!irq_platform_a64_private(intid, IRQ_VEC_PROF, true)) {
		irq_unregister(IRQ_VEC_PROF);
		a64_pmi_stop(&s.pmi);
		s.pmu->counters_reserved &= ~a64_pmi_counters(&s.pmi);
		*why = "the GIC refused the PMU's interrupt";
		return false;
	}
	s.rearm = true;
	s.active = ACTIVE_PMI;
	a64_pmi_arm(&s.pmi, prof_period_next(&s.per));
	out->source = "pmi";
	out->event = event;
	out->unit = "events";
	out->period = period;
	out->period_min = s.per.min;
	out->period_max = s.per.max;
	return true;
}

static bool start_timer(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
			const char **why)
{
	uint64_t period = req->period ? req->period : PROF_DEFAULT_PERIOD_NS;
	const char *na = irq_source_unavailable(s.p, IRQ_SRC_APIC_ONESHOT);

	(void)env;
	if (na) {
		*why = na;
		return false;
	}
	if (period < PROF_MIN_PERIOD_NS) {
		*why = "profile_period below 2000 ns: the sampling handler would take all the time";
		return false;
	}
	prof_period_init(&s.per, period, req->seed);
	s.exit_tsc = 0;
	irq_register_pc(IRQ_VEC_PROF, timer_handler, 0);
	irq_source_prepare(s.p, IRQ_SRC_APIC_ONESHOT, IRQ_VEC_PROF);
	s.rearm = true;
	s.active = ACTIVE_TIMER;
	arm_next();
	out->source = "timer";
	out->event = "time";
	out->unit = "ns";
	out->period = period;
	out->period_min = s.per.min;
	out->period_max = s.per.max;
	return true;
}

bool prof_sampler_start(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
			const char **why)
{
	const char *pmi_why = 0;

	*out = (struct prof_sampler_info){ 0 };
	out->cpus = 1;
	s.p = env->irq;
	s.tsc_hz = env->tsc_hz;
	s.hit = req->hit;
	s.ctx = req->ctx;
	if (!irq_available() || !s.p || !s.p->ready) {
		*why = s.p && s.p->reason ? s.p->reason : "no interrupt entry of ours (at EL2 our vectors are not installed)";
		return false;
	}
	if (!env->tsc_hz) {
		*why = "the counter frequency is unknown";
		return false;
	}
	if (irq_registered(IRQ_VEC_PROF)) {
		*why = "the profiler's vector is already in use";
		return false;
	}
	if (req->source != PROF_SRC_TIMER) {
		if (start_pmi(env, req, out, &pmi_why))
			return true;
		if (req->source == PROF_SRC_PMU) {
			*why = pmi_why;
			return false;
		}
		out->fallback = pmi_why;
	}
	return start_timer(env, req, out, why);
}

/* Interrupts masked: take here what was pending at the stop rather than leave it for a later
 * window. */
static void drain_pending(void)
{
	uint64_t limit = tsc_rdtsc() + ns_to_ticks(PROF_STOP_DRAIN_US * 1000, s.tsc_hz);

	while (irq_vector_pending(s.p, IRQ_VEC_PROF) && tsc_rdtsc() < limit) {
		irq_enable();
		cpu_relax();
		irq_disable();
	}
}

void prof_sampler_stop(void)
{
	if (s.active == ACTIVE_NONE)
		return;
	s.rearm = false;
	if (s.active == ACTIVE_TIMER) {
		irq_source_release(s.p, IRQ_SRC_APIC_ONESHOT, IRQ_VEC_PROF);
		drain_pending();
	} else {
		/* A level source: an overflow pending now is taken while the counter still runs (the
		 * handler preloads the longest period), then the counter stops and the level drops. */
		drain_pending();
		a64_pmi_stop(&s.pmi);
		(void)irq_platform_a64_private(s.pmu_intid, 0, false);
		s.pmu->counters_reserved &= ~a64_pmi_counters(&s.pmi);
	}
	irq_unregister(IRQ_VEC_PROF);
	s.active = ACTIVE_NONE;
}

bool prof_sampler_cpu_begin(unsigned cpu)
{
	(void)cpu;
	return false; /* application processors do not sample on AArch64 yet */
}

void prof_sampler_cpu_end(unsigned cpu)
{
	(void)cpu;
}

uint64_t prof_sampler_last_exit_tsc(unsigned cpu)
{
	return cpu == 0 ? s.exit_tsc : 0;
}

void prof_sampler_window_open(void)
{
	irq_enable();
}

void prof_sampler_window_close(void)
{
	irq_disable();
}
