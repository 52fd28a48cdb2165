/* Probe `irq_exception`: the round trip of a CPU exception through our own IDT — `int3` (#BP,
 * a trap) and `ud2` (#UD, a fault resumed past the instruction) — timed with cycles_begin/cycles_end
 * around the one instruction. The trap path is the full one (entry stub, register save, the C
 * trap handler, iretq); a hook in the handler resumes without emitting a fault record. One
 * exception per sample, warm-up first, count bounded by irq_samples and irq_set_ms. */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "arch/cycles.h"
#include "arch/traps.h"
#include "bench/probes/irq/common.h"
#include "lib/emit.h"

struct exc_kind {
	const char *name;
	unsigned vector;
	enum irq_exc_hook hook;
	void (*raise)(void);
};

static const struct exc_kind kinds[] = {
	{ IRQ_EXC_BREAKPOINT_NAME, IRQ_EXC_BREAKPOINT, IRQ_HOOK_RESUME, irq_raise_breakpoint },
	{ IRQ_EXC_UNDEFINED_NAME, IRQ_EXC_UNDEFINED, IRQ_HOOK_SKIP_UNDEFINED, irq_raise_undefined },
};

static enum probe_status irq_exception_run(struct probe_env *env)
{
	uint64_t cap = env->cfg->irq_samples;
	uint64_t *samples = probe_sample_buffer(env, cap);

	if (!irq_available()) {
		emit_skip("irq_exception", "exceptions are not ours to take here (hosted: signals; EL2: no vectors)");
		return PROBE_SKIPPED;
	}
	if (!samples) {
		emit_skip("irq_exception", "sample buffer does not fit in the arena");
		return PROBE_SKIPPED;
	}
	for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		const struct exc_kind *e = &kinds[k];
		uint64_t budget = env->cfg->irq_set_ms * (env->counter_hz / 1000), start, n = 0;
		struct record *r;
		uint32_t set;

		irq_set_exception_hook(e->vector, e->hook);
		for (unsigned i = 0; i < IRQ_WARMUP; i++)
			e->raise();
		start = cycles_read();
		while (n < cap && (!env->counter_hz || cycles_read() - start < budget)) {
			uint64_t t0 = cycles_begin();

			e->raise();
			samples[n++] = cycles_end() - t0;
		}
		irq_set_exception_hook(e->vector, IRQ_HOOK_NONE);
		set = probe_declare_set(env, &r, "irq_exception", n, 1, env->timer_overhead);
		rec_str(r, "kind", e->name);
		rec_u64(r, "vector", e->vector);
		rec_u64(r, "requested", cap);
		rec_bool(r, "truncated_by_time", n < cap);
		rec_u64(r, "warmup", IRQ_WARMUP);
		emit_finish();
		emit_samples(set, samples, n);
	}
	return PROBE_OK;
}

const struct probe_desc probe_irq_exception = {
	.name = "irq_exception",
	.what = "exception round trip (int3, ud2) through our own IDT",
	.run = irq_exception_run,
	.options = "irq_samples,irq_set_ms,irq_delay_us,irq_timeout_ms",
	.cleanup = irq_probe_cleanup,
	.unprofiled = "the probe uses the interrupt machinery itself",
};

/* Test probe `fault_irq` (not in the default list): leaves the periodic APIC timer running with
 * a handler whose context lives in this frame, waits (masked, bounded) until the timer's
 * interrupt is pending at the local APIC, then takes a #UD that abandons the probe. The suite's
 * cleanup (irq_probe_cleanup) must stop the timer, take the pending interrupt and drop the
 * handler, so the probes after it see no unexpected or stale interrupt. Waiting for the pending
 * bit makes the left-over interrupt certain, not a race with the fault's reporting. The wait is
 * bounded by irq_timeout_ms too (the larger): under TCG a loaded host can hold QEMU's timer back
 * for longer than a few periods. */
#define FAULT_IRQ_PENDING_PERIODS 100 /* bound on the wait for the pending bit, in periods */
struct fault_irq_ctx {
	volatile uint64_t hits;
};

static void fault_irq_handler(void *ctx, uint64_t entry_cycles)
{
	(void)entry_cycles;
	((struct fault_irq_ctx *)ctx)->hits++;
}

static enum probe_status fault_irq_run(struct probe_env *env)
{
	struct fault_irq_ctx ctx = { 0 };
	const char *why = irq_probe_unavailable(env);
	uint64_t period, t0, bound;

	if (why) {
		emit_skip("fault_irq", why);
		return PROBE_SKIPPED;
	}
	irq_register(IRQ_VEC_MEASURE, fault_irq_handler, &ctx);
	period = irq_periodic_start(env->irq, IRQ_VEC_MEASURE, irq_us_to_cycles(env, env->cfg->irq_delay_us));
	bound = irq_us_to_cycles(env, env->cfg->irq_timeout_ms * 1000);
	if (bound < period * FAULT_IRQ_PENDING_PERIODS)
		bound = period * FAULT_IRQ_PENDING_PERIODS;
	t0 = cycles_read();
	while (!irq_vector_pending(env->irq, IRQ_VEC_MEASURE) && cycles_read() - t0 < bound)
		cpu_relax();
	if (!irq_vector_pending(env->irq, IRQ_VEC_MEASURE))
		emit_msg(MSG_WARN, "fault_irq: the periodic timer's interrupt never became pending before the fault");
	irq_raise_undefined(); /* no hook: a real fault, this frame is abandoned */
	return PROBE_FAILED;
}

const struct probe_desc probe_fault_irq = {
	.name = "fault_irq",
	.what = "test: fault inside an interrupt probe with a timer armed (cleanup must disarm it)",
	.run = fault_irq_run,
	.options = "irq_delay_us,irq_timeout_ms",
	.expects_fault = true,
	.cleanup = irq_probe_cleanup,
	.unprofiled = "the probe uses the interrupt machinery itself",
};
