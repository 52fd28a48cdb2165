/* The bare-metal samplers' shared start (efi/prof_sampler_common.h). */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "efi/prof_sampler_common.h"

#include "arch/cycles.h"
#include "arch/irq.h"
#include "arch/smp.h"
#include "bench/core/arena.h"
#include "bench/core/probe.h"
#include "bench/core/irq_platform.h"
#include <string.h>

#define NS_PER_S 1000000000ull
#define CPU_STATE_ALIGN 64 /* one CPU's state never shares a line with another's */

uint64_t prof_ns_to_ticks(uint64_t ns, uint64_t hz)
{
	return ns / NS_PER_S * hz + ns % NS_PER_S * hz / NS_PER_S;
}

void *prof_sampler_prepare(struct probe_env *env, size_t size, unsigned *ncpu, const char **why)
{
	struct irq_platform *p = env->irq;
	const char *unready = 0;
	bool ready = p && irq_platform_ready(p, &unready);
	void *state;

	if (!irq_available() || !ready) {
		*why = unready ? unready : "no interrupt entry of ours here";
		return 0;
	}
	if (!env->counter_hz) {
		*why = "the cycle counter's rate is unknown";
		return 0;
	}
	if (irq_registered(IRQ_VEC_PROF)) {
		*why = "the profiler's vector is already in use";
		return 0;
	}
	/* From the arena (released with the probe's memory): nothing static per CPU. */
	*ncpu = smp_cpus_online() ? smp_cpus_online() : 1;
	state = arena_alloc(env->arena, *ncpu * size, CPU_STATE_ALIGN);
	if (!state) {
		*why = "no memory for the per-CPU sampling state";
		return 0;
	}
	memset(state, 0, *ncpu * size);
	return state;
}

bool prof_sampler_choose(struct probe_env *env, const struct prof_sampler_req *req, struct prof_sampler_info *out,
			 const char **why, prof_start_fn start_pmi, prof_start_fn start_timer)
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
	return start_timer(env, req, out, why);
}

uint64_t prof_timer_period(const struct prof_sampler_req *req, const char **why)
{
	uint64_t period = req->period ? req->period : PROF_DEFAULT_PERIOD_NS;

	if (period < PROF_MIN_PERIOD_NS) {
		*why = "profile_period below 2000 ns: the sampling handler would take all the time";
		return 0;
	}
	return period;
}

unsigned prof_cpu_index(bool aps, unsigned ncpu)
{
	uint32_t id;

	if (!aps)
		return 0;
	id = smp_self_hw_id();
	for (unsigned i = 0; i < ncpu; i++)
		if (smp_cpu_hw_id(i) == id)
			return i;
	return 0;
}

void prof_drain_pending(bool (*pending)(const void *arg), const void *arg, uint64_t counter_hz)
{
	uint64_t limit = cycles_read() + prof_ns_to_ticks(PROF_STOP_DRAIN_US * 1000, counter_hz);

	while (pending(arg) && cycles_read() < limit) {
		irq_enable();
		cpu_relax();
		irq_disable();
	}
}

void prof_sampler_window_open(void)
{
	irq_enable();
}

void prof_sampler_window_close(void)
{
	irq_disable();
}
