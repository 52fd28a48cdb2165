/* Probe `membw_mc`: multi-core aggregate bandwidth. For 1..N cores at once, each core streams its
 * own DRAM-sized buffers with the same kernel and pass count, all released by one common start
 * (smp_run_all); every core times itself. Per sample the records give each core's cycles and the
 * aggregate window (earliest start to latest end), so the harness shows per-core and aggregate
 * GB/s. Kernels: read, write and copy at the widest vector width every core can use.
 *
 * Counters: each core programs and reads its own PMU (the bandwidth set, or pmu_events=) around
 * its own passes, inside its job, so every per-core set carries that core's deltas as the
 * runner's sets do; when the events need several passes, the whole common-start run is repeated
 * per pass. The package-wide counters (RAPL energy) are no core's: every core reading them would
 * see the whole package's energy, and dividing that by one core's bytes overstates nJ/byte about
 * cores-fold. So the per-core sets refuse them and the aggregate set (cpu=all) carries them, read
 * by the BSP around each common-start run of pass 0. Only the BSP emits records. On a hybrid part
 * a core of another type than the BSP's counts with its own PMU description (mc_core_pmus).
 *
 * Core clock: each core times the add chain (bench/core/core_clock.h) on itself right before its
 * warm-up and right after its last sample, in jobs of their own outside the timed runs, so every
 * per-core set carries its own core's clock (bytes per core cycle where no counter gives one). */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "arch/cycles.h"
#include "arch/membw.h"
#include "arch/smp.h"
#include "bench/core/core_clock.h"
#include "bench/core/counters.h"
#include "bench/core/probe.h"
#include "lib/emit.h"
#include "lib/fmt.h"

#define MIB (1024ull * 1024)
#define MC_MAX_BUFFER (64 * MIB)   /* per core and buffer; past every LLC we expect */
#define MC_MIN_BUFFER (4 * MIB)
#define MC_MIN_SAMPLE_NS 20000000ull /* 20 ms per core sample: start skew is far below 1% */
#define MC_TIMEOUT_S 60
#define BUFFER_ALIGN 4096
#define DST_SKEW (4096 + 64)

struct mc_job {
	membw_kernel_fn fn;
	void *dst;
	const void *src;
	size_t bytes;
	uint64_t passes;
	uint64_t t0, t1;
	/* counters: this core's run state (pass begin / end), the one this sample is counted in (NULL:
	 * not counted, as the warm-up), the pass and the sample index */
	struct ctr_run *ctr;
	struct ctr_run *cr;
	unsigned pass;
	uint64_t sample;
	struct core_clock *clock; /* this core's, timed on it (NULL: no room, none) */
};

static uint64_t mc_timed(void *arg, uint64_t iters)
{
	struct mc_job *j = arg;

	j->t0 = cycles_begin();
	j->fn(j->dst, j->src, j->bytes, iters);
	j->t1 = cycles_end();
	return j->t1 - j->t0;
}

static void mc_worker(void *arg)
{
	struct mc_job *j = arg;

	if (j->cr)
		(void)ctr_sample(j->cr, j->pass, j->sample, mc_timed, j, j->passes);
	else
		(void)mc_timed(j, j->passes);
}

/* Counter pass begin / end on the core itself: the PMU is per CPU. */
static void mc_pass_begin(void *arg)
{
	struct mc_job *j = arg;

	ctr_pass_begin(j->ctr, j->pass);
}

static void mc_pass_end(void *arg)
{
	struct mc_job *j = arg;

	ctr_pass_end(j->ctr, j->pass);
}

static void mc_clock_job(void *arg)
{
	struct mc_job *j = arg;

	if (j->clock)
		core_clock_take(j->clock);
}

static void simd_job(void *arg)
{
	(void)arg;
	simd_enable();
}

/* The aggregate's package counters: read by the BSP around one whole common-start run. */
struct mc_all {
	unsigned cpus;
	void **args;
	uint64_t timeout;
	bool ok;
};

static uint64_t mc_run_all(void *arg, uint64_t iters)
{
	struct mc_all *a = arg;
	uint64_t t0 = cycles_begin();

	(void)iters;
	a->ok = smp_run_all(a->cpus, mc_worker, a->args, a->timeout);
	return cycles_end() - t0;
}

struct mc_kernel {
	const char *name;
	unsigned reads, writes;
	membw_kernel_fn fn[SIMD_NUM_WIDTHS];
};

static const struct mc_kernel mc_kernels[] = {
	{ "read", 1, 0, { bw_read_64, bw_read_128, bw_read_256, bw_read_512 } },
	{ "write", 0, 1, { bw_write_64, bw_write_128, bw_write_256, bw_write_512 } },
	{ "copy", 1, 1, { bw_copy_64, bw_copy_128, bw_copy_256, bw_copy_512 } },
};

static void emit_set(struct probe_env *env, const char *kernel, unsigned width, uint64_t bytes_per_op,
		     uint64_t size, unsigned cpus, int cpu, uint64_t passes, const uint64_t *v, uint64_t n,
		     struct ctr_run *cr, struct core_clock *clock)
{
	struct record *r;
	uint32_t set = probe_declare_set(env, &r, "membw_mc", n, passes, env->timer_overhead);

	rec_str(r, "kernel", kernel);
	rec_u64(r, "width", width);
	rec_u64(r, "size", size);
	rec_u64(r, "bytes_per_op", bytes_per_op);
	rec_str(r, "convention", "rw");
	rec_str(r, "page", env->page_size ? env->page_size : "unknown");
	rec_u64(r, "cpus", cpus);
	if (cpu < 0)
		rec_str(r, "cpu", "all");
	else
		rec_u64(r, "cpu", (uint64_t)cpu);
	if (clock && clock->n)
		core_clock_emit(r, clock);
	ctr_finish_set(cr, r, set, v, n);
}

/* One kernel on `cpus` cores (jobs[0..cpus-1] filled in): per counter pass a warm-up and n
 * samples, all with a common start; the times of pass 0 (or of the only run, without counters)
 * go into samples (per core, then the aggregate window at ncpu * n). cr[c]: core c's counter
 * state, cr[ncpu] the aggregate's package counters (NULL: no room, measured without). False
 * when a core did not finish in time. */
static bool run_config(struct probe_env *env, unsigned cpus, unsigned ncpu, struct mc_job *jobs, void **args,
		       struct ctr_run **cr, const struct pmu_info *const *core_pmu, uint64_t *samples,
		       uint64_t timeout)
{
	uint64_t n = env->cfg->samples;
	unsigned npasses = 1;
	bool counted = true;
	struct ctr_run *all = cr[ncpu];
	struct mc_all run = { cpus, args, timeout, true };
	bool all_counted = all && ctr_prepare_scoped(all, env, "membw_mc", CTR_SET_BANDWIDTH, n, CTR_SCOPE_PACKAGE);

	for (unsigned c = 0; c < cpus; c++) {
		unsigned p = cr[c] ? ctr_prepare_scoped_on(cr[c], env, core_pmu[c], "membw_mc", CTR_SET_BANDWIDTH, n,
							   CTR_SCOPE_CORE) : 0;

		counted = counted && p;
		npasses = p ? p : npasses;
	}
	if (!counted) {
		npasses = 1;
		for (unsigned c = 0; c < cpus; c++)
			if (cr[c])
				cr[c]->active = false; /* every core or none: the sets are compared */
	}
	if (!smp_run_all(cpus, mc_clock_job, args, timeout)) /* before the warm-up, on every core */
		return false;
	for (unsigned pass = 0; pass < npasses; pass++) {
		for (unsigned c = 0; c < cpus; c++) {
			jobs[c].ctr = cr[c]; /* pass begin / end program and release this core's PMU */
			jobs[c].cr = 0;      /* the warm-up is not counted */
			jobs[c].pass = pass;
		}
		/* the package counters first: their start must not stop core 0's own (programmed next) */
		if (all_counted && !pass)
			ctr_pass_begin(all, 0);
		if (counted && !smp_run_all(cpus, mc_pass_begin, args, timeout))
			return false;
		smp_run_all(cpus, mc_worker, args, timeout); /* warm-up */
		for (uint64_t s = 0; s < n; s++) {
			uint64_t lo = UINT64_MAX, hi = 0;

			for (unsigned c = 0; c < cpus; c++) {
				jobs[c].cr = counted ? cr[c] : 0;
				jobs[c].sample = s;
			}
			if (all_counted && !pass)
				(void)ctr_sample(all, 0, s, mc_run_all, &run, 0);
			else
				(void)mc_run_all(&run, 0);
			if (!run.ok)
				return false;
			if (pass)
				continue; /* later passes only add counter values (and their own times) */
			for (unsigned c = 0; c < cpus; c++) {
				samples[c * n + s] = jobs[c].t1 - jobs[c].t0;
				lo = jobs[c].t0 < lo ? jobs[c].t0 : lo;
				hi = jobs[c].t1 > hi ? jobs[c].t1 : hi;
			}
			samples[ncpu * n + s] = hi - lo;
		}
		if (counted && !smp_run_all(cpus, mc_pass_end, args, timeout))
			return false;
		if (all_counted && !pass)
			ctr_pass_end(all, 0); /* after core 0's own: it leaves its counters alone */
	}
	return smp_run_all(cpus, mc_clock_job, args, timeout); /* and after the last sample */
}

/* The widest vector width usable on every core; on bare metal each core enables its own XSAVE
 * state first (hosted, the kernel did), and *ncpu drops to the cores that answered. */
static unsigned mc_width(struct probe_env *env, unsigned *ncpu)
{
	struct simd_state simd;
	unsigned width = SIMD_64;

	for (unsigned c = 1; c < *ncpu && env->simd_enabled; c++)
		if (!smp_run(c, simd_job, 0) || !smp_wait(c, env->counter_hz))
			*ncpu = c; /* keep the cores that answered */
	simd_usable(&simd);
	for (int w = SIMD_NUM_WIDTHS - 1; w >= 0; w--)
		if (simd.usable[w]) {
			width = (unsigned)w;
			break;
		}
	return width;
}

/* Hybrid parts: on an AP, its core type and, when it is another type than the BSP's and no core of
 * that type has been seen, its own PMU discovered there (pmu_discover_this_cpu). */
struct mc_pmu_job {
	struct probe_env *env;
	struct pmu_info *other; /* the other type's description, filled once */
	bool have_other;
	const char *type;       /* the AP's core type */
};

static void mc_pmu_job(void *arg)
{
	struct mc_pmu_job *j = arg;

	j->type = pmu_cpu_core_type(j->env->pmu);
	if (j->type && !str_eq(j->type, pmu_core_type(j->env->pmu)) && !j->have_other) {
		pmu_discover_this_cpu(j->other, j->env->cpu, j->env->pmu);
		j->have_other = true;
	}
}

/* The PMU description each core's sets are planned with: the BSP's, except on a hybrid part for
 * the cores of the other type, which get the one discovered on the first of them. Not hybrid: no
 * job runs. A core whose type matches neither keeps the BSP's (its sets are refused there). */
static void mc_core_pmus(struct probe_env *env, unsigned ncpu, const struct pmu_info **core_pmu)
{
	struct mc_pmu_job j = { env, 0, false, 0 };

	for (unsigned c = 0; c < ncpu; c++)
		core_pmu[c] = env->pmu;
	if (!pmu_core_type(env->pmu))
		return;
	j.other = arena_alloc(env->arena, sizeof(struct pmu_info), 64);
	for (unsigned c = 1; c < ncpu && j.other; c++)
		if (smp_run(c, mc_pmu_job, &j) && smp_wait(c, env->counter_hz) && j.have_other &&
		    j.type && pmu_core_type(j.other) && str_eq(j.type, pmu_core_type(j.other)))
			core_pmu[c] = j.other;
}

/* Each core's buffer size: half of its share of the arena's free bytes, in MC_MIN_BUFFER steps
 * up to MC_MAX_BUFFER, at most mem_max_mb (but at least MC_MIN_BUFFER) where that is set. */
static uint64_t mc_buffer_size(struct probe_env *env, unsigned ncpu)
{
	uint64_t size = (env->arena->size - env->arena->used) / ncpu / 2;

	size = size > MC_MAX_BUFFER ? MC_MAX_BUFFER : size / MC_MIN_BUFFER * MC_MIN_BUFFER;
	if (env->cfg->mem_max_mb && size > env->cfg->mem_max_mb * MIB)
		size = env->cfg->mem_max_mb * MIB < MC_MIN_BUFFER ? MC_MIN_BUFFER : env->cfg->mem_max_mb * MIB;
	return size;
}

static enum probe_status membw_mc_run(struct probe_env *env)
{
	unsigned ncpu = smp_cpus_online(), width;
	uint64_t n = env->cfg->samples, size, passes;
	struct mc_job jobs[SMP_MAX_CPUS];
	void *args[SMP_MAX_CPUS];
	uint64_t *samples, timeout;
	struct ctr_run *cr[SMP_MAX_CPUS + 1]; /* per core, then the aggregate's */
	struct core_clock *clocks;
	const struct pmu_info *core_pmu[SMP_MAX_CPUS];
	uint8_t *bufs;

	if (ncpu < 2) {
		emit_skip("membw_mc", smp_report()->reason ? smp_report()->reason : "only one CPU online");
		return PROBE_SKIPPED;
	}
	if (!env->counter_hz) {
		emit_skip("membw_mc", "TSC frequency unknown: cannot bound the multi-core runs");
		return PROBE_SKIPPED;
	}
	width = mc_width(env, &ncpu);
	mc_core_pmus(env, ncpu, core_pmu);
	samples = probe_sample_buffer(env, n * (ncpu + 1));
	/* before the buffers take what is left: the counter state per core (NULL: measured without) */
	for (unsigned c = 0; c <= ncpu; c++)
		cr[c] = arena_alloc(env->arena, sizeof(struct ctr_run), 64);
	clocks = arena_alloc(env->arena, ncpu * sizeof(*clocks), 64); /* NULL: the sets go without */
	size = mc_buffer_size(env, ncpu);
	if (!samples || size < MC_MIN_BUFFER) {
		emit_skip("membw_mc", "not enough memory in the arena for per-core buffers");
		return PROBE_SKIPPED;
	}
	bufs = arena_alloc(env->arena, ncpu * (2 * size + DST_SKEW), BUFFER_ALIGN);
	if (!bufs) {
		emit_skip("membw_mc", "per-core buffers do not fit in the arena");
		return PROBE_SKIPPED;
	}
	for (uint64_t i = 0; i < ncpu * (2 * size + DST_SKEW); i += 64)
		bufs[i] = (uint8_t)i;
	timeout = MC_TIMEOUT_S * env->counter_hz;

	for (size_t k = 0; k < sizeof(mc_kernels) / sizeof(mc_kernels[0]); k++) {
		const struct mc_kernel *mk = &mc_kernels[k];
		uint64_t t0;

		/* Passes: enough for MC_MIN_SAMPLE_NS on one core, measured once on the BSP. */
		t0 = cycles_begin();
		mk->fn[width](bufs + size + DST_SKEW, bufs, size, 1);
		t0 = cycles_end() - t0;
		passes = MC_MIN_SAMPLE_NS * (env->counter_hz / 1000000) / 1000 / (t0 ? t0 : 1) + 1;
		for (unsigned cpus = 1; cpus <= ncpu; cpus++) {
			for (unsigned c = 0; c < cpus; c++) {
				uint8_t *base = bufs + c * (2 * size + DST_SKEW);

				jobs[c] = (struct mc_job){ .fn = mk->fn[width], .dst = base + size + DST_SKEW, .src = base,
							   .bytes = size, .passes = passes,
							   .clock = clocks ? &clocks[c] : 0 };
				if (clocks)
					clocks[c].n = 0;
				args[c] = &jobs[c];
			}
			if (!run_config(env, cpus, ncpu, jobs, args, cr, core_pmu, samples, timeout)) {
				emit_msg(MSG_ERROR, "a core did not finish its multi-core bandwidth job in time");
				return PROBE_FAILED;
			}
			for (unsigned c = 0; c < cpus; c++)
				emit_set(env, mk->name, simd_bits((enum simd_width)width), size * (mk->reads + mk->writes),
					 size, cpus, (int)c, passes, samples + c * n, n, cr[c], jobs[c].clock);
			emit_set(env, mk->name, simd_bits((enum simd_width)width),
				 (uint64_t)cpus * size * (mk->reads + mk->writes), size, cpus, -1, passes,
				 samples + ncpu * n, n, cr[ncpu], 0);
		}
	}
	return PROBE_OK;
}

const struct probe_desc probe_membw_mc = {
	.name = "membw_mc",
	.what = "aggregate and per-core bandwidth on 1..N cores with a common start",
	.run = membw_mc_run,
	.options = "samples,pmu_events,mem_max_mb",
};
