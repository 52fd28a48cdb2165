/* Probe `irq_displace`: the CPU cost of an interrupt by displacement (Woodside et al., sections
 * 2 and 3) next to its direct measurement, for handlers of known work, so that the method can be
 * falsified: displacement - direct is the delivery cost, which must not depend on the work.
 *
 * Handlers: one per value of irq_disp_work (cycles); each spins arch_spin for the iterations that
 * many cycles take at arch_spin's rate measured first (deterministic in instructions, so exact
 * under -icount). The work's cycles are the work clock's (arch/work_clock.h): the TSC on x86_64;
 * on AArch64 the PMU cycle counter where it counts (else the generic timer's ticks), while every
 * result stays in the build's clock (CNTVCT ticks there) and the records say both units. The periodic timer's period is irq_disp_period_us plus PERIOD_WORK_FACTOR times
 * the largest work (the handler fits with room to spare), the same for every handler; a window
 * lasts irq_disp_ms, or MIN_IRQS_PER_WINDOW periods if that is longer.
 *
 * Per handler and window: a calibration window (the fluid loop, arch_spin, 2 instructions per
 * iteration, L_F iterations, interrupts masked: T_F(1)) paired with a loaded window (the same L_F
 * iterations with the periodic timer interrupting: T_F(2)); the order alternates (ABBA) so a
 * linear drift affects both alike. Both windows run the same instructions (a gate call, the spin,
 * a mask call), so the start/stop cost S cancels in the pair. Direct: each invocation's
 * exit - entry TSC as the entry stub (hosted: the signal handler) reads them; their sum per
 * window too.
 *
 * The fluid loop reads the TSC every FLUID_CHUNK iterations (branch-free bookkeeping): a chunk
 * over GAP_FACTOR x nominal without our interrupt is background and is taken out of its window;
 * the chunk an interrupt landed in gives that interrupt's own displacement (its excess over the
 * nominal chunk), paired with its direct cost. The checks use these per-interrupt pairs (time
 * the hypervisor takes right at an interrupt then stays in that interrupt's value instead of
 * spreading over a window). The integer statistics are in bench/stats/displace.c. */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "arch/cpu_info.h"
#include "arch/cycles.h"
#include "arch/work_clock.h"
#include "bench/stats/displace.h"
#include "bench/probes/irq/common.h"
#include "lib/emit.h"
#include "lib/fmt.h"
#include "lib/sort.h"

#define DIRECT_CAP 65536             /* raw direct samples kept per handler */
#define PERIOD_WORK_FACTOR 4         /* period >= 4x the largest work + irq_disp_period_us */
#define MIN_IRQS_PER_WINDOW 8        /* a window spans at least this many periods */
#define MIN_FLUID_CHUNKS 16
#define JITTER_SAMPLES 256           /* empty timed regions: the clock-resolution term */
#define JITTER_LOW_PERMILLE 50       /* resolution = p95 - p5 of them (at least one tick) */
#define JITTER_HIGH_PERMILLE 950
#define FLUID_CHUNK 2000ull         /* iterations between TSC reads in the fluid loop */
#define NOMINAL_CHUNKS 256          /* timed chunks giving the nominal chunk */
#define SPIN_CAL_ITERS 20000ull     /* arch_spin timed alone: the handlers' cycles -> iterations */
#define GAP_FACTOR 2                /* a chunk over 2x nominal without our interrupt: background */
#define LOW_QUANTILE 250            /* permille: the delivery_constant statistic */
#define SAMPLE_SIGN_BIT (1ull << 63)
#define AGREE_MIN_WORK 1000000ull    /* handlers this large: displacement and direct within 5% */
#define AGREE_PERMILLE 50

/* Background time inside a window: the chunks of the fluid loop that took longer than the
 * threshold without an interrupt of ours in them (the kernel's or the hypervisor's time, an SMI:
 * the paper's e_daemons, observed), their excess over the nominal chunk summed. */
struct fluid_gaps {
	uint64_t cycles, count;
};

/* Where the fluid loop stores each interrupt chunk's excess over the nominal chunk (the
 * displacement of that one interrupt); k advances only on an interrupt chunk, up to cap. */
struct fluid_excess {
	uint64_t *v;
	uint64_t k, cap;
};

struct disp_state {
	uint64_t work_iters;
	volatile uint64_t hits;
	uint64_t prev_entry;
	bool have_prev;
	uint64_t direct_sum; /* this window's */
	uint64_t *direct;
	uint64_t ndirect, cap;
	struct fluid_excess x; /* each interrupt's chunk excess, in the order of direct[] */
};

static void record_direct(struct disp_state *st, uint64_t d)
{
	st->direct_sum += d;
	if (st->ndirect < st->cap)
		st->direct[st->ndirect++] = d;
}

/* Records the previous invocation's cost (its exit stamp is known only now), then does the work. */
static void disp_handler(void *ctx, uint64_t entry_cycles)
{
	struct disp_state *st = ctx;

	if (st->have_prev)
		record_direct(st, irq_last_exit_cycles() - st->prev_entry);
	st->prev_entry = entry_cycles;
	st->have_prev = true;
	st->hits++;
	arch_spin(st->work_iters);
}

/* One fluid window of `chunks` x FLUID_CHUNK iterations, the TSC read after every chunk. `gate` is
 * irq_enable (loaded) or irq_disable (calibration): the same instructions either way, and the
 * gap accounting is branch-free, so under -icount the two windows differ only by what
 * interrupts them. `hits` changes when one of our interrupts was taken (calibration: a constant). */
static __attribute__((noinline)) uint64_t fluid(uint64_t chunks, void (*gate)(void), const volatile uint64_t *hits,
						uint64_t nominal, struct fluid_gaps *g, struct fluid_excess *x)
{
	uint64_t t0 = cycles_begin(), prev = t0, seen = *hits, gap = 0, count = 0, thr = GAP_FACTOR * nominal;
	uint64_t *xv = x->v, k = x->k, cap = x->cap;

	gate();
	for (uint64_t c = 0; c < chunks; c++) {
		uint64_t now, d, h, quiet_long, ours;

		arch_spin(FLUID_CHUNK);
		now = cycles_read();
		h = *hits;
		d = now - prev;
		ours = (uint64_t)(h != seen);
		quiet_long = (uint64_t)(d > thr) & (ours ^ 1);
		gap += quiet_long * (d - nominal);
		count += quiet_long;
		xv[k] = d - nominal; /* kept only if the chunk had our interrupt (v has cap + 1 slots) */
		k += ours & (uint64_t)(k < cap);
		if (__builtin_expect(h - seen > 1, 0)) {
			/* several in one chunk (a periodic POSIX timer catching up after the thread did
			 * not run): their shares of the excess are unknown, so none is measured */
			xv[k - 1] = DISP_UNMEASURED;
			for (uint64_t more = h - seen - 1; more && k < cap; more--)
				xv[k++] = DISP_UNMEASURED;
		}
		seen = h;
		prev = now;
	}
	irq_disable();
	/* An interrupt taken after the last chunk (while masking) has no chunk: its slot is marked
	 * unmeasured so the excesses stay paired with the direct costs, interrupt by interrupt. */
	for (uint64_t h = *hits; seen != h && k < cap; seen++)
		xv[k++] = DISP_UNMEASURED;
	g->cycles = gap;
	g->count = count;
	x->k = k;
	return cycles_end() - t0;
}

/* The handlers' spin rate: cycles of arch_spin(SPIN_CAL_ITERS) alone (no TSC reads between
 * chunks), the median of NOMINAL_CHUNKS timings (v gets them). */
static uint64_t spin_rate(uint64_t *v)
{
	for (unsigned i = 0; i < NOMINAL_CHUNKS; i++) {
		uint64_t t0 = cycles_begin();

		arch_spin(SPIN_CAL_ITERS);
		v[i] = cycles_end() - t0;
	}
	return median_u64(v, NOMINAL_CHUNKS);
}

/* The nominal chunk: the median of NOMINAL_CHUNKS timed chunks. */
static uint64_t nominal_chunk(uint64_t *v)
{
	for (unsigned i = 0; i < NOMINAL_CHUNKS; i++) {
		uint64_t t0 = cycles_read();

		arch_spin(FLUID_CHUNK);
		v[i] = cycles_read() - t0;
	}
	return median_u64(v, NOMINAL_CHUNKS);
}

/* The clock-resolution term: the spread of empty timed regions (p5..p95), at least 1 cycle. */
static uint64_t clock_resolution(uint64_t *v, uint64_t *lo, uint64_t *hi)
{
	for (unsigned i = 0; i < JITTER_SAMPLES; i++) {
		uint64_t t0 = cycles_begin();

		v[i] = cycles_end() - t0;
	}
	sort_u64(v, JITTER_SAMPLES);
	*lo = v[JITTER_SAMPLES * JITTER_LOW_PERMILLE / 1000];
	*hi = v[JITTER_SAMPLES * JITTER_HIGH_PERMILLE / 1000];
	return *hi > *lo ? *hi - *lo : 1;
}

struct disp_run {
	struct probe_env *env;
	uint64_t lf, period, window, res, res_lo, res_hi, c1; /* c1: the nominal chunk, cycles */
	uint64_t chunks;                                      /* per window: lf / FLUID_CHUNK */
	uint64_t gaps_calib, gaps_loaded;                     /* background gaps, one handler's windows */
	uint64_t spin;     /* cycles of arch_spin(SPIN_CAL_ITERS): the handlers' work rate */
	unsigned handlers; /* the delivery_q25 intervals are simultaneous over this many */
	bool smi_ok;
	struct work_clock wc; /* the unit of irq_disp_work (arch/work_clock.h) */
};

/* Where the work clock is not the build's clock (AArch64): the units of work and results, the
 * spin rate in the work clock, the work in the build's clock. Nothing on x86_64 (one clock). */
static void work_fields(struct record *r, const struct disp_run *run, uint64_t work)
{
	if (!WORK_CLOCK_SEPARATE || !run->wc.work_unit)
		return;
	rec_str(r, "work_unit", run->wc.work_unit);
	rec_str(r, "time_unit", run->wc.time_unit);
	rec_u64(r, "spin_cal_work", run->wc.spin);
	rec_u64(r, "work_ticks", work_clock_to_ticks(&run->wc, work, run->spin));
	if (run->wc.why)
		rec_str(r, "work_clock", run->wc.why);
}

static void common_fields(struct record *r, const struct disp_run *run, uint64_t work, uint64_t iters)
{
	rec_u64(r, "work_cycles", work);
	rec_u64(r, "work_iters", iters);
	work_fields(r, run, work);
	rec_str(r, "source", irq_source_name(IRQ_SRC_PERIODIC_TIMER));
	rec_u64(r, "period_cycles", run->period);
	rec_u64(r, "window_cycles", run->window);
	rec_str(r, "fluid", "dec_jnz");
	rec_u64(r, "insns_per_iter", 2);
	rec_u64(r, "spin_cal_iters", SPIN_CAL_ITERS);
	rec_u64(r, "spin_cal_cycles", run->spin);
	rec_u64(r, "chunk_iters", FLUID_CHUNK);
	rec_u64(r, "chunk_cycles", run->c1);
	rec_u64(r, "gap_threshold_cycles", GAP_FACTOR * run->c1);
	rec_u64(r, "gaps_calib", run->gaps_calib);
	rec_u64(r, "gaps_loaded", run->gaps_loaded);
	rec_u64(r, "clock_res_cycles", run->res);
	rec_u64(r, "timer_p5", run->res_lo);
	rec_u64(r, "timer_p95", run->res_hi);
	if (!run->smi_ok)
		rec_str(r, "smi", run->env->cpu->is_intel ? "unreadable" : "unavailable_not_intel");
}

static void handler_name(char *buf, unsigned cap, uint64_t work)
{
	struct sbuf sb;

	sb_init(&sb, buf, cap);
	sb_putc(&sb, 'w');
	sb_u64(&sb, work);
}

static const struct irq_tally no_handler;
#define NO_HANDLER (&no_handler) /* emit_set: a set of the probe, not of one handler */

static EMIT_COLD void emit_set(const struct disp_run *run, const char *what, uint64_t work, uint64_t iters,
		     const char *unit, uint64_t set_iters, uint64_t overhead, uint64_t *v, uint64_t n,
		     const struct irq_tally *t)
{
	struct record *r;
	char name[24];
	uint32_t set = probe_declare_set_unit(run->env, &r, "irq_displace", unit, n, set_iters, overhead);

	rec_str(r, "what", what);
	if (t != NO_HANDLER) {
		handler_name(name, sizeof(name), work);
		rec_str(r, "handler", name);
		common_fields(r, run, work, iters);
	} else {
		rec_str(r, "source", irq_source_name(IRQ_SRC_PERIODIC_TIMER));
		rec_u64(r, "clock_res_cycles", run->res);
		rec_u64(r, "timer_p5", run->res_lo);
		rec_u64(r, "timer_p95", run->res_hi);
	}
	if (t && t != NO_HANDLER)
		irq_tally_fields(r, t);
	emit_finish();
	emit_samples(set, v, n);
}

/* The per-interrupt excesses as samples (after the checks used them): an unmeasured one, or one
 * below zero, is written as 0 and flagged 0 in the `irq_measured` set beside it (sample sets
 * hold no values of 2^63 and above: the harness reads those as wrapped deltas). */
static void emit_excess(const struct disp_run *run, uint64_t work, uint64_t iters, struct fluid_excess *x,
			uint64_t *flags)
{
	for (uint64_t i = 0; i < x->k; i++) {
		flags[i] = x->v[i] < SAMPLE_SIGN_BIT;
		x->v[i] = flags[i] ? x->v[i] : 0;
	}
	emit_set(run, "irq_excess", work, iters, "cycles", 1, 0, x->v, x->k, 0);
	emit_set(run, "irq_measured", work, iters, "count", 1, 0, flags, x->k, 0);
}

static void rec_milli(struct record *r, const char *key, int64_t v)
{
	char buf[32];
	struct sbuf sb;

	sb_init(&sb, buf, sizeof(buf));
	if (v < 0)
		sb_putc(&sb, '-');
	sb_fixed(&sb, v < 0 ? (uint64_t)-v : (uint64_t)v, 3);
	rec_str(r, key, buf);
}

static EMIT_COLD void est_fields(struct record *r, const char *prefix, const struct disp_est *e)
{
	char key[40];
	struct sbuf sb;
	static const char *const sfx[] = { "", "_ci_low", "_ci_high" };
	const int64_t v[] = { e->median, e->lo, e->hi };

	for (unsigned i = 0; i < 3; i++) {
		sb_init(&sb, key, sizeof(key));
		sb_puts(&sb, prefix);
		sb_puts(&sb, sfx[i]);
		rec_milli(r, key, v[i]);
	}
}

/* The probe's own buffers: the calibrations' scratch (then the timer jitter samples), one
 * handler's windows at a time, and the statistics' scratch (the windowed quantile's values,
 * window draws and resampled estimates among them). */
struct disp_buffers {
	uint64_t *jit;
	struct disp_window *win;
	int64_t *scratch;
	struct disp_wval *wval;
	uint32_t *mult;
	int64_t *boot;
};

/* One handler's estimates and its displace_vs_direct check. Two displacement estimates: per
 * window (Woodside's: each loaded window against its own calibration window, medians over
 * windows) and per interrupt (the fluid chunk each interrupt landed in: medians over
 * interrupts, each paired with its own direct cost). The check uses the per-interrupt paired
 * delivery: handlers of at least AGREE_MIN_WORK cycles must have |delivery| within
 * AGREE_PERMILLE of their direct cost (displacement and direct agree within 5%); smaller ones
 * (the delivery is then a visible share) must not have a displacement below the direct cost
 * (delivery CI reaching >= 0). *low gets the delivery's lower quartile (delivery_constant). */
static bool check_handler(const struct disp_run *run, uint64_t work, const struct disp_window *w, unsigned n,
			  const struct disp_state *st, const struct disp_buffers *b, struct disp_est *low)
{
	int64_t *scratch = b->scratch;
	struct disp_est wdisp, wdirect, wdelivery, disp, direct, med, *delivery = &med;
	unsigned pairs = (unsigned)(st->x.k < st->ndirect ? st->x.k : st->ndirect);
	bool big = work >= AGREE_MIN_WORK, paired = st->x.k == st->ndirect, ok;
	struct record *r;

	disp_estimate(scratch, disp_window_values(w, n, DISP_DISPLACEMENT, scratch), &wdisp);
	disp_estimate(scratch, disp_window_values(w, n, DISP_DIRECT, scratch), &wdirect);
	disp_estimate(scratch, disp_window_values(w, n, DISP_DELIVERY, scratch), &wdelivery);
	int64_t off = disp_chunk_offset(w, n, run->lf / FLUID_CHUNK, run->c1);

	disp_estimate(scratch, disp_irq_values(st->x.v, st->direct, pairs, DISP_DISPLACEMENT, off, scratch), &disp);
	disp_estimate(scratch, disp_irq_values(st->x.v, st->direct, pairs, DISP_DIRECT, off, scratch), &direct);
	disp_estimate(scratch, disp_irq_values(st->x.v, st->direct, pairs, DISP_DELIVERY, off, scratch), delivery);
	disp_estimate_q_windows(b->wval,
				disp_irq_values_windows(st->x.v, st->direct, pairs, w, n, DISP_DELIVERY, off, b->wval), n,
				LOW_QUANTILE, run->handlers, run->env->cfg->seed ^ work, b->mult, b->boot, low);
	ok = paired && delivery->n >= DISP_CI_MIN_WINDOWS &&
	     (big ? disp_within_permille(direct.median + delivery->median, direct.median, AGREE_PERMILLE)
		  : delivery->hi >= 0);
	r = emit_start("check");
	rec_str(r, "name", "displace_vs_direct");
	rec_str(r, "probe", "irq_displace");
	rec_u64(r, "work_cycles", work);
	work_fields(r, run, work);
	rec_str(r, "criterion", big ? "within_5_percent" : "displacement_not_below_direct");
	rec_str(r, "statistic", "median_paired_per_interrupt"); /* its CI: order statistics (protocol.md) */
	if (big)
		rec_milli(r, "expected", direct.median);
	else
		rec_str(r, "expected", "delivery_ci_high>=0");
	rec_milli(r, "measured", direct.median + delivery->median);
	est_fields(r, "displacement", &disp);
	est_fields(r, "direct", &direct);
	est_fields(r, "delivery", delivery);
	est_fields(r, "delivery_q25", low);
	rec_str(r, "delivery_q25_ci", "window_bootstrap_simultaneous_95");
	rec_milli(r, "chunk_offset", off);
	rec_u64(r, "interrupts", pairs);
	rec_u64(r, "unmeasured", pairs - delivery->n); /* taken after the last chunk, or several in one */
	rec_bool(r, "paired", paired);
	est_fields(r, "win_displacement", &wdisp);
	est_fields(r, "win_direct", &wdirect);
	est_fields(r, "win_delivery", &wdelivery);
	rec_u64(r, "windows", wdisp.n);
	rec_bool(r, "ci95", delivery->ci95);
	rec_u64(r, "clock_res_cycles", run->res);
	rec_str(r, "status", ok ? "pass" : "fail");
	emit_finish();
	return ok;
}

/* delivery_constant: one value lies inside every handler's delivery CI (simultaneous 95%
 * intervals, Bonferroni over the handlers, so the test's false-alarm rate stays 5%; from
 * resampling whole windows, since a window's interrupts share its moment's background and are no
 * independent samples; of the lower quartile:
 * interference only ever adds to a delivery, so the median moves with the share of disturbed
 * interrupts, which is the other load's doing, not the handler's). */
static bool check_constant(const struct disp_est *e, const struct config_u64_list *work)
{
	int64_t max_lo, min_hi, lo_med = e[0].median, hi_med = e[0].median;
	bool ok = disp_common_value(e, work->n, &max_lo, &min_hi);
	struct record *r = emit_start("check");
	bool ci95 = true;

	for (unsigned h = 1; h < work->n; h++) {
		lo_med = e[h].median < lo_med ? e[h].median : lo_med;
		hi_med = e[h].median > hi_med ? e[h].median : hi_med;
	}
	for (unsigned h = 0; h < work->n; h++)
		ci95 = ci95 && e[h].ci95;
	rec_str(r, "name", "delivery_constant");
	rec_str(r, "probe", "irq_displace");
	rec_str(r, "expected", "max_ci_low<=min_ci_high");
	rec_str(r, "statistic", "q25_paired_per_interrupt_ci95_window_bootstrap");
	rec_milli(r, "measured", hi_med - lo_med);
	rec_milli(r, "max_ci_low", max_lo);
	rec_milli(r, "min_ci_high", min_hi);
	rec_milli(r, "q25_min", lo_med);
	rec_milli(r, "q25_max", hi_med);
	rec_u64(r, "handlers", work->n);
	rec_bool(r, "ci95", ci95);
	rec_str(r, "status", ok ? "pass" : "fail");
	emit_finish();
	return ok;
}

/* One handler (one value of irq_disp_work): the state its interrupts update, its tally, and its
 * series, one value per window pair (n of them) except direct (raw costs, up to DIRECT_CAP). */
struct disp_handler_data {
	struct disp_state st;
	struct irq_tally tally;
	uint64_t *calib, *loaded;         /* T_F(1), T_F(2), cycles */
	uint64_t *count, *dsum, *direct;  /* interrupts taken, their direct costs summed; raw costs */
	uint64_t *cgap, *lgap, *smi;      /* background gaps of each window (cycles); SMIs */
	uint64_t gaps_calib, gaps_loaded; /* background gaps counted over all windows */
};

/* All buffers from the arena, in a fixed order; false if one does not fit. */
static bool disp_alloc(struct probe_env *env, struct disp_buffers *b, struct disp_handler_data *hd, unsigned handlers,
		       uint64_t n)
{
	bool ok;

	/* 2 * NOMINAL_CHUNKS: work_clock_spin_rate's scratch */
	b->jit = probe_sample_buffer(env, JITTER_SAMPLES > 2 * NOMINAL_CHUNKS ? JITTER_SAMPLES : 2 * NOMINAL_CHUNKS);
	b->win = (struct disp_window *)probe_sample_buffer(env, n * (sizeof(*b->win) / sizeof(uint64_t)));
	b->scratch = (int64_t *)probe_sample_buffer(env, n > DIRECT_CAP ? n : DIRECT_CAP);
	b->wval = (struct disp_wval *)probe_sample_buffer(env, DIRECT_CAP * (sizeof(*b->wval) / sizeof(uint64_t)));
	b->mult = (uint32_t *)probe_sample_buffer(env, n);
	b->boot = (int64_t *)probe_sample_buffer(env, DISP_BOOT_RESAMPLES);
	ok = b->jit && b->win && b->scratch && b->wval && b->mult && b->boot;
	for (unsigned h = 0; h < handlers; h++) {
		struct disp_handler_data *d = &hd[h];

		d->calib = probe_sample_buffer(env, n);
		d->loaded = probe_sample_buffer(env, n);
		d->count = probe_sample_buffer(env, n);
		d->cgap = probe_sample_buffer(env, n);
		d->lgap = probe_sample_buffer(env, n);
		d->dsum = probe_sample_buffer(env, n);
		d->smi = probe_sample_buffer(env, n);
		d->direct = probe_sample_buffer(env, DIRECT_CAP);
		d->st.x = (struct fluid_excess){ .v = probe_sample_buffer(env, DIRECT_CAP + 1), .cap = DIRECT_CAP };
		ok = ok && d->st.x.v && d->calib && d->loaded && d->count && d->cgap && d->lgap && d->dsum && d->smi &&
		     d->direct;
		d->gaps_calib = d->gaps_loaded = 0;
	}
	return ok;
}

/* The rates and sizes every window uses. The fluid rate (the nominal chunk of FLUID_CHUNK
 * iterations) converts work cycles into iterations and window cycles into chunks; the spin rate
 * converts the handlers' work into iterations; the period fits the largest work. */
static void disp_calibrate(struct probe_env *env, struct disp_run *run, uint64_t *jit, const struct config_u64_list *work)
{
	uint64_t maxw = 0, chunks, smi;

	for (unsigned h = 0; h < work->n; h++)
		maxw = work->v[h] > maxw ? work->v[h] : maxw;
	(void)nominal_chunk(jit);
	run->c1 = nominal_chunk(jit);
	if (!run->c1)
		run->c1 = 1;
	run->spin = spin_rate(jit);
	run->spin = run->spin > env->timer_overhead ? run->spin - env->timer_overhead : 1;
	/* the work's unit: the build's clock on x86_64, PMU cycles on AArch64 where they count (there
	 * both rates are retaken on one set of spins, run->spin included) */
	work_clock_spin_rate(&run->wc, SPIN_CAL_ITERS, jit, NOMINAL_CHUNKS, &run->spin, env->timer_overhead);
	run->res = clock_resolution(jit, &run->res_lo, &run->res_hi);
	run->period = irq_us_to_cycles(env, env->cfg->irq_disp_period_us) +
		      PERIOD_WORK_FACTOR * work_clock_to_ticks(&run->wc, maxw, run->spin);
	run->window = env->cfg->irq_disp_ms * (env->counter_hz / 1000);
	if (run->window < MIN_IRQS_PER_WINDOW * run->period)
		run->window = MIN_IRQS_PER_WINDOW * run->period;
	chunks = run->window / run->c1;
	if (chunks < MIN_FLUID_CHUNKS)
		chunks = MIN_FLUID_CHUNKS;
	run->chunks = chunks;
	run->lf = chunks * FLUID_CHUNK;
	run->smi_ok = arch_smi_count(env->cpu, &smi);
}

/* A calibration window (interrupts masked: no hits, no excess kept); its background gaps in *g. */
static uint64_t calib_fluid(const struct disp_run *run, struct fluid_gaps *g)
{
	static uint64_t no_excess[1];         /* written, never advanced (cap 0) */
	static const volatile uint64_t no_hits; /* the calibration windows' interrupt count */
	struct fluid_excess x = { .v = no_excess };

	return fluid(run->chunks, irq_disable, &no_hits, run->c1, g, &x);
}

/* Handler hd's calibration window of pair s, with its gaps. */
static void calib_window(const struct disp_run *run, struct disp_handler_data *hd, uint64_t s)
{
	struct fluid_gaps g;

	hd->calib[s] = calib_fluid(run, &g);
	hd->cgap[s] = g.cycles, hd->gaps_calib += g.count;
}

/* Pair s of handler hd: the loaded window with the periodic timer calling the handler, and its
 * calibration window, before it on odd s and after it on even s (ABBA); the SMIs over both. */
static void measure_pair(struct probe_env *env, const struct disp_run *run, struct disp_handler_data *hd, uint64_t s)
{
	struct disp_state *st = &hd->st;
	uint64_t before = st->hits, p = 0, t = 0, smi0 = 0, smi1;
	struct fluid_gaps g;

	if (run->smi_ok)
		(void)arch_smi_count(env->cpu, &smi0);
	if (s % 2)
		calib_window(run, hd, s);
	irq_register(IRQ_VEC_MEASURE, disp_handler, st);
	st->have_prev = false;
	st->direct_sum = 0;
	p = irq_periodic_start(env->irq, IRQ_VEC_MEASURE, run->period);
	t = fluid(run->chunks, irq_enable, &st->hits, run->c1, &g, &st->x);
	irq_source_release(env->irq, IRQ_SRC_PERIODIC_TIMER, IRQ_VEC_MEASURE);
	hd->lgap[s] = g.cycles, hd->gaps_loaded += g.count;
	/* the window's last invocation: its exit stamp is the latest one */
	if (st->have_prev)
		record_direct(st, irq_last_exit_cycles() - st->prev_entry);
	irq_unregister(IRQ_VEC_MEASURE);
	if (!(s % 2))
		calib_window(run, hd, s);
	hd->loaded[s] = t;
	hd->count[s] = st->hits - before;
	hd->dsum[s] = st->direct_sum;
	hd->tally.armed += p ? (t + p - 1) / p : 0; /* periods in the window */
	smi1 = smi0;
	if (run->smi_ok)
		(void)arch_smi_count(env->cpu, &smi1);
	hd->smi[s] = arch_smi_delta(smi0, smi1);
}

/* Handler hd's sets, then its check (on its windows with their background gaps taken out) and
 * its per-interrupt excesses; whether the check passed (*low: as check_handler). */
static bool finish_handler(struct disp_run *run, struct disp_handler_data *hd, uint64_t w, uint64_t n,
			   const struct disp_buffers *b, struct disp_est *low)
{
	uint64_t it = hd->st.work_iters, ovh = run->env->timer_overhead;
	bool ok;

	irq_tally_end(&hd->tally);
	hd->tally.taken = hd->st.hits;
	run->gaps_calib = hd->gaps_calib;
	run->gaps_loaded = hd->gaps_loaded;
	emit_set(run, "calib", w, it, "cycles", run->lf, ovh, hd->calib, n, 0);
	emit_set(run, "loaded", w, it, "cycles", run->lf, ovh, hd->loaded, n, &hd->tally);
	emit_set(run, "calib_gaps", w, it, "cycles", 1, 0, hd->cgap, n, 0);
	emit_set(run, "loaded_gaps", w, it, "cycles", 1, 0, hd->lgap, n, 0);
	emit_set(run, "count", w, it, "count", 1, 0, hd->count, n, 0);
	emit_set(run, "direct_sum", w, it, "cycles", 1, 0, hd->dsum, n, 0);
	emit_set(run, "direct", w, it, "cycles", 1, 0, hd->direct, hd->st.ndirect, 0);
	if (run->smi_ok)
		emit_set(run, "smi", w, it, "count", 1, 0, hd->smi, n, 0);
	for (uint64_t s = 0; s < n; s++)
		b->win[s] = (struct disp_window){ .calib = hd->calib[s] - hd->cgap[s],
						  .loaded = hd->loaded[s] - hd->lgap[s],
						  .count = hd->count[s],
						  .direct_sum = hd->dsum[s] };
	ok = check_handler(run, w, b->win, (unsigned)n, &hd->st, b, low);
	emit_excess(run, w, it, &hd->st.x, (uint64_t *)b->scratch);
	return ok;
}

static enum probe_status irq_displace_run(struct probe_env *env)
{
	const char *why = irq_probe_unavailable(env);
	const struct config_u64_list *work = &env->cfg->irq_disp_work;
	uint64_t n = env->cfg->irq_disp_samples;
	struct disp_handler_data hd[CONFIG_LIST_MAX];
	struct disp_est low[CONFIG_LIST_MAX]; /* each handler's delivery_q25: delivery_constant's input */
	struct disp_buffers b;
	struct fluid_gaps g;
	struct disp_run run = { .env = env, .handlers = work->n };
	bool bad = false, checks_ok = true;

	if (why) {
		emit_skip("irq_displace", why);
		return PROBE_SKIPPED;
	}
	if (!irq_probe_begin(env, "irq_displace"))
		return PROBE_FAILED;
	if (!disp_alloc(env, &b, hd, work->n, n)) {
		emit_skip("irq_displace", "buffers do not fit in the arena (lower irq_disp_samples)");
		return PROBE_SKIPPED;
	}
	disp_calibrate(env, &run, b.jit, work);
	for (unsigned h = 0; h < work->n; h++) {
		hd[h].st = (struct disp_state){ .work_iters = work->v[h] * SPIN_CAL_ITERS / run.wc.spin,
						.direct = hd[h].direct,
						.cap = DIRECT_CAP,
						.x = hd[h].st.x };
		irq_tally_begin(&hd[h].tally);
	}
	(void)calib_fluid(&run, &g); /* warm-up */
	for (uint64_t s = 0; s < n; s++)
		for (unsigned h = 0; h < work->n; h++)
			measure_pair(env, &run, &hd[h], s);
	for (unsigned h = 0; h < work->n; h++) {
		checks_ok &= finish_handler(&run, &hd[h], work->v[h], n, &b, &low[h]);
		bad |= hd[h].tally.unexpected != 0 || hd[h].st.hits == 0;
	}
	emit_set(&run, "timer_jitter", 0, 0, "cycles", 1, 0, b.jit, JITTER_SAMPLES, NO_HANDLER);
	checks_ok &= check_constant(low, work);
	if (bad)
		emit_msg(MSG_ERROR, "irq_displace: no interrupt taken in a loaded window, or an unexpected vector");
	/* A failed check is a finding about the machine (under emulation, TCG's timing is no
	 * machine's), not a broken probe: its record says fail; the tests assert the checks where the
	 * effect is real (hosted on the CPU, -icount). */
	if (!checks_ok)
		emit_msg(MSG_WARN, "irq_displace: a displace_vs_direct or delivery_constant check failed");
	return bad ? PROBE_FAILED : PROBE_OK;
}

const struct probe_desc probe_irq_displace = {
	.name = "irq_displace",
	.what = "handler cost by displacement of a fluid loop (Woodside) and directly, for handlers of known work",
	.run = irq_displace_run,
	.options = "irq_disp_samples,irq_disp_ms,irq_disp_period_us,irq_disp_work,seed",
	.cleanup = irq_probe_cleanup,
	.unprofiled = "the probe uses the interrupt machinery itself",
};
