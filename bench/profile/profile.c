/* The sampling profiler's orchestration and records (see profile.h, docs/protocol.md "Sampling
 * profiler"). Interrupt context does only prof_hit: one hash-table update and, for the handler
 * cost, one subtraction. Everything else — aggregation, sorting, records, the overhead
 * measurement — runs after the probe with sampling stopped. */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "bench/profile/profile.h"

#include "arch/cycles.h"
#include "arch/smp.h"
#include "bench/core/arena.h"
#include "bench/profile/table.h"
#include "bench/core/runner.h"
#include "bench/profile/extend.h"
#include "bench/profile/region.h"
#include "bench/profile/sampler.h"
#include "lib/crc32.h"
#include "lib/emit.h"
#include "lib/fmt.h"
#include "lib/sort.h"

#define PROF_COST_CAL_ITERS 1000000ull /* spin iterations of the round-length calibration */
#define PROF_SEED_MIX 0x50524F46ull     /* "PROF": the period seed differs from the chains' */

struct prof_cpu {
	struct prof_table t;
	struct prof_agg agg;
	uint64_t prev_entry;              /* entry TSC of the previous sample (handler cost) */
	volatile uint64_t outside;        /* of t.samples, those outside the measured region (region.h) */
	uint64_t *handler;                /* handler durations, cycles */
	volatile uint32_t nhandler;
} __attribute__((aligned(64))); /* the handler writes here: no line shared between CPUs */

static struct {
	struct prof_cpu *cpu;             /* [ncpus], from the arena */
	unsigned ncpus;                   /* tables set up */
	volatile uint64_t foreign_cpu;    /* samples from a CPU without a table */
	struct prof_sampler_info info;
	uint64_t period;                  /* requested (0: the source's default) */
	bool period_auto;
	uint64_t auto_cost;               /* per-sample cost that set the auto period, cycles */
	bool running;
	uint64_t run_start, run_cycles;   /* the profiled run's duration */
	uint64_t run_samples;             /* samples the probe CPU took in it */
	struct prof_extend ext;           /* the runs of the probe (extend.h) */
	uint64_t last_run_start;
	uint64_t regions_before;          /* runner_regions_entered() at the start */
} prof;

bool profile_wanted(const struct config *cfg, const char *probe)
{
	return cfg->profile[0] && (str_eq(cfg->profile, "all") || config_list_has(cfg->profile, probe));
}

/* Interrupt context. */
static void prof_hit(void *ctx, unsigned cpu, uint64_t pc, uint64_t entry_cycles)
{
	struct prof_cpu *c;
	uint64_t exit;
	uint16_t event;

	(void)ctx;
	if (cpu >= prof.ncpus) {
		prof.foreign_cpu++;
		return;
	}
	c = &prof.cpu[cpu];
	event = prof_region_event(cpu, runner_in_region(), 0);
	prof_table_record(&c->t, pc, event);
	if (event == PROF_EVENT_OUTSIDE)
		c->outside++;
	/* The previous sample's handler ended at the exit stamp the entry code left. */
	exit = prof_sampler_last_exit_cycles(cpu);
	if (c->prev_entry && exit > c->prev_entry && c->nhandler < PROF_HANDLER_SAMPLES)
		c->handler[c->nhandler++] = exit - c->prev_entry;
	c->prev_entry = entry_cycles;
}

/* Why a probe cannot be profiled, or NULL. */
static const char *unprofilable(const struct probe_desc *p)
{
	if (p->unprofiled)
		return p->unprofiled;
	return p->expects_fault ? "a fault test probe" : 0;
}

static bool setup_tables(struct probe_env *env)
{
	unsigned want = smp_cpus_online();

	want = want < 1 ? 1 : want > PROF_MAX_CPUS ? PROF_MAX_CPUS : want;
	prof.ncpus = 0;
	prof.cpu = arena_alloc(env->arena, want * sizeof(*prof.cpu), 64);
	if (!prof.cpu)
		return false;
	for (unsigned i = 0; i < want; i++) {
		struct prof_cpu *c = &prof.cpu[i];
		struct prof_entry *sets = arena_alloc(env->arena, PROF_TABLE_SETS * PROF_WAYS * sizeof(*sets), 64);
		struct prof_entry *o0 = arena_alloc(env->arena, PROF_OVF_ENTRIES * sizeof(*o0), 64);
		struct prof_entry *o1 = arena_alloc(env->arena, PROF_OVF_ENTRIES * sizeof(*o1), 64);
		struct prof_entry *agg = arena_alloc(env->arena, PROF_AGG_ENTRIES * sizeof(*agg), 64);
		uint64_t *h = arena_alloc(env->arena, PROF_HANDLER_SAMPLES * sizeof(*h), 64);

		if (!sets || !o0 || !o1 || !agg || !h)
			break;
		prof_table_init(&c->t, sets, PROF_TABLE_SETS, o0, o1, PROF_OVF_ENTRIES);
		prof_agg_init(&c->agg, agg, PROF_AGG_ENTRIES);
		c->handler = h;
		c->nhandler = 0;
		c->prev_entry = 0;
		c->outside = 0;
		prof.ncpus++;
	}
	prof.foreign_cpu = 0;
	return prof.ncpus > 0;
}

static bool sampler_start(struct probe_env *env, uint64_t period, const char **why)
{
	static const enum prof_source sources[] = { PROF_SRC_AUTO, PROF_SRC_PMU, PROF_SRC_TIMER };
	struct prof_sampler_req req = {
		.source = sources[env->cfg->profile_source],
		.event = env->cfg->profile_event,
		.period = period,
		.seed = env->cfg->seed ^ PROF_SEED_MIX,
		.hit = prof_hit,
	};

	return prof_sampler_start(env, &req, &prof.info, why);
}

/* Has the probe entered a measured region since its profile began (region.h)? */
static bool region_marked(void)
{
	return runner_regions_entered() != prof.regions_before;
}

/* The samples of `cpu` the profile attributes to the probe. */
static uint64_t attributed(unsigned cpu)
{
	return prof_region_attributed(region_marked(), prof.cpu[cpu].t.samples, prof.cpu[cpu].outside);
}

/* Between runner samples, sampling on: full overflow buffers into the aggregate (the handler
 * may interrupt this; prof_table_drain is safe against it on the same CPU). Called after a
 * region only, so the sink's decision is the final one. */
static void prof_poll(void)
{
	struct prof_region_sink sink = { &prof.cpu[0].agg, region_marked() };

	/* Only this CPU's: another CPU's handler may be writing its table right now. */
	(void)prof_table_drain(&prof.cpu[0].t, prof_region_sink, &sink);
}

/* smp_run_all's hooks, on each application processor around its share of a job. */
static void prof_ap_begin(unsigned cpu)
{
	(void)prof_sampler_cpu_begin(cpu);
}

static void prof_ap_end(unsigned cpu)
{
	prof_sampler_cpu_end(cpu);
}

static void stop_sampling(void)
{
	runner_set_poll(0);
	smp_set_all_hooks(0, 0);
	prof_sampler_window_close();
	prof_sampler_stop();
}

static void emit_begin(struct probe_env *env, const char *probe)
{
	char id[PROF_BUILD_ID_HEX_MAX];
	uint64_t base = 0, size = 0;
	struct record *r;

	(void)prof_image_info(&base, &size, id, sizeof(id));
	r = emit_start("prof");
	rec_str(r, "kind", "begin");
	rec_str(r, "probe", probe);
	rec_str(r, "source", prof.info.source);
	rec_str(r, "events", prof.info.event);
	rec_str(r, "unit", prof.info.unit);
	rec_u64(r, "period", prof.info.period);
	rec_u64(r, "period_min", prof.info.period_min);
	rec_u64(r, "period_max", prof.info.period_max);
	rec_u64(r, "seed", env->cfg->seed ^ PROF_SEED_MIX);
	rec_u64(r, "cpus", prof.info.cpus);
	rec_hex(r, "image_base", base);
	rec_u64(r, "image_size", size);
	rec_str(r, "build_id", id);
	rec_bool(r, "period_auto", prof.period_auto);
	rec_str(r, "region", region_marked() ? "marked" : "whole_run");
	rec_u64(r, "runs", prof.ext.runs);
	rec_str(r, "extend_stop", prof_extend_stop_name(prof.ext.stop));
	if (prof.ext.active) {
		rec_u64(r, "min_samples", prof.ext.min_samples);
		rec_u64(r, "extend_max_ms", PROF_EXTEND_MAX_MS);
	}
	if (prof.period_auto && prof.auto_cost)
		rec_u64(r, "auto_sample_cost", prof.auto_cost);
	if (prof.info.fallback)
		rec_str(r, "fallback", prof.info.fallback);
	if (prof.foreign_cpu)
		rec_u64(r, "untabled_samples", prof.foreign_cpu); /* from CPUs beyond PROF_MAX_CPUS */
	emit_finish();
}

/* One CPU's aggregated entries in chunks, then its end record. */
static EMIT_COLD void emit_cpu(const char *probe, unsigned cpu)
{
	struct prof_cpu *c = &prof.cpu[cpu];
	struct prof_region_sink sink = { &c->agg, region_marked() };
	uint64_t counted = 0, lost, samples = attributed(cpu);
	uint32_t n, crc = 0;
	struct record *r;

	prof_table_flush(&c->t, prof_region_sink, &sink);
	n = prof_agg_sort(&c->agg);
	for (uint32_t i = 0; i < n; i += PROF_DATA_PER_RECORD) {
		uint32_t k = n - i < PROF_DATA_PER_RECORD ? n - i : PROF_DATA_PER_RECORD;
		char text[PROF_DATA_PER_RECORD * 40];
		struct sbuf sb;

		sb_init(&sb, text, sizeof(text));
		for (uint32_t j = 0; j < k; j++) {
			const struct prof_entry *e = &c->agg.e[i + j];
			char hex[20];
			struct sbuf hb;

			sb_init(&hb, hex, sizeof(hex));
			sb_hex(&hb, e->pc);
			if (j)
				sb_putc(&sb, ',');
			sb_puts(&sb, hex + 2); /* without "0x" */
			sb_putc(&sb, ':');
			sb_u64(&sb, e->event);
			sb_putc(&sb, ':');
			sb_u64(&sb, e->count);
			counted += e->count;
		}
		if (i)
			crc = crc32_update(crc, ",", 1);
		crc = crc32_update(crc, text, str_len(text));
		r = emit_start("prof_data");
		rec_str(r, "probe", probe);
		rec_u64(r, "cpu", cpu);
		rec_u64(r, "i", i);
		rec_u64(r, "n", k);
		rec_str(r, "e", text);
		emit_finish();
	}
	lost = samples > counted ? samples - counted : 0;
	r = emit_start("prof");
	rec_str(r, "kind", "end");
	rec_str(r, "probe", probe);
	rec_u64(r, "cpu", cpu);
	rec_u64(r, "samples", samples);
	if (sink.marked)
		rec_u64(r, "outside", c->outside); /* taken outside the measured region, not in the profile */
	rec_u64(r, "entries", n);
	rec_u64(r, "counted", counted);
	rec_u64(r, "lost", lost);
	rec_hex(r, "crc", crc);
	if (c->nhandler) {
		uint32_t m = c->nhandler;

		sort_u64(c->handler, m);
		rec_u64(r, "handler_n", m);
		rec_u64(r, "handler_med", c->handler[m / 2]);
		rec_u64(r, "handler_p90", c->handler[(uint64_t)m * 9 / 10]);
	}
	emit_finish();
}

static void discard_sink(void *ctx, const struct prof_entry *e, uint32_t n)
{
	(void)ctx;
	(void)e;
	(void)n;
}

/* Cycles of one spin round of `iters` iterations. */
static uint64_t spin_round(uint64_t iters)
{
	uint64_t t0 = cycles_begin();

	arch_spin(iters);
	return cycles_end() - t0;
}

struct prof_cost {
	unsigned rounds;
	uint64_t off, on;    /* median cycles of a round without / with sampling */
	uint64_t samples_on; /* samples over all sampled rounds */
	uint64_t per_sample; /* (on - off) / samples per round: what one sample costs the loop, cycles */
};

/* The profiler's cost on the CPU time of a calibrated loop: `rounds` rounds of `round_ms` without
 * and with sampling at `period`, interleaved, medians compared (Woodside et al.'s displacement,
 * applied to our own handler). False with *why when sampling could not start. */
static bool measure_cost(struct probe_env *env, uint64_t period, unsigned rounds, uint64_t round_ms,
			 struct prof_cost *c, const char **why)
{
	uint64_t off[PROF_COST_ROUNDS], on[PROF_COST_ROUNDS], iters, cal;

	*c = (struct prof_cost){ 0 };
	if (rounds > PROF_COST_ROUNDS)
		rounds = PROF_COST_ROUNDS;
	cal = spin_round(PROF_COST_CAL_ITERS);
	if (!env->counter_hz || !cal) {
		*why = "the TSC rate is unknown";
		return false;
	}
	iters = PROF_COST_CAL_ITERS * (env->counter_hz / 1000 * round_ms) / cal;
	/* The rounds count their own samples only (the probe's are emitted by now). */
	prof_table_flush(&prof.cpu[0].t, discard_sink, 0);
	prof.cpu[0].t.samples = 0;
	prof.cpu[0].outside = 0;
	for (unsigned k = 0; k < rounds; k++) {
		off[k] = spin_round(iters);
		if (!sampler_start(env, period, why))
			return false;
		prof_sampler_window_open();
		on[k] = spin_round(iters);
		stop_sampling();
		c->samples_on += prof.cpu[0].t.samples;
		prof_table_flush(&prof.cpu[0].t, discard_sink, 0);
		prof.cpu[0].t.samples = 0;
		prof.cpu[0].outside = 0;
		prof.cpu[0].nhandler = 0;
		prof.cpu[0].prev_entry = 0;
	}
	sort_u64(off, rounds);
	sort_u64(on, rounds);
	c->rounds = rounds;
	c->off = off[rounds / 2];
	c->on = on[rounds / 2];
	if (c->on > c->off && c->samples_on)
		c->per_sample = (c->on - c->off) * rounds / c->samples_on;
	return true;
}

static void emit_cost(struct probe_env *env, const char *probe)
{
	struct prof_cost c;
	const char *why = 0;
	struct record *r;
	bool ok = measure_cost(env, prof.period, PROF_COST_ROUNDS, PROF_COST_ROUND_MS, &c, &why);

	r = emit_start("prof");
	rec_str(r, "kind", "cost");
	rec_str(r, "probe", probe);
	if (!ok) {
		rec_str(r, "skipped", why);
		emit_finish();
		return;
	}
	rec_u64(r, "rounds", c.rounds);
	rec_u64(r, "off", c.off);
	rec_u64(r, "on", c.on);
	rec_u64(r, "overhead_ppm", c.on > c.off ? (c.on - c.off) * 1000000 / c.off : 0);
	rec_u64(r, "target_ppm", PROF_TARGET_PPM);
	rec_u64(r, "samples_on", c.samples_on);
	rec_u64(r, "per_sample", c.per_sample);
	/* The same cost carried over to the probe's run: its samples times one sample's cost, over
	 * the run's duration (an estimate for the probe; the spin rounds are the measurement). */
	rec_u64(r, "run_cycles", prof.run_cycles);
	rec_u64(r, "run_samples", prof.run_samples);
	if (prof.run_cycles)
		rec_u64(r, "run_overhead_ppm", prof.run_samples * c.per_sample * 1000000 / prof.run_cycles);
	emit_finish();
}

/* The period when profile_period is 0: the source's nominal default, lengthened where one sample
 * costs so much (an emulator) that the nominal rate would exceed the overhead goal: the period is
 * then PROF_AUTO_PERIOD_FACTOR samples' cost (2.5% < the 3% goal). Measured once per source. */
static uint64_t auto_period(struct probe_env *env)
{
	static bool done[2];
	static uint64_t chosen[2];
	struct prof_cost c;
	const char *why = 0;
	bool timer;
	uint64_t nominal, cost_units;

	if (!sampler_start(env, 0, &why))
		return 0; /* profile_start reports why */
	nominal = prof.info.period;
	timer = str_eq(prof.info.unit, "ns");
	stop_sampling();
	if (done[timer])
		return chosen[timer];
	chosen[timer] = nominal;
	done[timer] = true;
	if (!measure_cost(env, nominal, PROF_AUTO_ROUNDS, PROF_AUTO_ROUND_MS, &c, &why) || !c.per_sample)
		return nominal;
	/* The cost in the period's unit: ns for time; for a counter, events at the rate the sampled
	 * rounds counted them (samples_on x period per round over its TSC cycles: ~1 per cycle for
	 * cycles on x86, 16 per tick for CPU_CYCLES against AArch64's 62.5 MHz counter under QEMU). */
	cost_units = timer ? c.per_sample * 1000000000ull / env->counter_hz
			   : c.per_sample * (c.samples_on * nominal / c.rounds) / c.on;
	if (cost_units * PROF_AUTO_PERIOD_FACTOR > nominal)
		chosen[timer] = cost_units * PROF_AUTO_PERIOD_FACTOR;
	prof.auto_cost = c.per_sample;
	return chosen[timer];
}

bool profile_start(struct probe_env *env, const struct probe_desc *p)
{
	const char *why = unprofilable(p);
	struct record *r;

	prof.running = false;
	if (!why && !setup_tables(env))
		why = "no memory for the sample tables";
	prof.period = env->cfg->profile_period;
	prof.period_auto = !prof.period;
	if (!why && prof.period_auto)
		prof.period = auto_period(env);
	if (!why && sampler_start(env, prof.period, &why)) {
		prof.period = prof.info.period;
		runner_set_poll(prof_poll);
		smp_set_all_hooks(prof_ap_begin, prof_ap_end);
		prof.running = true;
		prof_extend_init(&prof.ext, prof.period_auto, env->counter_hz);
		prof.regions_before = runner_regions_entered();
		prof.run_start = cycles_read();
		prof.last_run_start = prof.run_start;
		prof_sampler_window_open();
		return true;
	}
	r = emit_start("skip");
	rec_str(r, "probe", p->name);
	rec_str(r, "reason", why);
	rec_str(r, "part", "profile");
	emit_finish();
	return false;
}

static uint64_t samples_attributed(void)
{
	uint64_t n = 0;

	for (unsigned cpu = 0; cpu < prof.ncpus; cpu++)
		n += attributed(cpu);
	return n;
}

bool profile_run_again(bool ok)
{
	uint64_t now = cycles_read(), last = now - prof.last_run_start;

	if (!prof.running)
		return false;
	prof.last_run_start = now;
	return prof_extend_next(&prof.ext, ok, samples_attributed(), now - prof.run_start, last);
}

void profile_finish(struct probe_env *env, const struct probe_desc *p)
{
	if (!prof.running)
		return;
	prof.run_cycles = cycles_read() - prof.run_start;
	stop_sampling();
	prof.running = false;
	prof.run_samples = prof.cpu[0].t.samples;
	emit_begin(env, p->name);
	for (unsigned cpu = 0; cpu < prof.ncpus; cpu++)
		if (cpu == 0 || prof.cpu[cpu].t.samples)
			emit_cpu(p->name, cpu);
	emit_cost(env, p->name);
}
