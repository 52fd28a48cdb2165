/* Probe `irq_displace`: the CPU cost of an interrupt handler by displacement (Woodside et al.,
 * sections 2 and 3) next to its direct measurement.
 *
 * Step 1 (calibration): the fluid loop (arch_spin, 2 instructions per iteration) runs L_F
 * iterations with interrupts masked: T_F(1). Step 2 (loaded): the same L_F iterations with the
 * periodic APIC timer interrupting at a known rate: T_F(2), and the interrupts taken inside the
 * window (all of them: the window opens after the first TSC read and closes before the last).
 * The harness computes tau_F = (T_F(1) - S) / L_F and the per-interrupt cost
 * (T_F(2) - S - L_F * tau_F) / taken, with S the stated timer overhead, and the paper's error
 * terms. Direct: each handler invocation's exit - entry TSC as the entry stub reads them.
 * Handlers of known work: minimal, and touching K = 64 and 256 lines of their own buffer.
 * Calibration and loaded windows are interleaved so slow drifts affect both alike. */
#include "arch/cycles.h"
#include "bench/irq_common.h"
#include "lib/emit.h"

#define CAL_ITERS 1000000ull       /* spin iterations timed to size the window */
#define DIRECT_CAP_PER_WINDOW 4096 /* direct samples kept per window and handler */
#define WORK_BUF_LINES 256
#define LINE 64

static const unsigned work_lines[] = { 0, 64, 256 };
#define NUM_HANDLERS (sizeof(work_lines) / sizeof(work_lines[0]))

struct disp_state {
	volatile uint8_t *buf;
	unsigned lines;
	volatile uint64_t hits;
	uint64_t prev_entry;
	bool have_prev;
	uint64_t *direct;
	volatile uint64_t ndirect;
	uint64_t cap;
};

/* Records the previous invocation's cost (its exit stamp is known only now), then does the work. */
static void disp_handler(void *ctx, uint64_t entry_tsc)
{
	struct disp_state *st = ctx;

	if (st->have_prev && st->ndirect < st->cap)
		st->direct[st->ndirect++] = irq_last_exit_tsc() - st->prev_entry;
	st->prev_entry = entry_tsc;
	st->have_prev = true;
	st->hits++;
	irq_work_touch(st->buf, st->lines, LINE);
}

/* One fluid window; interrupts open only strictly inside the timed region when `open`. */
static uint64_t fluid(uint64_t iters, bool open)
{
	uint64_t t0 = tsc_begin();

	if (open)
		irq_enable();
	arch_spin(iters);
	if (open)
		irq_disable();
	return tsc_end() - t0;
}

static void emit_set(struct probe_env *env, const char *what, int handler, const char *unit, uint64_t iters,
		     uint64_t overhead, uint64_t period, uint64_t *v, uint64_t n, const struct irq_tally *t)
{
	struct record *r;
	uint32_t set = probe_declare_set_unit(env, &r, "irq_displace", unit, n, iters, overhead);

	rec_str(r, "what", what);
	if (handler >= 0) {
		rec_str(r, "handler", work_lines[handler] ? (work_lines[handler] == 64 ? "k64" : "k256") : "min");
		rec_u64(r, "work_lines", work_lines[handler]);
	}
	rec_str(r, "source", irq_source_name(IRQ_SRC_APIC_PERIODIC));
	rec_u64(r, "period_cycles", period);
	rec_str(r, "fluid", "dec_jnz");
	rec_u64(r, "insns_per_iter", 2);
	if (t)
		irq_tally_fields(r, t);
	emit_finish();
	emit_samples(set, v, n);
}

static enum probe_status irq_displace_run(struct probe_env *env)
{
	const char *why = irq_probe_unavailable(env);
	uint64_t n = env->cfg->irq_disp_samples, lf, period, want, c1;
	uint64_t *calib, *loaded[NUM_HANDLERS], *count[NUM_HANDLERS], *direct[NUM_HANDLERS];
	struct disp_state st[NUM_HANDLERS];
	struct irq_tally tally[NUM_HANDLERS];
	volatile uint8_t *buf;
	bool bad = false;

	if (why) {
		emit_skip("irq_displace", why);
		return PROBE_SKIPPED;
	}
	if (!irq_probe_begin(env, "irq_displace"))
		return PROBE_FAILED;
	calib = probe_sample_buffer(env, n);
	buf = arena_alloc(env->arena, WORK_BUF_LINES * LINE, 4096);
	for (unsigned h = 0; h < NUM_HANDLERS; h++) {
		loaded[h] = probe_sample_buffer(env, n);
		count[h] = probe_sample_buffer(env, n);
		direct[h] = probe_sample_buffer(env, n * DIRECT_CAP_PER_WINDOW);
		if (!loaded[h] || !count[h] || !direct[h])
			calib = 0;
		st[h] = (struct disp_state){ buf, work_lines[h], 0, 0, false, direct[h], 0, n * DIRECT_CAP_PER_WINDOW };
	}
	if (!calib || !buf) {
		emit_skip("irq_displace", "buffers do not fit in the arena (lower irq_disp_samples)");
		return PROBE_SKIPPED;
	}
	/* Window length: L_F iterations lasting irq_disp_ms. */
	(void)fluid(CAL_ITERS, false);
	c1 = fluid(CAL_ITERS, false);
	want = env->cfg->irq_disp_ms * (env->tsc_hz / 1000);
	lf = c1 ? want * CAL_ITERS / c1 : CAL_ITERS; /* < 2^64: want <= 10 s of a 5 GHz TSC */
	if (lf < 1000)
		lf = 1000;
	period = irq_us_to_cycles(env, env->cfg->irq_disp_period_us);
	(void)fluid(lf, false); /* warm-up */
	for (unsigned h = 0; h < NUM_HANDLERS; h++)
		irq_tally_begin(&tally[h]);
	for (uint64_t s = 0; s < n; s++) {
		calib[s] = fluid(lf, false);
		for (unsigned h = 0; h < NUM_HANDLERS; h++) {
			uint64_t before = st[h].hits, p;

			irq_register(IRQ_VEC_MEASURE, disp_handler, &st[h]);
			st[h].have_prev = false;
			p = irq_periodic_start(env->irq, IRQ_VEC_MEASURE, period);
			loaded[h][s] = fluid(lf, true);
			irq_source_release(env->irq, IRQ_SRC_APIC_PERIODIC, IRQ_VEC_MEASURE);
			/* the window's last invocation: its exit stamp is the latest one */
			if (st[h].have_prev && st[h].ndirect < st[h].cap)
				st[h].direct[st[h].ndirect++] = irq_last_exit_tsc() - st[h].prev_entry;
			count[h][s] = st[h].hits - before;
			tally[h].armed += p ? (loaded[h][s] + p - 1) / p : 0; /* periods in the window */
			irq_unregister(IRQ_VEC_MEASURE);
		}
	}
	emit_set(env, "calib", -1, "cycles", lf, env->timer_overhead, period, calib, n, 0);
	for (unsigned h = 0; h < NUM_HANDLERS; h++) {
		irq_tally_end(&tally[h]);
		tally[h].taken = st[h].hits;
		emit_set(env, "loaded", (int)h, "cycles", lf, env->timer_overhead, period, loaded[h], n, &tally[h]);
		emit_set(env, "count", (int)h, "count", 1, 0, period, count[h], n, 0);
		emit_set(env, "direct", (int)h, "cycles", 1, 0, period, direct[h], st[h].ndirect, 0);
		bad |= tally[h].unexpected != 0 || st[h].hits == 0;
	}
	if (bad)
		emit_msg(MSG_ERROR, "irq_displace: no interrupt taken in a loaded window, or an unexpected vector");
	return bad ? PROBE_FAILED : PROBE_OK;
}

const struct probe_desc probe_irq_displace = {
	.name = "irq_displace",
	.what = "handler cost by displacement of a fluid loop (Woodside) and directly (entry/exit TSC)",
	.run = irq_displace_run,
	.cleanup = irq_probe_cleanup,
};
