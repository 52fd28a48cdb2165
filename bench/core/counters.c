/* Counter sets attached to runner samples (see counters.h). */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "bench/core/counters.h"

#include "arch/cycles.h"
#include "lib/emit.h"
#include "lib/fmt.h"
#include "lib/sort.h"

static const struct {
	const char *name;
	const char *events;
} default_sets[] = {
	{ CTR_SET_SPIN, "cycles,instructions" },
	{ CTR_SET_BANDWIDTH, "cycles,instructions,llc_misses,l1d_misses,l2_misses,aperf,mperf,energy_pkg,energy_dram" },
	{ CTR_SET_LATENCY_L1, "cycles,l1d_misses,dtlb_misses" },
	{ CTR_SET_LATENCY_L2, "cycles,l1d_misses,l2_misses,dtlb_misses" },
	{ CTR_SET_LATENCY_L3, "cycles,l2_misses,llc_misses,dtlb_misses" },
	{ CTR_SET_LATENCY_MEM, "cycles,llc_misses,dtlb_misses" },
	{ CTR_SET_COST, "cycles,instructions,l1d_misses,l1i_misses,l2_misses,llc_misses" },
	{ CTR_SET_ICACHE, "cycles,instructions,l1i_misses,itlb_misses,l2_misses" },
	{ CTR_SET_FOOTPRINT_L1D, "l1d_demand_misses" },
	{ CTR_SET_FOOTPRINT_L1D_ANY, "l1d_misses" },
	{ CTR_SET_FOOTPRINT_L1I, "l1i_misses" },
	{ CTR_SET_FOOTPRINT_L2, "l2_demand_misses" },
	{ CTR_SET_FOOTPRINT_L2_ANY, "l2_misses" },
	{ CTR_SET_PRIM, "cycles,instructions" },
	{ CTR_SET_PRIM_BRANCH, "cycles,instructions,branches,branch_misses" },
};

#define NUM_SETS (sizeof(default_sets) / sizeof(default_sets[0]))

const char *ctr_set_events(const char *set_name)
{
	for (unsigned i = 0; i < NUM_SETS; i++)
		if (str_eq(default_sets[i].name, set_name))
			return default_sets[i].events;
	return 0;
}

const char *ctr_latency_set(const struct cpu_info *ci, uint64_t size)
{
	static const char *const by_level[] = { CTR_SET_LATENCY_L1, CTR_SET_LATENCY_L2, CTR_SET_LATENCY_L3 };
	unsigned best = 0;
	uint64_t best_size = 0;

	for (unsigned i = 0; i < ci->num_caches; i++) {
		const struct cache_desc *c = &ci->caches[i];

		/* a geometry that is no cache's size picks no level (the _mem set: LLC and TLB misses) */
		if (c->type == CACHE_INST || c->geometry_unknown || c->level < 1 || c->level > 3 || c->size < size)
			continue;
		if (!best || c->size < best_size) {
			best = c->level;
			best_size = c->size;
		}
	}
	return best ? by_level[best - 1] : CTR_SET_LATENCY_MEM;
}

/* Split the comma list into names (in names_buf); names past the limit are counted, not kept. */
static void split_names(struct ctr_run *cr, const char *list)
{
	char *s;

	str_copy(cr->names_buf, list, sizeof(cr->names_buf));
	s = cr->names_buf;
	while (*s) {
		char *start = s;

		while (*s && *s != ',')
			s++;
		if (*s)
			*s++ = '\0';
		if (!*start)
			continue;
		if (cr->nnames < PMU_MAX_EVENTS)
			cr->names[cr->nnames++] = start;
		else
			cr->ndropped++;
	}
}

bool ctr_package_event(const char *name)
{
	return str_eq(name, "energy_pkg") || str_eq(name, "energy_dram") || str_eq(name, "energy_core");
}

#define PACKAGE_WHY "package-wide counter: counted on the aggregate set (cpu=all), not per core"

/* Keep the names scope takes (see enum ctr_scope); what it drops that this CPU counts is
 * refused after planning (CORE), the rest stays for the planner's own reason. */
static void scope_names(struct ctr_run *cr, enum ctr_scope scope, const char **moved, unsigned *nmoved)
{
	struct pmu_plan *scratch = &cr->plan; /* the final plan is made after this */
	const char *pkg[PMU_MAX_EVENTS];
	unsigned npkg = 0, k = 0;

	*nmoved = 0;
	for (unsigned i = 0; i < cr->nnames; i++)
		if (ctr_package_event(cr->names[i]))
			pkg[npkg++] = cr->names[i];
	/* a package name the planner places is one this CPU counts */
	(void)pmu_plan_events(cr->pmu, pkg, npkg, scratch);
	for (unsigned i = 0; i < cr->nnames; i++) {
		const char *name = cr->names[i];
		bool package = ctr_package_event(name), counted = false;

		for (unsigned p = 0; p < scratch->npasses; p++)
			for (unsigned c = 0; c < scratch->pass[p].n; c++)
				counted = counted || str_eq(scratch->pass[p].c[c].name, name);
		if (scope == CTR_SCOPE_PACKAGE ? package && counted : !(package && counted))
			cr->names[k++] = name;
		else if (scope == CTR_SCOPE_CORE)
			moved[(*nmoved)++] = name;
	}
	cr->nnames = k;
}

/* The names of cr's list resolved, planned and the sample storage taken: ctr_prepare's work. */
static unsigned plan_and_store(struct ctr_run *cr, const char *const *moved, unsigned nmoved)
{
	(void)pmu_plan_events(cr->pmu, cr->names, cr->nnames, &cr->plan);
	for (unsigned i = 0; i < nmoved && cr->plan.nrefused < PMU_MAX_EVENTS; i++) {
		cr->plan.refused[cr->plan.nrefused] = moved[i];
		cr->plan.refused_why[cr->plan.nrefused++] = PACKAGE_WHY;
	}
	if (!cr->plan.npasses)
		return 0;
	for (unsigned p = 0; p < cr->plan.npasses; p++) {
		cr->vals[p] = probe_sample_buffer(cr->env, cr->n * cr->plan.pass[p].n);
		cr->pass_tsc[p] = p ? probe_sample_buffer(cr->env, cr->n) : 0;
		if (!cr->vals[p] || (p && !cr->pass_tsc[p]))
			return 0; /* ctr_emit then reports the skip */
	}
	cr->active = true;
	return cr->plan.npasses;
}

/* The set's names (the default set, or pmu_events=) into cr; false when none are asked for. */
static bool resolve(struct ctr_run *cr, struct probe_env *env, const struct pmu_info *pmu, const char *probe,
		    const char *default_set, uint64_t n)
{
	const char *cfg = env->cfg->pmu_events;
	const char *list;

	*cr = (struct ctr_run){ .env = env, .pmu = pmu, .probe = probe, .n = n };
	if (str_eq(cfg, "none"))
		return false;
	if (str_eq(cfg, "auto")) {
		list = default_set ? ctr_set_events(default_set) : 0;
		cr->set_name = default_set;
	} else {
		list = cfg;
		cr->set_name = CTR_SET_CONFIG;
	}
	if (!list)
		return false;
	split_names(cr, list);
	return true;
}

unsigned ctr_prepare(struct ctr_run *cr, struct probe_env *env, const char *probe,
		     const char *default_set, uint64_t n)
{
	if (!resolve(cr, env, env->pmu, probe, default_set, n))
		return 0;
	cr->requested = cr->nnames > 0;
	if (!cr->requested || !pmu_usable(env->pmu))
		return 0;
	return plan_and_store(cr, 0, 0);
}

unsigned ctr_prepare_scoped_on(struct ctr_run *cr, struct probe_env *env, const struct pmu_info *pmu,
			       const char *probe, const char *default_set, uint64_t n, enum ctr_scope scope)
{
	const char *moved[PMU_MAX_EVENTS];
	unsigned nmoved = 0;

	if (!resolve(cr, env, pmu, probe, default_set, n))
		return 0;
	cr->requested = cr->nnames > 0 && (scope == CTR_SCOPE_CORE || pmu_usable(pmu));
	if (!cr->requested || !pmu_usable(pmu))
		return 0; /* CORE: the skip says why; PACKAGE: the per-core sets already do */
	scope_names(cr, scope, moved, &nmoved);
	if (scope == CTR_SCOPE_PACKAGE && !cr->nnames) {
		cr->requested = false; /* nothing package-wide this CPU counts: no fields, no skips */
		return 0;
	}
	return plan_and_store(cr, moved, nmoved);
}

unsigned ctr_prepare_scoped(struct ctr_run *cr, struct probe_env *env, const char *probe,
			    const char *default_set, uint64_t n, enum ctr_scope scope)
{
	return ctr_prepare_scoped_on(cr, env, env->pmu, probe, default_set, n, scope);
}

/* Counters that faulted on a read become refused events (the first reason stays). */
static void read_faults(struct ctr_run *cr, unsigned p, uint32_t bad)
{
	struct pmu_faults *f = &cr->faults[p];

	for (unsigned k = 0; bad && k < cr->plan.pass[p].n; k++)
		if ((bad & (1u << k)) && !(f->mask & (1u << k))) {
			f->why[k] = pmu_read_fault_why(&cr->plan.pass[p].c[k]);
			f->mask |= 1u << k;
		}
}

static bool refused_counter(const struct ctr_run *cr, unsigned p, unsigned k)
{
	return cr->faults[p].mask & (1u << k);
}

static void read_around(struct ctr_run *cr, unsigned p, ctr_timed_fn fn, void *ctx, uint64_t iters,
			uint64_t *delta, uint64_t *cycles, bool *wrapped)
{
	const struct pmu_info *pi = cr->pmu;
	const struct pmu_group *g = &cr->plan.pass[p];
	uint64_t a[PMU_MAX_EVENTS], b[PMU_MAX_EVENTS];
	uint32_t bad;

	if (cr->prepare && fn)
		cr->prepare(ctx);
	bad = pmu_read(pi, g, a);
	*cycles = fn ? fn(ctx, iters) : cycles_end() - cycles_begin();
	bad |= pmu_read(pi, g, b);
	read_faults(cr, p, bad);
	for (unsigned k = 0; k < g->n; k++) {
		delta[k] = pmu_delta(a[k], b[k], g->c[k].mask);
		wrapped[k] = b[k] < a[k];
	}
}

#define WHY_OTHER_CORE_TYPE "this core's type differs from the one the PMU was discovered on (hybrid part)"

void ctr_pass_begin(struct ctr_run *cr, unsigned p)
{
	const struct pmu_group *g = &cr->plan.pass[p];
	uint64_t ov[PMU_MAX_EVENTS][CTR_OVERHEAD_SAMPLES];
	uint64_t d[PMU_MAX_EVENTS], cycles;
	bool wrapped[PMU_MAX_EVENTS];

	cr->pass = p;
	cr->faults[p] = (struct pmu_faults){ 0 };
	pmu_cpu_prepare(cr->pmu); /* an application processor: the boot CPU's settings */
	/* A hybrid part: the plan is for the core type the PMU was discovered on (its counters and
	 * event codes); on a core of another type every counter is refused, none programmed. */
	cr->core_type = pmu_cpu_core_type(cr->pmu);
	if (cr->core_type && !str_eq(cr->core_type, pmu_core_type(cr->pmu))) {
		for (unsigned k = 0; k < g->n; k++)
			cr->faults[p].why[k] = WHY_OTHER_CORE_TYPE;
		cr->faults[p].mask = (uint32_t)((1ull << g->n) - 1);
	} else {
		pmu_program(cr->pmu, g, &cr->faults[p]);
		pmu_start(cr->pmu, g, &cr->faults[p]);
	}
	/* The empty sample: the same reads around an empty cycles_begin()..cycles_end() pair. One warm-up. */
	read_around(cr, p, 0, 0, 0, d, &cycles, wrapped);
	for (unsigned s = 0; s < CTR_OVERHEAD_SAMPLES; s++) {
		read_around(cr, p, 0, 0, 0, d, &cycles, wrapped);
		for (unsigned k = 0; k < g->n; k++)
			ov[k][s] = d[k];
	}
	for (unsigned k = 0; k < g->n; k++)
		cr->overhead[p][k] = median_u64(ov[k], CTR_OVERHEAD_SAMPLES);
}

uint64_t ctr_sample(struct ctr_run *cr, unsigned p, uint64_t i, ctr_timed_fn fn, void *ctx, uint64_t iters)
{
	const struct pmu_group *g = &cr->plan.pass[p];
	uint64_t d[PMU_MAX_EVENTS], cycles;
	bool wrapped[PMU_MAX_EVENTS];

	read_around(cr, p, fn, ctx, iters, d, &cycles, wrapped);
	for (unsigned k = 0; k < g->n; k++) {
		cr->vals[p][k * cr->n + i] = d[k];
		cr->wraps[p][k] += wrapped[k];
	}
	if (p)
		cr->pass_tsc[p][i] = cycles;
	return cycles;
}

void ctr_pass_end(struct ctr_run *cr, unsigned p)
{
	cr->ovf[p] = pmu_stop(cr->pmu, &cr->plan.pass[p]);
	pmu_release(cr->pmu, &cr->plan.pass[p]);
}

static void join(struct sbuf *sb, const char *const *names, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (i)
			sb_putc(sb, ',');
		sb_puts(sb, names[i]);
	}
}

void ctr_describe(const struct ctr_run *cr, struct record *r)
{
	const char *names[PMU_MAX_EVENTS * PMU_MAX_PASSES];
	const char *refused[PMU_MAX_EVENTS * (PMU_MAX_PASSES + 1)];
	unsigned n = 0, nr = 0;
	char buf[CONFIG_PROBES_MAX];
	struct sbuf sb;

	if (!cr->active) {
		if (cr->requested)
			rec_str(r, "ctr_skipped", cr->set_name); /* the skip record says why, once */
		return;
	}
	for (unsigned i = 0; i < cr->plan.nrefused; i++)
		refused[nr++] = cr->plan.refused[i];
	for (unsigned p = 0; p < cr->plan.npasses; p++)
		for (unsigned k = 0; k < cr->plan.pass[p].n; k++) {
			if (refused_counter(cr, p, k))
				refused[nr++] = cr->plan.pass[p].c[k].name;
			else
				names[n++] = cr->plan.pass[p].c[k].name;
		}
	rec_str(r, "ctr_set", cr->set_name);
	if (cr->core_type) /* hybrid parts only: which core type ran the set */
		rec_str(r, "core_type", cr->core_type);
	sb_init(&sb, buf, sizeof(buf));
	join(&sb, names, n);
	rec_str(r, "ctr_events", buf);
	rec_u64(r, "ctr_passes", cr->plan.npasses);
	if (nr) {
		sb_init(&sb, buf, sizeof(buf));
		join(&sb, refused, nr);
		rec_str(r, "ctr_refused", buf);
	}
}

/* Counter skips are reported once, not once per set (a sweep has hundreds of sets; the probe
 * record's ctr_refused / ctr_skipped still names them for every set): a refused event once per
 * probe, counter set and event (reason NULL); a set whose counters cannot be read at all once per
 * probe, counter set and reason (event ""). What was reported is kept as a 64-bit FNV-1a hash of
 * the four strings (768 bytes instead of copies of them: static memory is file size in the
 * .efi, docs/hacking.md); two different skips sharing a hash among 96 is a 1-in-10^15 chance. */
#define REPORTED_MEMORY 96
#define FNV64_OFFSET 0xcbf29ce484222325ull
#define FNV64_PRIME 0x100000001b3ull
static uint64_t reported[REPORTED_MEMORY];
static unsigned n_reported;

/* FNV-1a over the string and its terminator (so "ab","c" and "a","bc" differ). */
static uint64_t fnv64_str(uint64_t h, const char *s)
{
	do {
		h = (h ^ (uint8_t)*s) * FNV64_PRIME;
	} while (*s++);
	return h;
}

static bool first_report(const char *probe, const char *set, const char *event, const char *reason)
{
	uint64_t h = fnv64_str(fnv64_str(fnv64_str(fnv64_str(FNV64_OFFSET, probe), set), event), reason ? reason : "");

	for (unsigned i = 0; i < n_reported; i++)
		if (reported[i] == h)
			return false;
	if (n_reported < REPORTED_MEMORY)
		reported[n_reported++] = h;
	return true;
}

static void skip_set(const struct ctr_run *cr, uint32_t set, const char *reason)
{
	struct record *r;
	char buf[CONFIG_PROBES_MAX];
	struct sbuf sb;

	if (!first_report(cr->probe, cr->set_name, "", reason))
		return;
	r = emit_start("skip");

	sb_init(&sb, buf, sizeof(buf));
	join(&sb, cr->names, cr->nnames);
	rec_str(r, "probe", cr->probe);
	rec_u64(r, "set", set);
	rec_str(r, "ctr_set", cr->set_name);
	rec_str(r, "events", buf);
	rec_str(r, "reason", reason);
	emit_finish();
}

static void skip_event(const struct ctr_run *cr, uint32_t set, const char *event, const char *reason)
{
	struct record *r;

	if (!first_report(cr->probe, cr->set_name, event, 0))
		return;
	r = emit_start("skip");
	rec_str(r, "probe", cr->probe);
	rec_u64(r, "set", set);
	rec_str(r, "ctr_set", cr->set_name);
	rec_str(r, "event", event);
	rec_str(r, "reason", reason);
	emit_finish();
}

static void emit_event(const struct ctr_run *cr, uint32_t set, unsigned p, const char *name,
		       const uint64_t *values, uint64_t overhead, uint64_t wraps)
{
	char pass[8], ov[24], wr[24];
	const char *fields[] = { "event", name, "pass", pass, "overhead", ov, "wraps", wr, 0 };
	struct sbuf sb;

	sb_init(&sb, pass, sizeof(pass));
	sb_u64(&sb, p);
	sb_init(&sb, ov, sizeof(ov));
	sb_u64(&sb, overhead);
	sb_init(&sb, wr, sizeof(wr));
	sb_u64(&sb, wraps);
	emit_values("ctr", set, fields, values, cr->n);
}

void ctr_emit(struct ctr_run *cr, uint32_t set)
{
	if (!cr->requested)
		return;
	if (!cr->active) {
		const struct pmu_info *pi = cr->pmu;

		skip_set(cr, set, !pi ? "PMU not discovered in this build"
			 : !pmu_usable(pi) ? pi->reason
			 : cr->plan.npasses ? "no room in the arena for the counter values"
			 : !pi->present ? pi->reason
					: "none of the requested events can be counted on this CPU");
		for (unsigned i = 0; pi && pi->present && i < cr->plan.nrefused; i++)
			skip_event(cr, set, cr->plan.refused[i], cr->plan.refused_why[i]);
		return;
	}
	for (unsigned i = 0; i < cr->plan.nrefused; i++)
		skip_event(cr, set, cr->plan.refused[i], cr->plan.refused_why[i]);
	if (cr->ndropped)
		skip_event(cr, set, "more", "more than 16 events in one set: the rest were dropped");
	for (unsigned p = 0; p < cr->plan.npasses; p++) {
		const struct pmu_group *g = &cr->plan.pass[p];

		if (p)
			emit_event(cr, set, p, "tsc", cr->pass_tsc[p], cr->env->timer_overhead, 0);
		for (unsigned k = 0; k < g->n; k++) {
			if (refused_counter(cr, p, k)) {
				skip_event(cr, set, g->c[k].name, cr->faults[p].why[k]);
				continue;
			}
			emit_event(cr, set, p, g->c[k].name, cr->vals[p] + k * cr->n, cr->overhead[p][k],
				   cr->wraps[p][k]);
		}
		if (cr->ovf[p])
			emit_msg(MSG_WARN, "a counter overflowed its width during a pass (deltas are width-masked)");
	}
}

void ctr_finish_set(struct ctr_run *cr, struct record *r, uint32_t set, const uint64_t *samples, uint64_t n)
{
	if (cr)
		ctr_describe(cr, r);
	emit_finish();
	emit_samples(set, samples, n);
	if (cr)
		ctr_emit(cr, set);
}
