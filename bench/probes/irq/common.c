/* Shared parts of the interrupt probes (see bench/probes/irq/common.h). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "bench/probes/irq/common.h"

#include "arch/cycles.h"
#include "arch/membw.h"
#include "arch/traps.h"
#include "bench/probes/mem/chain.h"
#include "lib/emit.h"
#include "lib/fmt.h"

static const char *const wait_names[IRQ_NUM_WAITS] = { "hlt", "spin", "l1d", "l2", "spin_nopause" };

const char *irq_wait_name(enum irq_wait w)
{
	return w < IRQ_NUM_WAITS ? wait_names[w] : "unknown";
}

static const unsigned probe_vectors[] = { IRQ_VEC_MEASURE, IRQ_VEC_GUARD, IRQ_VEC_IPI };
#define NUM_PROBE_VECTORS (sizeof(probe_vectors) / sizeof(probe_vectors[0]))

static void drain_handler(void *ctx, uint64_t entry_cycles)
{
	(void)entry_cycles;
	(*(volatile uint64_t *)ctx)++;
}

bool irq_drain(struct irq_platform *p, uint64_t counter_hz, struct irq_drain_stats *st)
{
	volatile uint64_t taken = 0;
	uint64_t t0, bound = IRQ_DRAIN_US * (counter_hz / 1000000ull);

	*st = (struct irq_drain_stats){ 0 };
	irq_disable();
	st->in_service = irq_platform_eoi_in_service(p);
	for (unsigned i = 0; i < NUM_PROBE_VECTORS; i++)
		irq_register(probe_vectors[i], drain_handler, (void *)&taken);
	t0 = cycles_read();
	/* Any other vector pending is taken too: the dispatcher counts it as unexpected and EOIs it. */
	while (irq_platform_stale(p, false) && cycles_read() - t0 < bound) {
		irq_enable();
		cpu_relax();
		irq_disable();
	}
	for (unsigned i = 0; i < NUM_PROBE_VECTORS; i++)
		irq_unregister(probe_vectors[i]);
	st->delivered = taken;
	st->left = irq_platform_stale(p, false) + irq_platform_stale(p, true);
	return st->left == 0;
}

void irq_probe_cleanup(struct probe_env *env)
{
	irq_disable();
	if (env->irq && irq_platform_ready(env->irq, 0)) {
		struct irq_drain_stats st;
		struct record *r;
		bool ok;

		irq_source_release(env->irq, IRQ_SRC_ONESHOT_TIMER, IRQ_VEC_MEASURE);
		if (!irq_source_unavailable(env->irq, IRQ_SRC_DEADLINE_TIMER))
			irq_source_release(env->irq, IRQ_SRC_DEADLINE_TIMER, IRQ_VEC_MEASURE);
		if (!irq_source_unavailable(env->irq, IRQ_SRC_PLATFORM_TIMER))
			irq_source_release(env->irq, IRQ_SRC_PLATFORM_TIMER, IRQ_VEC_MEASURE);
		ok = irq_drain(env->irq, env->counter_hz, &st);
		r = emit_start("check");
		rec_str(r, "name", "irq_cleanup");
		rec_str(r, "probe", env->current ? env->current : "?");
		rec_u64(r, "expected", 0);
		rec_u64(r, "measured", st.left);
		rec_u64(r, "in_service", st.in_service);
		rec_u64(r, "delivered", st.delivered);
		rec_u64(r, "left", st.left);
		rec_str(r, "status", ok ? "pass" : "fail");
		emit_finish();
		if (!ok)
			emit_msg(MSG_ERROR, "interrupt cleanup: a vector stayed pending or in service after the drain");
	}
	for (unsigned i = 0; i < NUM_PROBE_VECTORS; i++)
		irq_unregister(probe_vectors[i]);
	irq_set_exception_hook(IRQ_EXC_BREAKPOINT, IRQ_HOOK_NONE);
	irq_set_exception_hook(IRQ_EXC_UNDEFINED, IRQ_HOOK_NONE);
}

const char *irq_probe_unavailable(const struct probe_env *env)
{
	const char *why = 0;

	if (!irq_available())
		return "no interrupt entry of ours here (hosted: user space cannot take them; EL2: no vectors)";
	if (!env->irq)
		return "interrupt sources not set up";
	if (!irq_platform_ready(env->irq, &why))
		return why ? why : "interrupt sources unusable";
	if (!env->counter_hz)
		return "TSC frequency unknown";
	return 0;
}

bool irq_probe_begin(struct probe_env *env, const char *probe)
{
	bool quiet = irq_platform_quiet(env->irq);

	for (unsigned i = 0; i < NUM_PROBE_VECTORS; i++)
		quiet = quiet && !irq_registered(probe_vectors[i]);
	if (!quiet) {
		char text[160];
		struct sbuf sb;

		sb_init(&sb, text, sizeof(text));
		sb_puts(&sb, probe);
		sb_puts(&sb, ": an interrupt source or handler was left armed, or a vector pending or in service,"
			     " before this probe");
		emit_msg(MSG_ERROR, text);
	}
	return quiet;
}

uint64_t irq_us_to_cycles(const struct probe_env *env, uint64_t us)
{
	return us * (env->counter_hz / 1000000ull);
}

static const struct cache_desc *find_cache(const struct cpu_info *ci, unsigned level)
{
	for (unsigned i = 0; i < ci->num_caches; i++) {
		const struct cache_desc *c = &ci->caches[i];

		if (c->level != level || c->type == CACHE_INST)
			continue;
		if (c->geometry_unknown || (c->line >= 8 && c->size >= c->line))
			return c;
	}
	return 0;
}

void irq_touch_prepare(struct probe_env *env, struct irq_touch *t)
{
	struct rand_state rng;

	*t = (struct irq_touch){ { 0 }, { 0 }, { 0 } };
	rand_seed(&rng, env->cfg->seed);
	for (unsigned level = 1; level <= 2; level++) {
		const struct cache_desc *c = find_cache(env->cpu, level);
		enum irq_wait w = level == 1 ? IRQ_WAIT_L1D : IRQ_WAIT_L2;
		void *buf;

		if (!c)
			continue;
		if (c->geometry_unknown) { /* no size to touch: irq_latency skips that wait, saying why */
			t->why[w] = c->geometry_unknown;
			continue;
		}
		buf = arena_alloc(env->arena, c->size, 4096);
		if (!buf)
			continue;
		t->head[w] = chain_build_random(buf, (size_t)(c->size / c->line), c->line, &rng);
		t->bytes[w] = c->size;
	}
}

void irq_touch_lap(const struct irq_touch *t, enum irq_wait w)
{
	if (w < IRQ_NUM_WAITS && t->head[w])
		(void)arch_chase(t->head[w], t->bytes[w] / 64 + 1);
}

void irq_hit_handler(void *ctx, uint64_t entry_cycles)
{
	struct irq_hit *h = ctx;

	h->entry = entry_cycles;
	h->hits++;
}

void irq_guard_handler(void *ctx, uint64_t entry_cycles)
{
	struct irq_hit *h = ctx;

	(void)entry_cycles;
	h->guards++;
}

bool irq_wait_taken(struct irq_hit *h, uint32_t hits_before, enum irq_wait w, const struct irq_touch *t,
		    uint64_t limit)
{
	uint32_t guards = h->guards;
	void *p = t && w < IRQ_NUM_WAITS ? t->head[w] : 0;

	if (w == IRQ_WAIT_HLT) {
		/* Each hlt ends with an interrupt: the measured one, or the guard armed by the caller. */
		while (h->hits == hits_before && h->guards == guards && cycles_read() < limit)
			irq_enable_halt_disable();
		return h->hits != hits_before;
	}
	irq_enable();
	if (p) {
		while (h->hits == hits_before && cycles_read() < limit)
			p = arch_chase(p, IRQ_CHASE_CHUNK);
	} else if (w == IRQ_WAIT_SPIN_NOPAUSE) {
		while (h->hits == hits_before && cycles_read() < limit)
			;
	} else {
		while (h->hits == hits_before && cycles_read() < limit)
			cpu_relax();
	}
	irq_disable();
	return h->hits != hits_before;
}

enum irq_source irq_guard_for(const struct irq_platform *p, enum irq_source s)
{
	if (s == IRQ_SRC_PLATFORM_TIMER)
		return IRQ_SRC_ONESHOT_TIMER;
	if ((s == IRQ_SRC_ONESHOT_TIMER || s == IRQ_SRC_DEADLINE_TIMER) && !irq_source_unavailable(p, IRQ_SRC_PLATFORM_TIMER))
		return IRQ_SRC_PLATFORM_TIMER;
	if (s == IRQ_SRC_ONESHOT_TIMER && irq_platform_oneshot_per_vector(p))
		return IRQ_SRC_ONESHOT_TIMER; /* another timer: the guard vector's own */
	return IRQ_NUM_SOURCES;
}

void irq_work_touch(volatile uint8_t *buf, unsigned lines, unsigned line)
{
	for (unsigned i = 0; i < lines; i++)
		buf[(uint64_t)i * line]++;
}

void irq_tally_begin(struct irq_tally *t)
{
	*t = (struct irq_tally){ 0 };
	irq_get_counts(&t->before);
}

void irq_tally_end(struct irq_tally *t)
{
	struct irq_counts now;

	irq_get_counts(&now);
	t->spurious = now.spurious - t->before.spurious;
	t->unexpected = now.unexpected - t->before.unexpected;
}

void irq_tally_fields(struct record *r, const struct irq_tally *t)
{
	rec_u64(r, "armed", t->armed);
	rec_u64(r, "taken", t->taken);
	rec_u64(r, "lost", t->lost);
	rec_u64(r, "early", t->early);
	rec_u64(r, "extra", t->extra);
	rec_u64(r, "spurious", t->spurious);
	rec_u64(r, "unexpected", t->unexpected);
	rec_u64(r, "guard_wakeups", t->guards);
}
