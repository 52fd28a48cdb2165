/* Which samples a profile keeps: those taken inside the measured region. The runner marks every
 * run of a probe's operation (bench/core/runner.h, runner_region_enter/leave); a sample the probe
 * CPU takes outside one — the probe's set-up, its records, the runner's bookkeeping between timed
 * runs, everything a repeated muted run redoes (extend.h) — is tabled under PROF_EVENT_OUTSIDE
 * and, when the drains pass it on, counted apart instead of attributed. A probe that marks no
 * region during its profile keeps every sample (its whole run is the measurement). Samples of
 * other CPUs are all kept: they sample only inside their share of an smp_run_all job. Pure
 * decisions over the table's entries, so they are unit-tested (tests/unit/test_prof_region.c). */
#ifndef BENCH_PROFILE_REGION_H
#define BENCH_PROFILE_REGION_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/profile/table.h"

/* The table's event index of a sample outside the region: never emitted (the run's event list
 * is far shorter). */
#define PROF_EVENT_OUTSIDE 0xFFFFu

/* The event a sample of `event` on `cpu` is tabled under (interrupt context). */
static inline uint16_t prof_region_event(unsigned cpu, bool in_region, uint16_t event)
{
	return cpu == 0 && !in_region ? PROF_EVENT_OUTSIDE : event;
}

/* What the drains of one CPU's table feed: its aggregate, and whether the probe has marked a
 * region in this profile (decided before any drain passes an outside entry on: the runner's
 * poll, the only drain during a run, comes after a region; the flush after the probe). */
struct prof_region_sink {
	struct prof_agg *agg;
	bool marked;
};

/* A prof_sink_fn (ctx: struct prof_region_sink): entries of a real event into the aggregate;
 * outside entries dropped when a region was marked (the handler counted their samples), else into
 * the aggregate as event 0 (the whole run attributed). */
void prof_region_sink(void *ctx, const struct prof_entry *e, uint32_t n);

/* The profile's samples on one CPU: all it took, or without those outside the region when one
 * was marked. */
static inline uint64_t prof_region_attributed(bool marked, uint64_t taken, uint64_t outside)
{
	return marked && taken >= outside ? taken - outside : taken;
}

#endif
