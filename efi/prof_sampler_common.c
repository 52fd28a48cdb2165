/* The bare-metal profiler's sampling sources, CPU-neutral (efi/prof_sampler_common.h): the state,
 * the timer source, the handlers' bookkeeping, start/stop and the application processors' share.
 * Both sources use one vector (IRQ_VEC_PROF); the interrupt stub hands the handler the interrupted
 * PC. A handler's work: find its CPU, hand the PC to the profiler, draw the next period, re-arm. */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "efi/prof_sampler_common.h"

#include "arch/cycles.h"
#include "arch/irq.h"
#include "arch/smp.h"
#include "bench/core/arena.h"
#include "bench/core/probe.h"
#include <string.h>

#define NS_PER_S 1000000000ull
#define CPU_STATE_ALIGN 64 /* one CPU's state never shares a line with another's */

enum prof_active { ACTIVE_NONE, ACTIVE_TIMER, ACTIVE_PMI };

static struct {
	volatile enum prof_active active;
	struct irq_platform *p;
	uint64_t counter_hz;
	uint64_t period, seed;
	prof_hit_fn hit;
	void *ctx;
	bool aps;             /* application processors sample */
	struct prof_cpu *cpu; /* [ncpu], from the arena at start */
	unsigned ncpu;
} s;

static const struct prof_sampler_ops *ops; /* the port's, from prof_sampler_start_on */

uint64_t prof_ns_to_ticks(uint64_t ns, uint64_t hz)
{
	return ns / NS_PER_S * hz + ns % NS_PER_S * hz / NS_PER_S;
}

/* Can anything sample here (our interrupt entry, the platform's sources, the counter's rate, the
 * profiler's vector free)? Then the per-CPU state, zeroed, from the probe's arena (released with
 * the probe's memory: nothing static per CPU), each CPU's port state after the table. */
static bool prepare(struct probe_env *env, const char **why)
{
	const char *unready = 0;
	bool ready = s.p && irq_platform_ready(s.p, &unready);
	size_t port = (ops->port_bytes + CPU_STATE_ALIGN - 1) / CPU_STATE_ALIGN * CPU_STATE_ALIGN;
	uint8_t *mem;

	if (!irq_available() || !ready) {
		*why = unready ? unready : "no interrupt entry of ours here";
		return false;
	}
	if (!env->counter_hz) {
		*why = "the cycle counter's rate is unknown";
		return false;
	}
	if (irq_registered(IRQ_VEC_PROF)) {
		*why = "the profiler's vector is already in use";
		return false;
	}
	s.ncpu = smp_cpus_online() ? smp_cpus_online() : 1;
	mem = arena_alloc(env->arena, s.ncpu * (sizeof(struct prof_cpu) + port), CPU_STATE_ALIGN);
	if (!mem) {
		*why = "no memory for the per-CPU sampling state";
		return false;
	}
	memset(mem, 0, s.ncpu * (sizeof(struct prof_cpu) + port));
	s.cpu = (struct prof_cpu *)(void *)mem;
	for (unsigned i = 0; i < s.ncpu && port; i++)
		s.cpu[i].port = mem + s.ncpu * sizeof(struct prof_cpu) + i * port;
	return true;
}

/* The running CPU's index (0 = the boot CPU): looked up only while application processors
 * sample, else 0. */
static unsigned self_cpu(void)
{
	uint32_t id;

	if (!s.aps)
		return 0;
	id = smp_self_hw_id();
	for (unsigned i = 0; i < s.ncpu; i++)
		if (smp_cpu_hw_id(i) == id)
			return i;
	return 0;
}

/* This CPU's own one-shot timer (a per-CPU source): the next drawn delay. */
static void timer_arm_next(struct prof_cpu *c)
{
	uint64_t arm;

	(void)irq_source_arm(s.p, IRQ_SRC_ONESHOT_TIMER, IRQ_VEC_PROF,
			     prof_ns_to_ticks(prof_period_next(&c->per), s.counter_hz), &arm);
}

static void timer_handler(void *ctx, uint64_t entry_cycles, uint64_t pc)
{
	unsigned cpu = self_cpu();
	struct prof_cpu *c = &s.cpu[cpu];

	(void)ctx;
	s.hit(s.ctx, cpu, pc, entry_cycles);
	if (c->rearm)
		timer_arm_next(c);
	c->exit_cycles = cycles_read();
}

/* An overflow interrupt without our counter's flag (another counter's) is counted and cleared by
 * the port, not sampled. */
static void pmi_handler(void *ctx, uint64_t entry_cycles, uint64_t pc)
{
	unsigned cpu = self_cpu();
	struct prof_cpu *c = &s.cpu[cpu];

	(void)ctx;
	if (ops->pmi_ack(s.p, c, c->rearm ? prof_period_next(&c->per) : 0))
		s.hit(s.ctx, cpu, pc, entry_cycles);
	if (c->rearm && ops->pmi_rearm)
		ops->pmi_rearm(s.p, c);
	c->exit_cycles = cycles_read();
}

static void cpu_on(struct prof_cpu *c)
{
	c->exit_cycles = 0;
	c->rearm = true;
	c->on = true;
}

static bool start_pmi(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
		      const char **why)
{
	struct prof_cpu *c = &s.cpu[0];
	const char *event = req->event && *req->event ? req->event : "cycles";

	s.period = req->period ? req->period : PROF_DEFAULT_PERIOD_EVENTS;
	if (!env->pmu || !env->pmu->present) {
		*why = env->pmu && env->pmu->reason ? env->pmu->reason : "no PMU";
		return false;
	}
	prof_period_init(&c->per, s.period, s.seed);
	irq_register_pc(IRQ_VEC_PROF, pmi_handler, 0);
	if (!ops->pmi_start(s.p, env, c, event, why)) {
		irq_unregister(IRQ_VEC_PROF);
		return false;
	}
	cpu_on(c);
	s.active = ACTIVE_PMI;
	if (!ops->pmi_arm(s.p, c, prof_period_next(&c->per), why)) {
		prof_sampler_stop();
		return false;
	}
	out->source = "pmi";
	out->event = event;
	out->unit = "events";
	return true;
}

static bool start_timer(const struct prof_sampler_req *req, struct prof_sampler_info *out, const char **why)
{
	struct prof_cpu *c = &s.cpu[0];
	const char *na = irq_source_unavailable(s.p, IRQ_SRC_ONESHOT_TIMER);

	if (na) {
		*why = na;
		return false;
	}
	if (req->period && req->period < PROF_MIN_PERIOD_NS) {
		*why = "profile_period below 2000 ns: the sampling handler would take all the time";
		return false;
	}
	s.period = req->period ? req->period : PROF_DEFAULT_PERIOD_NS;
	prof_period_init(&c->per, s.period, s.seed);
	irq_register_pc(IRQ_VEC_PROF, timer_handler, 0);
	irq_source_prepare(s.p, IRQ_SRC_ONESHOT_TIMER, IRQ_VEC_PROF);
	cpu_on(c);
	s.active = ACTIVE_TIMER;
	timer_arm_next(c);
	out->source = "timer";
	out->event = "time";
	out->unit = "ns";
	return true;
}

/* What req->source asks: PROF_SRC_PMU counter overflow (its reason when it cannot), PROF_SRC_TIMER
 * the timer, PROF_SRC_AUTO overflow, else the timer with out->fallback saying why not the counter. */
static bool choose(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
		   const char **why)
{
	const char *pmi_why = 0;

	if (req->source != PROF_SRC_TIMER) {
		if (start_pmi(env, req, out, &pmi_why))
			return true;
		if (req->source == PROF_SRC_PMU) {
			*why = pmi_why;
			return false;
		}
		out->fallback = pmi_why;
	}
	return start_timer(req, out, why);
}

bool prof_sampler_start_on(const struct prof_sampler_ops *port, struct probe_env *env,
			   const struct prof_sampler_req *req, struct prof_sampler_info *out, const char **why)
{
	ops = port;
	*out = (struct prof_sampler_info){ 0 };
	out->cpus = 1;
	s.p = env->irq;
	s.counter_hz = env->counter_hz;
	s.hit = req->hit;
	s.ctx = req->ctx;
	s.seed = req->seed;
	s.aps = false;
	s.cpu = 0;
	if (!prepare(env, why) || !choose(env, req, out, why))
		return false;
	s.aps = s.ncpu > 1 && (s.active == ACTIVE_TIMER || ops->pmi_on_aps);
	out->period = s.period;
	out->period_min = s.cpu[0].per.min;
	out->period_max = s.cpu[0].per.max;
	out->cpus = s.aps ? s.ncpu : 1;
	return true;
}

static bool vector_pending(const void *arg)
{
	(void)arg;
	return irq_vector_pending(s.p, IRQ_VEC_PROF);
}

void prof_drain_pending(bool (*pending)(const void *arg), const void *arg)
{
	uint64_t limit = cycles_read() + prof_ns_to_ticks(PROF_STOP_DRAIN_US * 1000, s.counter_hz);

	while (pending(arg) && cycles_read() < limit) {
		irq_enable();
		cpu_relax();
		irq_disable();
	}
}

void prof_drain_here(void)
{
	prof_drain_pending(vector_pending, 0);
}

void prof_sampler_stop(void)
{
	struct prof_cpu *c;

	if (s.active == ACTIVE_NONE)
		return;
	c = &s.cpu[0];
	c->rearm = false;
	if (s.active == ACTIVE_TIMER) {
		irq_source_release(s.p, IRQ_SRC_ONESHOT_TIMER, IRQ_VEC_PROF);
		prof_drain_here();
	} else {
		ops->pmi_stop(s.p, c);
	}
	c->on = false;
	irq_unregister(IRQ_VEC_PROF);
	s.aps = false;
	s.active = ACTIVE_NONE;
}

bool prof_sampler_cpu_begin(unsigned cpu)
{
	struct prof_cpu *c;
	bool pmi = s.active == ACTIVE_PMI;
	const char *why = 0;

	if (s.active == ACTIVE_NONE || !s.aps || cpu == 0 || cpu >= s.ncpu)
		return false;
	c = &s.cpu[cpu];
	prof_period_init(&c->per, s.period, s.seed + cpu);
	if (!ops->cpu_up(s.p, cpu, c, pmi))
		return false;
	cpu_on(c);
	if (!pmi)
		timer_arm_next(c);
	else if (!ops->pmi_arm(s.p, c, prof_period_next(&c->per), &why))
		return false;
	irq_enable();
	return true;
}

void prof_sampler_cpu_end(unsigned cpu)
{
	struct prof_cpu *c;

	irq_disable();
	if (cpu == 0 || cpu >= s.ncpu || !s.cpu || !s.cpu[cpu].on)
		return;
	c = &s.cpu[cpu];
	c->rearm = false;
	ops->cpu_down(s.p, cpu, c, s.active == ACTIVE_PMI);
	c->on = false;
}

uint64_t prof_sampler_last_exit_cycles(unsigned cpu)
{
	return s.cpu && cpu < s.ncpu ? s.cpu[cpu].exit_cycles : 0;
}

void prof_sampler_window_open(void)
{
	irq_enable();
}

void prof_sampler_window_close(void)
{
	irq_disable();
}
