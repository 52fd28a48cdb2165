/* The profiler's sampling interrupts on bare metal (bench/profile/sampler.h): counter overflow through
 * the local APIC's performance-counter LVT where a PMU counts, else the APIC timer in one-shot
 * mode, re-armed from the handler with a freshly drawn delay (time-based sampling: under QEMU TCG
 * and wherever a hypervisor hides the PMU). Both use one vector (IRQ_VEC_PROF) on the processor
 * that runs the probes. The handler's work is: read the interrupted PC from the stub's frame,
 * hand it to the profiler, draw the next period and re-arm. */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "bench/profile/sampler.h"

#include "arch/x86_64/cpu.h"
#include "arch/irq.h"
#include "arch/x86_64/pmu_pmi.h"
#include "arch/smp.h"
#include "arch/cycles.h"
#include "bench/core/probe.h"
#include "bench/profile/period.h"
#include "efi/x86_64/irq_platform.h"
#include "drivers/irqchip/x86_64/lapic_perf.h"
#include "drivers/irqchip/x86_64/lapic_timer.h"
#include "efi/prof_sampler_common.h"


enum prof_active { ACTIVE_NONE, ACTIVE_TIMER, ACTIVE_PMI };

/* What each sampling CPU's handler writes: its own line. */
struct prof_cpu_state {
	struct prof_period per;
	volatile uint64_t exit_cycles; /* end of the last handler */
	volatile bool rearm;        /* cleared by stop: the handler then no longer re-arms */
	bool on;
} __attribute__((aligned(64)));

static struct {
	volatile enum prof_active active;
	struct irq_platform *p;
	uint64_t counter_hz;
	uint64_t period, seed;
	prof_hit_fn hit;
	void *ctx;
	bool aps;                   /* application processors sample (the timer source only) */
	struct pmu_pmi pmi;
	struct pmu_info *pmu;       /* for gp_reserved: the sampling counter kept from counter sets */
	struct prof_cpu_state *cpu; /* [ncpu], from the arena at start */
	unsigned ncpu;
} s;

static unsigned self_cpu(void)
{
	return prof_cpu_index(s.aps, s.ncpu);
}

/* Arms this CPU's own APIC timer (every CPU's local APIC is at the same address or MSRs). */
static void timer_arm_next(struct prof_cpu_state *c)
{
	uint64_t arm;

	(void)irq_source_arm(s.p, IRQ_SRC_APIC_ONESHOT, IRQ_VEC_PROF,
			     prof_ns_to_ticks(prof_period_next(&c->per), s.counter_hz), &arm);
}

/* Deliberately per CPU (twin: efi/aarch64/prof_sampler.c's): the handler works on this port's own state layout. */
static void timer_handler(void *ctx, uint64_t entry_cycles, uint64_t pc)
{
	unsigned cpu = self_cpu();
	struct prof_cpu_state *c = &s.cpu[cpu];

	(void)ctx;
	s.hit(s.ctx, cpu, pc, entry_cycles);
	if (c->rearm)
		timer_arm_next(c);
	c->exit_cycles = cycles_read();
}

static void pmi_handler(void *ctx, uint64_t entry_cycles, uint64_t pc)
{
	struct prof_cpu_state *c = &s.cpu[0];

	(void)ctx;
	/* Acknowledge first: an overflow of a counter not ours is counted and cleared, not sampled. */
	if (pmu_pmi_ack(&s.pmi, c->rearm ? prof_period_next(&c->per) : 1))
		s.hit(s.ctx, 0, pc, entry_cycles);
	/* Intel masks the LVT entry when it delivers a PMI (SDM vol. 3B, "Generating an Interrupt on
	 * Overflow"): unmask it for the next one. */
	if (c->rearm)
		lapic_perf_lvt_set(&s.p->lapic, IRQ_VEC_PROF);
	c->exit_cycles = cycles_read();
}

static bool start_pmi(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
		      const char **why)
{
	uint64_t period = req->period ? req->period : PROF_DEFAULT_PERIOD_EVENTS;
	const char *event = req->event ? req->event : "cycles";
	struct prof_cpu_state *c = &s.cpu[0];

	if (!env->pmu || !env->pmu->present) {
		*why = env->pmu && env->pmu->reason ? env->pmu->reason : "no PMU";
		return false;
	}
	if (!lapic_perf_lvt_present(&s.p->lapic)) {
		*why = "the local APIC has no performance-counter LVT entry";
		return false;
	}
	if (!pmu_pmi_setup(&s.pmi, env->pmu, event, why))
		return false;
	/* The probes see the PMU description read-only; the one field the sampler owns is the set of
	 * counters kept from counter sets (the object itself is not const: efi/main.c's). */
	s.pmu = (struct pmu_info *)env->pmu;
	s.pmu->gp_reserved |= 1u << s.pmi.counter;
	prof_period_init(&c->per, period, req->seed);
	c->exit_cycles = 0;
	c->rearm = true;
	c->on = true;
	s.aps = false;
	irq_register_pc(IRQ_VEC_PROF, pmi_handler, 0);
	lapic_perf_lvt_set(&s.p->lapic, IRQ_VEC_PROF);
	s.active = ACTIVE_PMI;
	if (!pmu_pmi_arm(&s.pmi, prof_period_next(&c->per), why)) {
		prof_sampler_stop();
		return false;
	}
	out->source = "pmi";
	out->event = event;
	out->unit = "events";
	out->period = period;
	out->period_min = c->per.min;
	out->period_max = c->per.max;
	out->cpus = 1;
	return true;
}

static bool start_timer(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
			const char **why)
{
	const char *na = irq_source_unavailable(s.p, IRQ_SRC_APIC_ONESHOT);
	uint64_t period;

	if (na) {
		*why = na;
		return false;
	}
	period = prof_timer_period(req, why);
	if (!period)
		return false;
	(void)env;
	s.period = period;
	s.seed = req->seed;
	s.aps = smp_cpus_online() > 1;
	prof_period_init(&s.cpu[0].per, period, req->seed);
	s.cpu[0].exit_cycles = 0;
	irq_register_pc(IRQ_VEC_PROF, timer_handler, 0);
	irq_source_prepare(s.p, IRQ_SRC_APIC_ONESHOT, IRQ_VEC_PROF);
	s.cpu[0].rearm = true;
	s.cpu[0].on = true;
	s.active = ACTIVE_TIMER;
	timer_arm_next(&s.cpu[0]);
	out->source = "timer";
	out->event = "time";
	out->unit = "ns";
	out->period = period;
	out->period_min = s.cpu[0].per.min;
	out->period_max = s.cpu[0].per.max;
	out->cpus = s.aps ? smp_cpus_online() : 1;
	return true;
}

/* Deliberately per CPU (twin: efi/aarch64/prof_sampler.c's): fills this port's own state; the checks are shared. */
bool prof_sampler_start(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
			const char **why)
{
	*out = (struct prof_sampler_info){ 0 };
	out->cpus = 1;
	s.p = env->irq;
	s.counter_hz = env->counter_hz;
	s.hit = req->hit;
	s.ctx = req->ctx;
	s.cpu = prof_sampler_prepare(env, sizeof(*s.cpu), &s.ncpu, why);
	return s.cpu && prof_sampler_choose(env, req, out, why, start_pmi, start_timer);
}

static bool sample_pending(const void *arg)
{
	(void)arg;
	return irq_vector_pending(s.p, IRQ_VEC_PROF);
}

/* On the calling CPU, interrupts masked: take an interrupt it requested before the stop (pending
 * at its local APIC) here, rather than leave it for a later window. */
static void drain_pending_here(void)
{
	prof_drain_pending(sample_pending, 0, s.counter_hz);
}

static void timer_stop_here(struct prof_cpu_state *c)
{
	c->rearm = false;
	irq_source_release(s.p, IRQ_SRC_APIC_ONESHOT, IRQ_VEC_PROF);
	drain_pending_here();
	c->on = false;
}

void prof_sampler_stop(void)
{
	if (s.active == ACTIVE_NONE)
		return;
	if (s.active == ACTIVE_TIMER) {
		timer_stop_here(&s.cpu[0]);
	} else {
		s.cpu[0].rearm = false;
		pmu_pmi_stop(&s.pmi);
		lapic_perf_lvt_mask(&s.p->lapic);
		drain_pending_here();
		s.pmu->gp_reserved &= ~(1u << s.pmi.counter);
		s.cpu[0].on = false;
	}
	irq_unregister(IRQ_VEC_PROF);
	s.aps = false;
	s.active = ACTIVE_NONE;
}

bool prof_sampler_cpu_begin(unsigned cpu)
{
	struct prof_cpu_state *c;

	if (s.active != ACTIVE_TIMER || !s.aps || cpu == 0 || cpu >= s.ncpu)
		return false;
	c = &s.cpu[cpu];
	/* The AP's own local APIC: software-enabled with our spurious vector (INIT left it off),
	 * every priority accepted, the timer's LVT on the sampling vector. */
	lapic_software_enable(&s.p->lapic);
	lapic_accept_all(&s.p->lapic);
	irq_source_prepare(s.p, IRQ_SRC_APIC_ONESHOT, IRQ_VEC_PROF);
	prof_period_init(&c->per, s.period, s.seed + cpu);
	c->exit_cycles = 0;
	c->rearm = true;
	c->on = true;
	timer_arm_next(c);
	irq_enable();
	return true;
}

void prof_sampler_cpu_end(unsigned cpu)
{
	irq_disable();
	if (cpu == 0 || cpu >= s.ncpu || !s.cpu[cpu].on)
		return;
	timer_stop_here(&s.cpu[cpu]);
}

uint64_t prof_sampler_last_exit_cycles(unsigned cpu)
{
	return s.cpu && cpu < s.ncpu ? s.cpu[cpu].exit_cycles : 0;
}
