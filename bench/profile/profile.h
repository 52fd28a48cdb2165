/* The sampling profiler (DCPI, Anderson et al. 1997): with option `profile`, a probe runs with a
 * sampling interrupt on (bench/profile/sampler.h: counter overflow or time), each sample's PC goes
 * into a per-CPU hash table (bench/profile/table.h), and after the probe the aggregated
 * (cpu, pc, event, count) entries are emitted as `prof` / `prof_data` records, with the image base
 * and build id the host needs to symbolise them, the handler's own cycles, and the profiler's
 * overhead measured on a calibrated spin loop with and without sampling, interleaved. The probe's
 * own records are those of an unprofiled run (their times include the sampling interrupts). Only
 * the samples taken inside the measured region are the profile (bench/profile/region.h). */
#ifndef BENCH_PROFILE_H
#define BENCH_PROFILE_H

#include <stdbool.h>

#include "bench/core/probe.h"

#define PROF_MAX_CPUS 64          /* per-CPU tables (one per CPU online, at most this; others' samples are counted) */
#define PROF_TABLE_SETS 512       /* 2048 entries, 32 KiB: DCPI's table is of this order */
#define PROF_OVF_ENTRIES 8192     /* per overflow buffer */
#define PROF_AGG_ENTRIES 32768    /* distinct (pc, event) pairs kept per CPU after aggregation */
#define PROF_HANDLER_SAMPLES 4096 /* handler durations kept for the median and p90 */
#define PROF_DATA_PER_RECORD 24   /* entries per prof_data record (a line stays under 1024 bytes) */
#define PROF_COST_ROUNDS 5        /* interleaved off/on rounds of the overhead measurement */
#define PROF_COST_ROUND_MS 10
#define PROF_TARGET_PPM 30000     /* the overhead goal at the default period: 3% */
#define PROF_AUTO_ROUNDS 3        /* the auto period's cost measurement (shorter) */
#define PROF_AUTO_ROUND_MS 10
#define PROF_AUTO_PERIOD_FACTOR 40 /* auto period >= 40 samples' cost: 2.5% */

/* Is `probe` to be profiled (option `profile`: a name list or "all")? */
bool profile_wanted(const struct config *cfg, const char *probe);
/* Before the probe runs (memory from the arena after the suite's mark): set up and start
 * sampling, or emit `skip part=profile` and return false. */
bool profile_start(struct probe_env *env, const struct probe_desc *p);
/* After a run of the probe (ok: it ended PROBE_OK without a fault): true when the suite is to run
 * it again, its records muted, because the automatic period's profile has too few samples yet
 * (bench/profile/extend.h). False when not profiling. The suite asks after every profiled
 * run, the first included, so `runs` and `extend_stop` are always set. */
bool profile_run_again(bool ok);
/* After the probe (however it ended): stop sampling, emit its records, measure the overhead. */
void profile_finish(struct probe_env *env, const struct probe_desc *p);

#endif
