/* A short human summary of the run, built as it goes: shown on screen at the end for a user who
 * has no serial cable (UEFI), or on stderr (hosted). Plain text, bounded size.
 *
 * Two parts: the details (summary_line, summary_value, ...: facts as the run states them, in
 * order) and the headline (summary_headline), computed here from what the run reports: the
 * counter's rate; read bandwidth and load latency per cache level and DRAM from the medians of
 * the `membw` read and `latency` random-chain sets; interrupt latency median and p99 per source
 * from the `irq_latency` sets; the checks passed and failed and the skips, counted from the
 * record stream itself (summary_record); the probes' outcomes; and where the records went. */
#ifndef BENCH_SUMMARY_H
#define BENCH_SUMMARY_H

#include "bench/core/probe.h"
#include "bench/core/summary_state.h"

#define SUMMARY_MAX 8192
/* The headline's text: what summary_headline writes at most. */
#define SUMMARY_HEADLINE_MAX 2048

/* The memory (cap bytes, at most SUMMARY_MAX are used; the headline's state comes out of it too)
 * comes from the environment: pool memory on UEFI, where a static buffer would be 8 KiB of the
 * .efi (gnu-efi keeps .bss in the file), a static buffer hosted. Lines before it, or without it,
 * are dropped, and the headline stays empty. */
void summary_init(char *buf, size_t cap);
void summary_line(const char *text);
/* "label: value unit" with value as a fixed-point decimal (value / 10^decimals). */
void summary_value(const char *label, uint64_t value, unsigned decimals, const char *unit);
/* A probe's outcome (the headline counts them; a skipped one is listed with the reason of the
 * last skip record before it). */
void summary_probe(const char *name, enum probe_status status);
void summary_fault(const char *name, const char *probe, bool expected);
void summary_status(const char *status, uint32_t records);
const char *summary_text(void);

/* The run starts: the counter's rate and the data/unified cache sizes per level (the levels'
 * size bands: a set belongs to level L when its buffer lies in [2 x size(L-1), size(L) / 2], to
 * DRAM from 4 x the last level's size on). */
void summary_begin(const struct probe_env *env);
/* A finished set of the runner: probe name, parameters (key, value, ..., NULL), the raw samples
 * (sorted here: call once they are emitted), iterations per sample and the timer overhead. The
 * headline keeps `membw` kernel=read (MB/s, best at a level's largest size) and `latency`
 * pattern=random (ns per load at a level's largest size). */
void summary_set(const char *probe, const char *const *params, uint64_t *samples, uint64_t n,
		 uint64_t iters, uint64_t overhead);
/* A finished interrupt-latency set: counter cycles from deadline to entry, sorted here. Kept per
 * source: its spin-wait set, else its first. */
void summary_irq(const char *source, const char *wait, uint64_t *samples, uint64_t n);
/* One record line as it is sent (the emit sink calls this): counts `check` records by status and
 * `skip` records, keeping the last skip's reason for summary_probe. */
void summary_record(const char *line, unsigned len);
/* Where the records went, one line each (e.g. "serial 0x3F8 at 115200 baud",
 * "\BAREMETRIC\RUN_007.LOG on the boot stick"); copied. At most SUMMARY_DESTINATIONS. */
void summary_destination(const char *text);
/* True while no destination was named: the screen is the only copy of the results. */
bool summary_only_copy(void);
/* The headline: lines of at most ~70 characters, NUL-terminated, cut at cap. counter_name:
 * what the cycle counter is ("TSC", "generic timer"). */
void summary_headline(char *buf, size_t cap, const char *counter_name);

/* The value of rank ceil(n x permille / 1000) (at least 1) of sorted[0..n); 0 for n = 0. Median:
 * the lower middle, sorted[(n - 1) / 2]. */
uint64_t summary_quantile(const uint64_t *sorted, uint64_t n, unsigned permille);
uint64_t summary_median(const uint64_t *sorted, uint64_t n);
/* a x b / c without overflowing where a x b would (then (a / c) x b); 0 for c = 0. */
uint64_t summary_muldiv(uint64_t a, uint64_t b, uint64_t c);

#endif
