/* How long a profile with the automatic period runs: the probe is run again (its records muted,
 * bench/core/suite.c) until the profile holds PROF_EXTEND_MIN_SAMPLES samples, bounded in time
 * and runs. A share out of a handful of samples says nothing (one sample is "100%"); ~1,000 give
 * a 10% share a 95% interval of about +-2 points. Pure decisions, so they are unit-tested. */
#ifndef BENCH_PROFILE_EXTEND_H
#define BENCH_PROFILE_EXTEND_H

#include <stdbool.h>
#include <stdint.h>

#define PROF_EXTEND_MIN_SAMPLES 1000
#define PROF_EXTEND_MAX_MS 20000 /* the profiled runs of one probe together, first run included */
#define PROF_EXTEND_MAX_RUNS 100000 /* a safety bound: the time bound is the real one */

enum prof_extend_stop {
	PROF_EXTEND_GOING,        /* another run is due */
	PROF_EXTEND_FIXED_PERIOD, /* the period was given (profile_period): one run, as asked */
	PROF_EXTEND_SAMPLES,      /* enough samples */
	PROF_EXTEND_TIME,         /* another run would pass the time bound */
	PROF_EXTEND_RUNS,         /* the run bound */
	PROF_EXTEND_FAILED,       /* a run did not end well: the profile keeps the runs before it */
};

struct prof_extend {
	bool active;          /* automatic period: extension allowed */
	uint64_t min_samples;
	uint64_t max_cycles;  /* the time bound in counter cycles (0: unknown rate, no extension) */
	uint32_t max_runs;
	uint32_t runs;        /* finished runs of the probe in the profile */
	enum prof_extend_stop stop;
};

/* Before the first run: `active` for the automatic period; the bound from the counter's rate. */
void prof_extend_init(struct prof_extend *e, bool active, uint64_t counter_hz);

/* After a run (ok: it ended PROBE_OK without a fault), with the samples the profile holds, the
 * cycles since the first run began and the last run's cycles: true when the probe is to run
 * again; otherwise e->stop says why not. */
bool prof_extend_next(struct prof_extend *e, bool ok, uint64_t samples, uint64_t elapsed, uint64_t last_run);

/* The stop reason as the prof begin record's `extend_stop` names it. */
const char *prof_extend_stop_name(enum prof_extend_stop s);

#endif
