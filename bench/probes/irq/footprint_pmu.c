/* The footprint probe's miss counts (see bench/probes/irq/footprint_pmu.h). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "bench/probes/irq/footprint_pmu.h"

#include "lib/emit.h"
#include "lib/fmt.h"

#define FP_PROBE "irq_footprint"
#define FP_CTR 0 /* the measure: the first counter of pass 0 (the set's only event by default) */

static const struct {
	unsigned level;
	bool inst;
	const char *demand_set, *demand_event; /* NULL: no demand-only variant */
	const char *any_set;
} level_sets[] = {
	{ 1, false, CTR_SET_FOOTPRINT_L1D, "l1d_demand_misses", CTR_SET_FOOTPRINT_L1D_ANY },
	{ 2, false, CTR_SET_FOOTPRINT_L2, "l2_demand_misses", CTR_SET_FOOTPRINT_L2_ANY },
	{ 1, true, 0, 0, CTR_SET_FOOTPRINT_L1I },
};

#define NUM_LEVEL_SETS (sizeof(level_sets) / sizeof(level_sets[0]))

/* Events that count demand misses only (pmu_events.c: the vendors' demand-only events). */
static bool demand_event(const char *name)
{
	for (unsigned i = 0; i < NUM_LEVEL_SETS; i++)
		if (level_sets[i].demand_event && str_eq(level_sets[i].demand_event, name))
			return true;
	return false;
}

const char *fp_pmu_set(const struct pmu_info *pi, unsigned level, bool inst, bool *demand_only)
{
	*demand_only = false;
	for (unsigned i = 0; i < NUM_LEVEL_SETS; i++) {
		if (level_sets[i].level != level || level_sets[i].inst != inst)
			continue;
		if (level_sets[i].demand_set && pmu_has_event(pi, level_sets[i].demand_event)) {
			*demand_only = true;
			return level_sets[i].demand_set;
		}
		return level_sets[i].any_set;
	}
	return 0;
}

void fp_pmu_begin(struct probe_env *env, struct fp_pmu *fp, unsigned level, bool inst)
{
	bool demand;
	const char *set = fp_pmu_set(env->pmu, level, inst, &demand);
	const struct pmu_counter *c;

	*fp = (struct fp_pmu){ 0 };
	/* n = 1: the values of one re-touch at a time; the probe keeps its own series */
	if (!ctr_prepare(&fp->cr, env, FP_PROBE, set, 1) || !fp->cr.plan.pass[0].n)
		return;
	c = &fp->cr.plan.pass[0].c[FP_CTR];
	fp->event = c->name;
	ctr_pass_begin(&fp->cr, 0);
	if (fp->cr.faults[0].mask & (1u << FP_CTR)) {
		/* programmed but refused (a hypervisor filtering the PMU): time, and a skip says why */
		fp->refused = fp->cr.faults[0].why[FP_CTR] ? fp->cr.faults[0].why[FP_CTR] : "refused";
		ctr_pass_end(&fp->cr, 0);
		return;
	}
	fp->counted = true;
	fp->vendor = pmu_counter_vendor_name(c);
	fp->demand_only = demand_event(c->name);
}

uint64_t fp_pmu_count(struct fp_pmu *fp, ctr_timed_fn fn, void *ctx)
{
	(void)ctr_sample(&fp->cr, 0, 0, fn, ctx, 1);
	if (fp->cr.faults[0].mask & (1u << FP_CTR))
		fp->read_faults++; /* a faulted read leaves the counter refused from then on */
	return fp->cr.vals[0][FP_CTR];
}

void fp_pmu_fields(const struct fp_pmu *fp, struct record *r)
{
	rec_str(r, "method", fp->counted ? "pmu" : "time");
	if (fp->counted) {
		rec_str(r, "event", fp->event);
		if (fp->vendor)
			rec_str(r, "vendor_event", fp->vendor);
		rec_bool(r, "demand_only", fp->demand_only);
		if (fp->read_faults)
			rec_u64(r, "ctr_read_faults", fp->read_faults);
	}
	/* neither read nor written: on as after reset unless the platform firmware turned them off */
	rec_str(r, "prefetchers", "on");
	rec_bool(r, "prefetchers_changed", false);
	if (fp->counted) /* the samples are the counts (unit=misses): no ctr records follow */
		rec_str(r, "ctr_set", fp->cr.set_name);
	else
		ctr_describe(&fp->cr, r); /* ctr_skipped, or the refused counter */
}

void fp_pmu_skips(struct fp_pmu *fp, uint32_t set)
{
	struct record *r;

	if (fp->skip_done)
		return;
	fp->skip_done = true;
	if (!fp->cr.active) {
		ctr_emit(&fp->cr, set); /* nothing where counters were not asked for */
		return;
	}
	if (!fp->refused)
		return;
	r = emit_start("skip");
	rec_str(r, "probe", FP_PROBE);
	rec_u64(r, "set", set);
	rec_str(r, "ctr_set", fp->cr.set_name);
	rec_str(r, "event", fp->event);
	rec_str(r, "reason", fp->refused);
	emit_finish();
}

void fp_pmu_end(struct fp_pmu *fp)
{
	if (fp->counted) {
		ctr_pass_end(&fp->cr, 0);
		fp->counted = false;
	}
}
