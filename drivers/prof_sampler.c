/* The profiler's sampling interrupts on bare metal (see prof_sampler.h): counter overflow through
 * the local APIC's performance-counter LVT where a PMU counts, else the APIC timer in one-shot
 * mode, re-armed from the handler with a freshly drawn delay (time-based sampling: under QEMU TCG
 * and wherever a hypervisor hides the PMU). Both use one vector (IRQ_VEC_PROF) on the processor
 * that runs the probes. The handler's work is: read the interrupted PC from the stub's frame,
 * hand it to the profiler, draw the next period and re-arm. */
#include "drivers/prof_sampler.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/tsc.h"
#include "bench/probe.h"
#include "bench/prof_period.h"
#include "drivers/irq_platform.h"
#include "drivers/lapic_timer.h"

#define NS_PER_S 1000000000ull
/* A timer period shorter than this is refused: the handler (a few hundred cycles on hardware,
 * some microseconds under TCG) would take all the time there is. */
#define PROF_MIN_PERIOD_NS 2000ull
/* Bound on taking a sampling interrupt that was already pending when sampling stopped. */
#define PROF_STOP_DRAIN_US 2000ull

enum prof_active { ACTIVE_NONE, ACTIVE_TIMER, ACTIVE_PMI };

static struct {
	volatile enum prof_active active;
	volatile bool rearm; /* cleared by stop: the handler then no longer re-arms */
	struct irq_platform *p;
	uint64_t tsc_hz;
	struct prof_period per;
	prof_hit_fn hit;
	void *ctx;
	uint64_t timer_period_ns;
} s;

/* ns -> TSC cycles without 128-bit division: exact while (NS_PER_S - 1) * hz < 2^64 (hz < 18 GHz). */
static uint64_t ns_to_cycles(uint64_t ns, uint64_t hz)
{
	return ns / NS_PER_S * hz + ns % NS_PER_S * hz / NS_PER_S;
}

static void timer_arm_next(void)
{
	uint64_t arm;

	(void)irq_source_arm(s.p, IRQ_SRC_APIC_ONESHOT, IRQ_VEC_PROF,
			     ns_to_cycles(prof_period_next(&s.per), s.tsc_hz), &arm);
}

static void timer_handler(void *ctx, uint64_t entry_tsc)
{
	(void)ctx;
	s.hit(s.ctx, 0, irq_interrupted_pc(), entry_tsc);
	if (s.rearm)
		timer_arm_next();
}

static bool start_timer(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
			const char **why)
{
	uint64_t period = req->period ? req->period : PROF_DEFAULT_PERIOD_NS;
	const char *na = irq_source_unavailable(s.p, IRQ_SRC_APIC_ONESHOT);

	if (na) {
		*why = na;
		return false;
	}
	if (period < PROF_MIN_PERIOD_NS) {
		*why = "profile_period below 2000 ns: the sampling handler would take all the time";
		return false;
	}
	(void)env;
	prof_period_init(&s.per, period, req->seed);
	s.timer_period_ns = period;
	irq_register(IRQ_VEC_PROF, timer_handler, 0);
	irq_source_prepare(s.p, IRQ_SRC_APIC_ONESHOT, IRQ_VEC_PROF);
	s.rearm = true;
	s.active = ACTIVE_TIMER;
	timer_arm_next();
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
		*why = s.p && s.p->reason ? s.p->reason : "no interrupt machinery in this build";
		return false;
	}
	if (!env->tsc_hz) {
		*why = "the TSC rate is unknown";
		return false;
	}
	if (irq_registered(IRQ_VEC_PROF)) {
		*why = "the profiler's vector is already in use";
		return false;
	}
	if (req->source != PROF_SRC_TIMER) {
		pmi_why = "counter-overflow sampling is not built yet";
		if (req->source == PROF_SRC_PMU) {
			*why = pmi_why;
			return false;
		}
		out->fallback = pmi_why;
	}
	return start_timer(env, req, out, why);
}

void prof_sampler_stop(void)
{
	uint64_t limit;

	if (s.active == ACTIVE_NONE)
		return;
	s.rearm = false;
	irq_source_release(s.p, IRQ_SRC_APIC_ONESHOT, IRQ_VEC_PROF);
	/* An interrupt requested before the source stopped may still be pending: take it here (the
	 * handler no longer re-arms) rather than leave it for the next probe's window. */
	limit = tsc_rdtsc() + ns_to_cycles(PROF_STOP_DRAIN_US * 1000, s.tsc_hz);
	while (irq_vector_pending(s.p, IRQ_VEC_PROF) && tsc_rdtsc() < limit) {
		irq_enable();
		cpu_relax();
		irq_disable();
	}
	irq_unregister(IRQ_VEC_PROF);
	s.active = ACTIVE_NONE;
}

uint64_t prof_sampler_last_exit_tsc(unsigned cpu)
{
	return cpu == 0 ? irq_last_exit_tsc() : 0;
}

void prof_sampler_window_open(void)
{
	irq_enable();
}

void prof_sampler_window_close(void)
{
	irq_disable();
}
