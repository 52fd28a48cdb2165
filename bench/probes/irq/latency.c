/* Probe `irq_latency`: interrupt latency per source and wait mode, and an interrupt arriving
 * while a probe has interrupts masked.
 *
 * One sample: arm one interrupt due at a known TSC value (the deadline: TSC-deadline mode where
 * the CPU has it, else a one-shot count whose expiry follows from the calibrated APIC-timer/TSC
 * ratio, an HPET comparator set from a TSC-bracketed counter read and the HPET/TSC ratio
 * calibrated against the TSC, or the TSC at a self-IPI's send), open the interrupt window and
 * wait (hlt, spin with and without `pause`, or touching an L1D/L2-sized chain), and keep
 * entry - deadline, where entry is the TSC read by the stub's first instructions. Arrivals before
 * the deadline by less than the source's stated bound (one APIC tick; the HPET arm's uncertainty)
 * are counted apart, not as failures. The periodic APIC timer's samples are entry minus the
 * period start the handler places from a TSC-bracketed current-count read; negative ones are
 * invalid and counted. Every set records its deadline uncertainty and its context (SMIs,
 * effective frequency: bench/probes/irq/context.h). Every wait is bounded by the TSC; a hlt wait also by a
 * second, independent timer (the guard). Samples are kept raw and emitted after the set;
 * statistics are the harness's. */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "arch/cycles.h"
#include "bench/probes/irq/common.h"
#include "bench/probes/irq/context.h"
#include "bench/core/summary.h"
#include "lib/emit.h"
#include "lib/sort.h"

#define MASKED_SPIN_DELAYS 20   /* the masked window lasts this many deadline distances */
#define MASKED_SAMPLES 1024     /* back-to-back TSC deltas recorded in the masked window */
#define PERIODIC_DELAYS 20      /* the periodic period in deadline distances */

struct lat_set {
	enum irq_source src;
	enum irq_wait wait;
};

static const struct lat_set one_shot_sets[] = {
	{ IRQ_SRC_ONESHOT_TIMER, IRQ_WAIT_HLT }, { IRQ_SRC_ONESHOT_TIMER, IRQ_WAIT_SPIN },
	{ IRQ_SRC_ONESHOT_TIMER, IRQ_WAIT_SPIN_NOPAUSE },
	{ IRQ_SRC_ONESHOT_TIMER, IRQ_WAIT_L1D }, { IRQ_SRC_ONESHOT_TIMER, IRQ_WAIT_L2 },
	{ IRQ_SRC_DEADLINE_TIMER, IRQ_WAIT_HLT }, { IRQ_SRC_DEADLINE_TIMER, IRQ_WAIT_SPIN },
	{ IRQ_SRC_DEADLINE_TIMER, IRQ_WAIT_SPIN_NOPAUSE },
	{ IRQ_SRC_DEADLINE_TIMER, IRQ_WAIT_L1D }, { IRQ_SRC_DEADLINE_TIMER, IRQ_WAIT_L2 },
	{ IRQ_SRC_SELF_IPI, IRQ_WAIT_SPIN }, { IRQ_SRC_SELF_IPI, IRQ_WAIT_SPIN_NOPAUSE },
	{ IRQ_SRC_SELF_IPI, IRQ_WAIT_L1D }, { IRQ_SRC_SELF_IPI, IRQ_WAIT_L2 },
	{ IRQ_SRC_PLATFORM_TIMER, IRQ_WAIT_HLT }, { IRQ_SRC_PLATFORM_TIMER, IRQ_WAIT_SPIN }, { IRQ_SRC_PLATFORM_TIMER, IRQ_WAIT_SPIN_NOPAUSE },
	{ IRQ_SRC_PLATFORM_TIMER, IRQ_WAIT_L1D }, { IRQ_SRC_PLATFORM_TIMER, IRQ_WAIT_L2 },
};

static void source_fields(struct record *r, struct probe_env *env, enum irq_source s)
{
	const struct irq_platform *p = env->irq;

	rec_str(r, "source", irq_source_name(s));
	rec_str(r, "deadline", irq_source_deadline(s));
	irq_platform_describe(p, r);
	rec_u64(r, "vector", IRQ_VEC_MEASURE);
	irq_source_describe(p, s, r);
}

/* Arm the guard that ends a hlt wait if the measured interrupt never comes; false when it could
 * not be armed (irq_source_arm's 0). */
static bool guard_arm(struct probe_env *env, enum irq_source g, uint64_t delay)
{
	return g == IRQ_NUM_SOURCES || irq_source_arm(env->irq, g, IRQ_VEC_GUARD, delay, 0) != 0;
}

/* Everything a one-shot set measured, for its record. */
struct one_shot_result {
	uint64_t n;
	bool truncated;
	struct irq_tally tally;
	uint64_t early_slack;   /* early by less than the source's stated bound (not a failure) */
	uint64_t resampled;     /* arms added for measured arms whose early_slack left no sample */
	uint64_t unarmed;       /* arms the source (or the guard) could not arm: retaken, not counted armed */
	uint64_t unc_median, unc_max;
	enum irq_source guard;
	struct irq_context ctx;
};

/* How much earlier than its deadline an interrupt may arrive without being early: one APIC tick
 * for the one-shot count (the first decrement comes up to a tick after the write), the arm's
 * stated uncertainty for the HPET (bracketed counter read plus one period); 0 elsewhere. */
static uint64_t early_bound(const struct irq_platform *p, enum irq_source s)
{
	if (s == IRQ_SRC_ONESHOT_TIMER)
		return irq_source_tick_cycles(p, s);
	if (s == IRQ_SRC_PLATFORM_TIMER)
		return irq_platform_arm_uncertainty(p);
	return 0;
}

static void one_shot_emit(struct probe_env *env, const struct lat_set *ls, const struct irq_touch *t,
			  struct one_shot_result *res, uint64_t *samples, uint64_t *arms)
{
	const struct irq_platform *p = env->irq;
	struct record *r;
	uint32_t set = probe_declare_set(env, &r, "irq_latency", res->n, 1, 0);

	source_fields(r, env, ls->src);
	rec_str(r, "mode", ls->src == IRQ_SRC_DEADLINE_TIMER ? "tsc_deadline" : ls->src == IRQ_SRC_SELF_IPI ?
		"ipi" : "oneshot");
	rec_str(r, "wait", irq_wait_name(ls->wait));
	rec_u64(r, "delay_cycles", ls->src == IRQ_SRC_SELF_IPI ? 0 : irq_us_to_cycles(env, env->cfg->irq_delay_us));
	rec_u64(r, "requested", env->cfg->irq_samples);
	rec_bool(r, "truncated_by_time", res->truncated);
	rec_u64(r, "warmup", IRQ_WARMUP);
	rec_u64(r, "resampled", res->resampled);
	rec_u64(r, "unarmed", res->unarmed);
	if (ls->wait == IRQ_WAIT_L1D || ls->wait == IRQ_WAIT_L2)
		rec_u64(r, "touch_bytes", t->bytes[ls->wait]);
	if (res->guard != IRQ_NUM_SOURCES)
		rec_str(r, "guard", irq_source_name(res->guard));
	rec_u64(r, "arm_cycles_median", res->n ? median_u64(arms, res->n) : 0);
	if (ls->src == IRQ_SRC_ONESHOT_TIMER) {
		rec_u64(r, "tick_cycles", irq_source_tick_cycles(p, ls->src));
		rec_u64(r, "early_quantised", res->early_slack);
	}
	if (ls->src == IRQ_SRC_PLATFORM_TIMER) {
		rec_u64(r, "tick_cycles", irq_source_tick_cycles(p, ls->src));
		rec_u64(r, "uncertainty_median", res->unc_median);
		rec_u64(r, "uncertainty_max", res->unc_max);
		rec_u64(r, "early_within_uncertainty", res->early_slack);
	}
	irq_tally_fields(r, &res->tally);
	irq_context_fields(env, r, &res->ctx);
	emit_finish();
	emit_samples(set, samples, res->n);
	summary_irq(irq_source_name(ls->src), irq_wait_name(ls->wait), samples, res->n); /* sorts them */
}

/* Anything still pending arrives now (counted as extra by the caller). */
static void take_stragglers(uint64_t cycles)
{
	uint64_t t0;

	irq_enable();
	t0 = cycles_read();
	while (cycles_read() - t0 < cycles)
		;
	irq_disable();
}

/* One one-shot set in progress: what its arms share and where their samples go. */
struct one_shot_run {
	struct probe_env *env;
	const struct lat_set *ls;
	const struct irq_touch *t;
	uint64_t delay, timeout;
	uint64_t *samples, *arms, *uncs;
	struct irq_hit hit;
	struct one_shot_result res;
};

/* Handlers on the measured and guard vectors, both sources prepared, counting begun. */
static void one_shot_start(struct one_shot_run *o)
{
	struct irq_platform *p = o->env->irq;

	irq_register(IRQ_VEC_MEASURE, irq_hit_handler, &o->hit);
	irq_register(IRQ_VEC_GUARD, irq_guard_handler, &o->hit);
	irq_source_prepare(p, o->ls->src, IRQ_VEC_MEASURE);
	if (o->res.guard != IRQ_NUM_SOURCES)
		irq_source_prepare(p, o->res.guard, IRQ_VEC_GUARD);
	irq_tally_begin(&o->res.tally);
	irq_context_begin(o->env, &o->res.ctx);
}

/* Arm i: the interrupted code's working set warmed, the interrupt armed (and for hlt the guard),
 * the wait, then the arrival sorted: lost, early (a failure beyond the source's bound; within it
 * no sample and, from IRQ_WARMUP on, one arm more), or from IRQ_WARMUP on a sample. False when
 * nothing could be armed (counted unarmed, nothing to wait for: the caller takes arm i again). */
static bool one_shot_arm(struct one_shot_run *o, uint64_t i)
{
	struct irq_platform *p = o->env->irq;
	const struct lat_set *ls = o->ls;
	struct one_shot_result *res = &o->res;
	uint32_t before = o->hit.hits;
	uint64_t deadline, arm, bound, cap = o->env->cfg->irq_samples;
	bool taken;

	irq_touch_lap(o->t, ls->wait); /* the interrupted code's working set, warm */
	if (ls->wait == IRQ_WAIT_HLT && !guard_arm(o->env, res->guard, o->delay + o->timeout)) {
		res->unarmed++;
		return false;
	}
	deadline = irq_source_arm(p, ls->src, IRQ_VEC_MEASURE, o->delay, &arm);
	bound = early_bound(p, ls->src); /* before the guard's arm overwrites it */
	if (!deadline) {
		if (ls->wait == IRQ_WAIT_HLT)
			irq_source_disarm(p, res->guard, IRQ_VEC_GUARD);
		res->unarmed++;
		return false;
	}
	res->tally.armed++;
	taken = irq_wait_taken(&o->hit, before, ls->wait, o->t, deadline + o->timeout);
	if (ls->wait == IRQ_WAIT_HLT)
		irq_source_disarm(p, res->guard, IRQ_VEC_GUARD);
	if (!taken) {
		irq_source_disarm(p, ls->src, IRQ_VEC_MEASURE);
		res->tally.lost++;
		return true;
	}
	res->tally.taken++;
	if (o->hit.entry < deadline) {
		/* kept out of the samples (latencies >= 0); within the bound it is the
		 * deadline's own quantisation or uncertainty, beyond it a real failure */
		if (deadline - o->hit.entry < bound) {
			res->early_slack++;
			if (i >= IRQ_WARMUP && res->resampled < cap)
				res->resampled++;
		} else
			res->tally.early++;
		return true;
	}
	if (i >= IRQ_WARMUP) {
		o->samples[res->n] = o->hit.entry - deadline;
		o->arms[res->n] = arm;
		o->uncs[res->n] = bound;
		res->n++;
	}
	return true;
}

/* Stragglers taken, sources released, handlers removed; the tally and the uncertainties settled. */
static void one_shot_stop(struct one_shot_run *o)
{
	struct irq_platform *p = o->env->irq;
	struct one_shot_result *res = &o->res;

	irq_context_end(o->env, &res->ctx);
	take_stragglers(o->delay * 2);
	irq_source_release(p, o->ls->src, IRQ_VEC_MEASURE);
	if (res->guard != IRQ_NUM_SOURCES)
		irq_source_release(p, res->guard, IRQ_VEC_GUARD);
	irq_unregister(IRQ_VEC_MEASURE);
	irq_unregister(IRQ_VEC_GUARD);
	res->tally.guards = o->hit.guards;
	res->tally.extra = o->hit.hits - res->tally.taken;
	irq_tally_end(&res->tally);
	for (uint64_t i = 0; i < res->n; i++)
		res->unc_max = o->uncs[i] > res->unc_max ? o->uncs[i] : res->unc_max;
	res->unc_median = res->n ? median_u64(o->uncs, res->n) : 0;
}

static enum probe_status one_shot_set(struct probe_env *env, const struct lat_set *ls, const struct irq_touch *t,
				      uint64_t *samples, uint64_t *arms, uint64_t *uncs)
{
	uint64_t cap = env->cfg->irq_samples, start, budget;
	struct one_shot_run o = {
		.env = env,
		.ls = ls,
		.t = t,
		.delay = irq_us_to_cycles(env, env->cfg->irq_delay_us),
		.timeout = irq_us_to_cycles(env, env->cfg->irq_timeout_ms * 1000),
		.samples = samples,
		.arms = arms,
		.uncs = uncs,
		.res = { .guard = IRQ_NUM_SOURCES },
	};
	struct one_shot_result *res = &o.res;

	if (ls->wait == IRQ_WAIT_HLT) {
		res->guard = irq_guard_for(env->irq, ls->src);
		if (res->guard == IRQ_NUM_SOURCES) {
			emit_skip("irq_latency", "hlt wait needs an independent timer to bound it; none here");
			return PROBE_SKIPPED;
		}
	}
	if ((ls->wait == IRQ_WAIT_L1D || ls->wait == IRQ_WAIT_L2) && !t->head[ls->wait]) {
		emit_skip("irq_latency", t->why[ls->wait] ? t->why[ls->wait] : "CPUID describes no such cache level to touch");
		return PROBE_SKIPPED;
	}
	one_shot_start(&o);
	start = cycles_read();
	budget = env->cfg->irq_set_ms * (env->counter_hz / 1000);
	/* An arrival early within the bound is no failure but gives no sample (latencies >= 0): the
	 * arm is retaken, at most cap times, so the set still has the samples asked for. An arm that
	 * could not be armed is taken again, at most cap times in the set (more is a failure). */
	for (uint64_t i = 0; i < cap + IRQ_WARMUP + res->resampled;) {
		if (i >= IRQ_WARMUP && cycles_read() - start > budget) {
			res->truncated = true;
			break;
		}
		if (one_shot_arm(&o, i))
			i++;
		else if (res->unarmed > cap)
			break;
	}
	one_shot_stop(&o);
	one_shot_emit(env, ls, t, res, samples, arms);
	return res->tally.lost || res->tally.early || res->tally.extra || res->tally.unexpected ||
	       res->unarmed > cap ? PROBE_FAILED : PROBE_OK;
}

struct periodic_state {
	struct irq_platform *p;
	uint64_t *samples, *uncs;
	volatile uint64_t n;
	uint64_t cap, period;
	volatile uint64_t hits;
	uint64_t prev_start;         /* the last period start seen (first: the timer's start) */
	volatile uint64_t armed;     /* periods elapsed up to the last start seen */
	volatile uint64_t negative;  /* entry before the computed period start: invalid */
};

/* Whole periods between two period starts, rounded: each gap is rounded on its own, so the
 * calibrated ratio's error does not accumulate over the set. */
static uint64_t periods_between(uint64_t a, uint64_t b, uint64_t period)
{
	return b > a && period ? (b - a + period / 2) / period : 0;
}

static void periodic_handler(void *ctx, uint64_t entry_cycles)
{
	struct periodic_state *st = ctx;
	uint64_t unc, start = irq_periodic_expiry(st->p, &unc);

	st->hits++;
	st->armed += periods_between(st->prev_start, start, st->period);
	st->prev_start = start;
	if (entry_cycles < start) {
		st->negative++; /* never stored (not as 0 either): counted as invalid */
		return;
	}
	if (st->n < st->cap) {
		st->samples[st->n] = entry_cycles - start;
		st->uncs[st->n] = unc;
		st->n++;
	}
}

static enum probe_status periodic_set(struct probe_env *env, uint64_t *samples, uint64_t *uncs)
{
	uint64_t delay = irq_us_to_cycles(env, env->cfg->irq_delay_us) * PERIODIC_DELAYS;
	uint64_t budget = env->cfg->irq_set_ms * (env->counter_hz / 1000), t0, t1, t_start, period, umax = 0;
	struct periodic_state st = { env->irq, samples, uncs, 0, env->cfg->irq_samples + IRQ_WARMUP, 0, 0, 0, 0, 0 };
	struct irq_context ctx;
	struct irq_tally tally;
	struct record *r;
	uint32_t set;
	uint64_t n;

	irq_register(IRQ_VEC_MEASURE, periodic_handler, &st);
	irq_tally_begin(&tally);
	irq_context_begin(env, &ctx);
	t_start = st.prev_start = cycles_read(); /* the count starts at the write just after this */
	period = irq_periodic_start(env->irq, IRQ_VEC_MEASURE, delay);
	if (!period) {
		irq_unregister(IRQ_VEC_MEASURE);
		emit_skip("irq_latency", "periodic period does not fit the APIC timer's count");
		return PROBE_SKIPPED;
	}
	st.period = period;
	t0 = cycles_read();
	irq_enable();
	while (st.n < st.cap && cycles_read() - t0 < budget)
		cpu_relax();
	irq_disable();
	t1 = cycles_read();
	irq_context_end(env, &ctx);
	irq_source_release(env->irq, IRQ_SRC_PERIODIC_TIMER, IRQ_VEC_MEASURE);
	irq_unregister(IRQ_VEC_MEASURE);
	irq_tally_end(&tally);
	/* armed: the periods that ended up to the last one taken; lost = armed - taken */
	tally.taken = st.hits;
	tally.armed = st.armed;
	tally.lost = st.armed > st.hits ? st.armed - st.hits : 0;
	tally.extra = st.hits > st.armed ? st.hits - st.armed : 0;
	n = st.n > IRQ_WARMUP ? st.n - IRQ_WARMUP : 0;
	for (uint64_t i = st.n - n; i < st.n; i++)
		umax = uncs[i] > umax ? uncs[i] : umax;
	set = probe_declare_set(env, &r, "irq_latency", n, 1, 0);
	source_fields(r, env, IRQ_SRC_PERIODIC_TIMER);
	rec_str(r, "mode", "periodic");
	rec_str(r, "wait", "spin");
	rec_u64(r, "period_cycles", period);
	rec_u64(r, "tick_cycles", irq_source_tick_cycles(env->irq, IRQ_SRC_PERIODIC_TIMER));
	rec_u64(r, "requested", env->cfg->irq_samples);
	rec_bool(r, "truncated_by_time", st.n < st.cap);
	rec_u64(r, "warmup", IRQ_WARMUP);
	rec_u64(r, "invalid_negative", st.negative);
	/* cross-check of armed: the whole window over the (calibrated, so drifting) period */
	rec_u64(r, "periods_elapsed", (t1 - t_start) / period);
	rec_u64(r, "uncertainty_median", n ? median_u64(uncs + (st.n - n), n) : 0);
	rec_u64(r, "uncertainty_max", umax);
	irq_tally_fields(r, &tally);
	irq_context_fields(env, r, &ctx);
	emit_finish();
	emit_samples(set, samples + (st.n - n), n);
	summary_irq(irq_source_name(IRQ_SRC_PERIODIC_TIMER), "spin", samples + (st.n - n), n);
	return tally.unexpected ? PROBE_FAILED : PROBE_OK;
}

/* An interrupt due while interrupts are masked must be neither lost nor disturb the masked code:
 * arm a one-shot, record back-to-back TSC deltas with interrupts masked for well past its
 * deadline, then open the window: it must arrive exactly once, right after the unmask. */
static enum probe_status masked_set(struct probe_env *env, uint64_t *samples)
{
	struct irq_platform *p = env->irq;
	uint64_t delay = irq_us_to_cycles(env, env->cfg->irq_delay_us);
	uint64_t window = delay * MASKED_SPIN_DELAYS, timeout = irq_us_to_cycles(env, env->cfg->irq_timeout_ms * 1000);
	uint64_t deadline, t0, prev, unmask;
	struct irq_hit hit = { 0 };
	struct irq_tally tally;
	uint32_t during, set;
	struct record *r;
	bool taken;

	irq_register(IRQ_VEC_MEASURE, irq_hit_handler, &hit);
	irq_source_prepare(p, IRQ_SRC_ONESHOT_TIMER, IRQ_VEC_MEASURE);
	irq_tally_begin(&tally);
	deadline = irq_source_arm(p, IRQ_SRC_ONESHOT_TIMER, IRQ_VEC_MEASURE, delay, 0);
	tally.armed = 1;
	t0 = prev = cycles_read();
	for (unsigned i = 0; i < MASKED_SAMPLES; i++) {
		uint64_t now = cycles_read();

		samples[i] = now - prev;
		prev = now;
	}
	while (cycles_read() - t0 < window)
		;
	during = hit.hits; /* must be 0: masked */
	unmask = cycles_read();
	taken = irq_wait_taken(&hit, during, IRQ_WAIT_SPIN, 0, unmask + timeout);
	take_stragglers(delay * 4); /* a second delivery would show up in this extra window */
	irq_source_release(p, IRQ_SRC_ONESHOT_TIMER, IRQ_VEC_MEASURE);
	irq_unregister(IRQ_VEC_MEASURE);
	irq_tally_end(&tally);
	tally.taken = hit.hits;
	tally.lost = taken ? 0 : 1;
	tally.extra = hit.hits > 1 ? hit.hits - 1 : 0;

	set = probe_declare_set(env, &r, "irq_masked", MASKED_SAMPLES, 1, 0);
	rec_str(r, "source", irq_source_name(IRQ_SRC_ONESHOT_TIMER));
	rec_str(r, "what", "masked_tsc_deltas");
	rec_u64(r, "masked_cycles", unmask - (deadline - delay));
	rec_u64(r, "delay_cycles", delay);
	rec_u64(r, "taken_masked", during);
	rec_u64(r, "taken_after_unmask", hit.hits - during);
	rec_u64(r, "after_unmask_cycles", taken && hit.entry >= unmask ? hit.entry - unmask : 0);
	rec_bool(r, "arrived_after_deadline", taken && hit.entry >= deadline);
	irq_tally_fields(r, &tally);
	emit_finish();
	emit_samples(set, samples, MASKED_SAMPLES);
	return during || !taken || tally.extra ? PROBE_FAILED : PROBE_OK;
}

static enum probe_status irq_latency_run(struct probe_env *env)
{
	const char *why = irq_probe_unavailable(env);
	uint64_t cap = env->cfg->irq_samples + IRQ_WARMUP;
	uint64_t *samples, *arms, *uncs;
	struct irq_touch touch;
	unsigned ok = 0, failed = 0;
	bool skipped[IRQ_NUM_SOURCES] = { false }; /* one skip record per source, not per wait */

	if (why) {
		emit_skip("irq_latency", why);
		return PROBE_SKIPPED;
	}
	if (!irq_probe_begin(env, "irq_latency"))
		return PROBE_FAILED;
	samples = probe_sample_buffer(env, cap < MASKED_SAMPLES ? MASKED_SAMPLES : cap);
	arms = probe_sample_buffer(env, cap);
	uncs = probe_sample_buffer(env, cap);
	if (!samples || !arms || !uncs) {
		emit_skip("irq_latency", "sample buffers do not fit in the arena (lower irq_samples)");
		return PROBE_SKIPPED;
	}
	irq_touch_prepare(env, &touch);
	for (unsigned i = 0; i < sizeof(one_shot_sets) / sizeof(one_shot_sets[0]); i++) {
		const struct lat_set *ls = &one_shot_sets[i];
		const char *no = irq_source_unavailable(env->irq, ls->src);
		enum probe_status st;

		if (no) {
			if (!skipped[ls->src]) {
				struct record *r = emit_start("skip");

				rec_str(r, "probe", "irq_latency");
				rec_str(r, "source", irq_source_name(ls->src));
				rec_str(r, "reason", no);
				emit_finish();
			}
			skipped[ls->src] = true;
			continue;
		}
		st = one_shot_set(env, ls, &touch, samples, arms, uncs);
		ok += st == PROBE_OK;
		failed += st == PROBE_FAILED;
	}
	ok += periodic_set(env, samples, uncs) == PROBE_OK;
	if (masked_set(env, samples) == PROBE_OK)
		ok++;
	else
		failed++;
	if (failed)
		emit_msg(MSG_ERROR, "irq_latency: an armed interrupt was lost, early, repeated or unexpected, or a source could not be armed");
	return failed ? PROBE_FAILED : ok ? PROBE_OK : PROBE_SKIPPED;
}

const struct probe_desc probe_irq_latency = {
	.name = "irq_latency",
	.what = "interrupt latency: APIC timer (one-shot, TSC-deadline, periodic), self-IPI, HPET; hlt/spin/L1D/L2",
	.run = irq_latency_run,
	.options = "irq_samples,irq_set_ms,irq_delay_us,irq_timeout_ms,seed",
	.cleanup = irq_probe_cleanup,
	.unprofiled = "the probe uses the interrupt machinery itself",
};
