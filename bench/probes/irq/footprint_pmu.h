/* The footprint probe's miss counts: Schaelicke et al. count what an interrupt displaced by the
 * PMU's miss counts where a PMU exists, by time otherwise. Per cache level this resolves the
 * counter set (the level's demand-only miss event where this CPU's tables know one, the level's
 * general miss event otherwise, which may count prefetches: demand_only=0), programs it for the
 * whole level and reads it around every re-touch. Without a usable PMU the level is measured by
 * time and one skip record per probe, counter set and reason says why (bench/core/counters.c). The
 * hardware prefetchers are neither read nor changed. */
#ifndef BENCH_FP_PMU_H
#define BENCH_FP_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/core/counters.h"

struct fp_pmu {
	struct ctr_run cr;
	bool counted;         /* re-touches return the miss count of `event` (else: TSC cycles) */
	bool demand_only;     /* the counted event excludes prefetches */
	const char *event;    /* the counted event (generic name) */
	const char *vendor;   /* its vendor name, or NULL */
	const char *refused;  /* the counter was refused when programmed: why (a skip says it) */
	uint64_t read_faults; /* re-touches whose counter read faulted (their values are not counts) */
	bool skip_done;
};

/* The footprint counter set of a cache level (1: L1D, or L1I when `inst`; 2: L2): the demand-only
 * set where pi's event tables name its event, else the general one. *demand_only says which. */
const char *fp_pmu_set(const struct pmu_info *pi, unsigned level, bool inst, bool *demand_only);
/* Resolve, program and start the level's counter (nothing counts where no PMU can). */
void fp_pmu_begin(struct probe_env *env, struct fp_pmu *fp, unsigned level, bool inst);
/* fn(ctx, 1) between two reads of the counter: returns the counted event's delta. */
uint64_t fp_pmu_count(struct fp_pmu *fp, ctr_timed_fn fn, void *ctx);
/* The measure's fields of a probe record: method (pmu|time), event, vendor_event, demand_only,
 * prefetchers, ctr_set where counted (the set's samples are then the counts: no ctr records),
 * ctr_skipped where counters were asked for and cannot count, ctr_refused where refused. */
void fp_pmu_fields(const struct fp_pmu *fp, struct record *r);
/* The skip records (once per probe, counter set and reason) where the level is not counted but
 * counters were asked for; `set` is the first sample set of the level. */
void fp_pmu_skips(struct fp_pmu *fp, uint32_t set);
/* Stop and release the counter. */
void fp_pmu_end(struct fp_pmu *fp);

#endif
