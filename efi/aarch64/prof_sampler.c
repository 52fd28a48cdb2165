/* The profiler's sampling interrupts on AArch64 (bench/profile/sampler.h), on the profiler's
 * vector (IRQ_VEC_PROF); the IRQ stub passes the interrupted PC (ELR_EL1) to the handler:
 *  - `pmi`: PMUv3 counter overflow (arch/aarch64/pmu_pmi.h): the highest free event counter
 *    counts profile_event at EL1 from 2^width - period; its overflow raises the PMU's PPI (the
 *    MADT GICC entry's Performance Interrupt GSIV, else QEMU virt's 23), routed here through
 *    irq_platform_a64_private (level-sensitive); the handler clears the overflow and preloads the
 *    next drawn period. The counters used are kept from the runner's counter sets while sampling
 *    (pmu_info.counters_reserved).
 *  - `timer`: the EL1 virtual timer (cntv_oneshot), re-armed from the handler with a freshly
 *    drawn delay (time-based sampling) — profile_source=timer, or auto when the PMU cannot count
 *    the event (out->fallback says why).
 * Application processors sample too, around their share of an smp_run_all job (the hooks
 * prof_sampler_cpu_begin/end): each core brings up its own side of the GIC (GICv3: its
 * redistributor and CPU interface; GICv2: its banked PPIs and CPU interface;
 * irq_platform_a64_cpu_up) and samples with its own PMU counters or virtual timer (both are
 * per core, as PPIs are), its own period sequence; the INTID's routing is the boot CPU's (one
 * table). The handler finds its CPU index from MPIDR_EL1. */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "bench/profile/sampler.h"

#include "arch/aarch64/pmu_pmi.h"
#include "arch/cycles.h"
#include "arch/irq.h"
#include "arch/smp.h"
#include "bench/core/probe.h"
#include "bench/profile/period.h"
#include "bench/core/irq_platform.h"
#include "efi/aarch64/irq_platform.h"
#include "efi/prof_sampler_common.h"


enum prof_active { ACTIVE_NONE, ACTIVE_TIMER, ACTIVE_PMI };

/* What each sampling CPU's handler writes: its own line(s). */
struct prof_cpu_state {
	struct prof_period per;
	struct a64_pmi pmi;         /* this core's counters (pmi) */
	struct gic gic;             /* application processors: this core's side of the GIC */
	volatile uint64_t exit_cycles; /* end of the last handler */
	volatile bool rearm;        /* cleared by stop: the handler then no longer re-arms */
	bool on;
} __attribute__((aligned(64)));

static struct {
	volatile enum prof_active active;
	struct irq_platform *p;
	uint64_t counter_hz;
	uint64_t period, seed;
	const char *event;
	prof_hit_fn hit;
	void *ctx;
	struct pmu_info *pmu;   /* for counters_reserved: the sampling counters kept from counter sets */
	struct pmu_info pmu_ap; /* the same PMU as found before our reservation: each core's own counters */
	unsigned intid;         /* the PPI sampled on */
	bool aps;               /* application processors sample */
	struct prof_cpu_state *cpu; /* [ncpu], from the arena at start */
	unsigned ncpu;
} s;

static unsigned self_cpu(void)
{
	return prof_cpu_index(s.aps, s.ncpu);
}

/* This core's virtual timer (a per-core register): the next drawn delay. */
static void timer_arm_next(struct prof_cpu_state *c)
{
	(void)irq_source_arm(s.p, IRQ_SRC_ONESHOT_TIMER, IRQ_VEC_PROF, prof_ns_to_ticks(prof_period_next(&c->per), s.counter_hz),
			     0);
}

/* Deliberately per CPU (twin: efi/x86_64/prof_sampler.c's): the handler works on this port's own state layout. */
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

/* Before the EOI (the dispatcher sends it after the handler): the overflow bit is cleared in
 * a64_pmi_ack, so the level has dropped by then. An interrupt without our bit is not a sample. */
static void pmi_handler(void *ctx, uint64_t entry_cycles, uint64_t pc)
{
	unsigned cpu = self_cpu();
	struct prof_cpu_state *c = &s.cpu[cpu];

	(void)ctx;
	if (a64_pmi_ack(&c->pmi, c->rearm ? prof_period_next(&c->per) : c->pmi.max_period))
		s.hit(s.ctx, cpu, pc, entry_cycles);
	c->exit_cycles = cycles_read();
}

static bool start_pmi(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
		      const char **why)
{
	struct prof_cpu_state *c = &s.cpu[0];
	unsigned intid = irq_platform_a64_facts()->pmu_intid;

	s.period = req->period ? req->period : PROF_DEFAULT_PERIOD_EVENTS;
	s.event = req->event && *req->event ? req->event : "cycles";
	if (!env->pmu || !env->pmu->present) {
		*why = env->pmu && env->pmu->reason ? env->pmu->reason : "no PMU";
		return false;
	}
	if (!intid && irq_platform_a64_facts()->pmu_intid_reason) {
		*why = irq_platform_a64_facts()->pmu_intid_reason;
		return false;
	}
	if (intid < GIC_NUM_SGIS || intid >= GIC_NUM_PRIVATE) {
		*why = "the PMU's overflow interrupt (MADT GICC Performance Interrupt GSIV) is not a PPI";
		return false;
	}
	if (!a64_pmi_setup(&c->pmi, env->pmu, s.event, why))
		return false;
	/* The probes see the PMU description read-only; the one field the sampler owns is the set of
	 * counters kept from counter sets (the object itself is not const: efi/main.c's). */
	s.pmu = (struct pmu_info *)env->pmu;
	s.pmu_ap = *env->pmu;
	s.pmu->counters_reserved |= a64_pmi_counters(&c->pmi);
	s.intid = intid;
	prof_period_init(&c->per, s.period, s.seed);
	irq_register_pc(IRQ_VEC_PROF, pmi_handler, 0);
	if (!irq_platform_a64_private(intid, IRQ_VEC_PROF, true)) {
		irq_unregister(IRQ_VEC_PROF);
		a64_pmi_stop(&c->pmi);
		s.pmu->counters_reserved &= ~a64_pmi_counters(&c->pmi);
		*why = "the GIC refused the PMU's interrupt";
		return false;
	}
	c->rearm = true;
	c->on = true;
	s.active = ACTIVE_PMI;
	a64_pmi_arm(&c->pmi, prof_period_next(&c->per));
	out->source = "pmi";
	out->event = s.event;
	out->unit = "events";
	return true;
}

static bool start_timer(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
			const char **why)
{
	struct prof_cpu_state *c = &s.cpu[0];
	const char *na = irq_source_unavailable(s.p, IRQ_SRC_ONESHOT_TIMER);

	(void)env;
	if (na) {
		*why = na;
		return false;
	}
	s.period = prof_timer_period(req, why);
	if (!s.period)
		return false;
	s.intid = A64_INTID_CNTV;
	prof_period_init(&c->per, s.period, s.seed);
	irq_register_pc(IRQ_VEC_PROF, timer_handler, 0);
	irq_source_prepare(s.p, IRQ_SRC_ONESHOT_TIMER, IRQ_VEC_PROF);
	c->rearm = true;
	c->on = true;
	s.active = ACTIVE_TIMER;
	timer_arm_next(c);
	out->source = "timer";
	out->event = "time";
	out->unit = "ns";
	return true;
}

/* Deliberately per CPU (twin: efi/x86_64/prof_sampler.c's): fills this port's own state; the checks are shared. */
bool prof_sampler_start(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
			const char **why)
{
	*out = (struct prof_sampler_info){ 0 };
	out->cpus = 1;
	s.p = env->irq;
	s.counter_hz = env->counter_hz;
	s.hit = req->hit;
	s.ctx = req->ctx;
	s.seed = req->seed;
	s.aps = false;
	s.cpu = prof_sampler_prepare(env, sizeof(*s.cpu), &s.ncpu, why);
	if (!s.cpu || !prof_sampler_choose(env, req, out, why, start_pmi, start_timer))
		return false;
	s.aps = s.ncpu > 1;
	out->period = s.period;
	out->period_min = s.cpu[0].per.min;
	out->period_max = s.cpu[0].per.max;
	out->cpus = s.ncpu;
	return true;
}

/* Is a sample still pending on this core (g: its side of the GIC, else the boot CPU's view)? */
static bool sample_pending(const void *arg)
{
	const struct gic *g = arg;

	return g ? (gic_private_pending(g) >> s.intid) & 1u : irq_vector_pending(s.p, IRQ_VEC_PROF);
}

static void drain_pending(const struct gic *g)
{
	prof_drain_pending(sample_pending, g, s.counter_hz);
}

void prof_sampler_stop(void)
{
	struct prof_cpu_state *c;

	if (s.active == ACTIVE_NONE)
		return;
	c = &s.cpu[0];
	c->rearm = false;
	if (s.active == ACTIVE_TIMER) {
		irq_source_release(s.p, IRQ_SRC_ONESHOT_TIMER, IRQ_VEC_PROF);
		drain_pending(0);
	} else {
		/* A level source: an overflow pending now is taken while the counter still runs (the
		 * handler preloads the longest period), then the counter stops and the level drops. */
		drain_pending(0);
		a64_pmi_stop(&c->pmi);
		(void)irq_platform_a64_private(s.intid, 0, false);
		s.pmu->counters_reserved &= ~a64_pmi_counters(&c->pmi);
	}
	c->on = false;
	irq_unregister(IRQ_VEC_PROF);
	s.aps = false;
	s.active = ACTIVE_NONE;
}

bool prof_sampler_cpu_begin(unsigned cpu)
{
	struct prof_cpu_state *c;
	const char *why = 0;

	if (s.active == ACTIVE_NONE || !s.aps || cpu == 0 || cpu >= s.ncpu)
		return false;
	c = &s.cpu[cpu];
	if (!gic_ready(&c->gic) && !irq_platform_a64_cpu_up(&c->gic))
		return false;
	prof_period_init(&c->per, s.period, s.seed + cpu);
	if (s.active == ACTIVE_PMI) {
		/* This core's own counters: the same indices as the boot CPU's (s.pmu_ap does not
		 * carry their reservation). */
		if (!a64_pmi_setup(&c->pmi, &s.pmu_ap, s.event, &why))
			return false;
	} else {
		gtimer_stop(&irq_platform_a64_facts()->timer, GT_VIRT);
	}
	if (!irq_platform_a64_cpu_private(&c->gic, s.intid, true)) {
		a64_pmi_stop(&c->pmi);
		return false;
	}
	c->exit_cycles = 0;
	c->rearm = true;
	c->on = true;
	if (s.active == ACTIVE_PMI)
		a64_pmi_arm(&c->pmi, prof_period_next(&c->per));
	else
		timer_arm_next(c);
	irq_enable();
	return true;
}

void prof_sampler_cpu_end(unsigned cpu)
{
	struct prof_cpu_state *c;

	irq_disable();
	if (cpu == 0 || cpu >= s.ncpu || !s.cpu || !s.cpu[cpu].on)
		return;
	c = &s.cpu[cpu];
	c->rearm = false;
	if (s.active == ACTIVE_PMI) {
		drain_pending(&c->gic);
		a64_pmi_stop(&c->pmi);
	} else {
		gtimer_stop(&irq_platform_a64_facts()->timer, GT_VIRT);
		drain_pending(&c->gic);
	}
	(void)irq_platform_a64_cpu_private(&c->gic, s.intid, false);
	c->on = false;
}

uint64_t prof_sampler_last_exit_cycles(unsigned cpu)
{
	return s.cpu && cpu < s.ncpu ? s.cpu[cpu].exit_cycles : 0;
}
