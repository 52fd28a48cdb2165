/* The profiler's sampling interrupts on AArch64 (drivers/prof_sampler.h): time-based sampling on
 * the EL1 virtual timer (drivers/irq_platform_a64.h's cntv_oneshot, routed to IRQ_VEC_PROF),
 * re-armed from the handler with a freshly drawn delay, on the CPU that runs the probes. The
 * handler gets the interrupted PC from ELR_EL1 (the IRQ stub passes it). No PMU-overflow source
 * yet (PMUv3 overflow, PPI 23, comes with the PMU port): profile_source=pmu is refused with that
 * reason and auto falls back to the timer; application processors do not sample (no SMP yet). */
#include "drivers/prof_sampler.h"

#include "arch/cycles.h"
#include "arch/irq.h"
#include "bench/probe.h"
#include "bench/prof_period.h"
#include "drivers/irq_platform.h"

#define NS_PER_S 1000000000ull
/* As on x86_64: a shorter period would leave the probe no time (the handler takes some
 * microseconds under TCG). */
#define PROF_MIN_PERIOD_NS 2000ull
#define PROF_STOP_DRAIN_US 2000ull
#define NO_PMU "no PMU-overflow sampling on AArch64 yet (PMUv3 overflow interrupts are not ported)"

static struct {
	volatile bool active;
	volatile bool rearm;
	volatile uint64_t exit_tsc;
	struct irq_platform *p;
	uint64_t tsc_hz;
	struct prof_period per;
	prof_hit_fn hit;
	void *ctx;
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

bool prof_sampler_start(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
			const char **why)
{
	uint64_t period = req->period ? req->period : PROF_DEFAULT_PERIOD_NS;
	const char *na;

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
	if (req->source == PROF_SRC_PMU) {
		*why = NO_PMU;
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
	na = irq_source_unavailable(s.p, IRQ_SRC_APIC_ONESHOT);
	if (na) {
		*why = na;
		return false;
	}
	if (period < PROF_MIN_PERIOD_NS) {
		*why = "profile_period below 2000 ns: the sampling handler would take all the time";
		return false;
	}
	if (req->source == PROF_SRC_AUTO)
		out->fallback = NO_PMU;
	prof_period_init(&s.per, period, req->seed);
	s.exit_tsc = 0;
	irq_register_pc(IRQ_VEC_PROF, timer_handler, 0);
	irq_source_prepare(s.p, IRQ_SRC_APIC_ONESHOT, IRQ_VEC_PROF);
	s.rearm = true;
	s.active = true;
	arm_next();
	out->source = "timer";
	out->event = "time";
	out->unit = "ns";
	out->period = period;
	out->period_min = s.per.min;
	out->period_max = s.per.max;
	return true;
}

void prof_sampler_stop(void)
{
	uint64_t limit;

	if (!s.active)
		return;
	s.rearm = false;
	irq_source_release(s.p, IRQ_SRC_APIC_ONESHOT, IRQ_VEC_PROF);
	/* Take here what was pending at the stop rather than leave it for a later window. */
	limit = tsc_rdtsc() + ns_to_ticks(PROF_STOP_DRAIN_US * 1000, s.tsc_hz);
	while (irq_vector_pending(s.p, IRQ_VEC_PROF) && tsc_rdtsc() < limit) {
		irq_enable();
		cpu_relax();
		irq_disable();
	}
	irq_unregister(IRQ_VEC_PROF);
	s.active = false;
}

bool prof_sampler_cpu_begin(unsigned cpu)
{
	(void)cpu;
	return false; /* no secondary cores on AArch64 yet */
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
