/* The profile's run extension (see extend.h). */
/* OPT_FAST: -O2 (Makefile): the profiler's sampling path and the counters it reads. */
#include "bench/profile/extend.h"

#define MS_PER_S 1000

void prof_extend_init(struct prof_extend *e, bool active, uint64_t counter_hz)
{
	*e = (struct prof_extend){
		.active = active,
		.min_samples = PROF_EXTEND_MIN_SAMPLES,
		.max_cycles = counter_hz / MS_PER_S * PROF_EXTEND_MAX_MS,
		.max_runs = PROF_EXTEND_MAX_RUNS,
		.stop = active ? PROF_EXTEND_GOING : PROF_EXTEND_FIXED_PERIOD,
	};
}

bool prof_extend_next(struct prof_extend *e, bool ok, uint64_t samples, uint64_t elapsed, uint64_t last_run)
{
	e->runs++;
	if (e->stop != PROF_EXTEND_GOING)
		return false;
	if (!ok)
		e->stop = PROF_EXTEND_FAILED;
	else if (samples >= e->min_samples)
		e->stop = PROF_EXTEND_SAMPLES;
	else if (e->runs >= e->max_runs)
		e->stop = PROF_EXTEND_RUNS;
	else if (!e->max_cycles || elapsed + last_run > e->max_cycles)
		e->stop = PROF_EXTEND_TIME; /* the next run, as long as the last, would end past the bound */
	return e->stop == PROF_EXTEND_GOING;
}

const char *prof_extend_stop_name(enum prof_extend_stop s)
{
	static const char *const names[] = {
		[PROF_EXTEND_GOING] = "going", [PROF_EXTEND_FIXED_PERIOD] = "fixed_period",
		[PROF_EXTEND_SAMPLES] = "samples", [PROF_EXTEND_TIME] = "time",
		[PROF_EXTEND_RUNS] = "runs", [PROF_EXTEND_FAILED] = "failed",
	};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}
