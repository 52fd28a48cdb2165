/* What a probe sees of the machine and of the run, and how it declares itself. Probes use only
 * this, arch/ and drivers/ interfaces — never UEFI — so they also build hosted under Linux. */
#ifndef BENCH_PROBE_H
#define BENCH_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/cpu_info.h"
#include "arch/pmu.h"
#include "bench/core/arena.h"
#include "bench/core/options.h"
#include "lib/record.h"

enum probe_status { PROBE_OK, PROBE_SKIPPED, PROBE_FAILED };

struct irq_platform;
struct trap_info;

struct probe_env {
	const struct config *cfg;
	const struct cpu_info *cpu;
	struct arena *arena;
	uint64_t counter_hz;          /* calibrated; 0 = unknown */
	uint64_t timer_overhead;  /* median cycles of an empty cycles_begin()..cycles_end() */
	uint64_t target_cycles;   /* minimum duration of one runner sample */
	uint32_t next_set;        /* sample-set ids, unique within the boot */
	uint32_t pass;            /* pass of the probe list (repeat=), 1..N; 0: one pass, not marked */
	const char *current;      /* probe running now, for fault records */
	bool traps;               /* faults are caught (bare metal) */
	const char *page_size;    /* page size mapping the arena ("4K", "2M", ...), NULL = unknown */
	struct arena *exec_arena; /* executable memory for generated code (I-cache fill), or NULL */
	bool simd_enabled;        /* bare metal enabled XSAVE state itself */
	const struct pmu_info *pmu; /* discovered PMU (present or why not); NULL = not discovered */
	struct irq_platform *irq; /* interrupt sources (bare metal), NULL when there are none */
	/* Report an exception a probe learnt of itself (one another CPU took) as the suite reports its
	 * own: a `fault` record, counted. Set by suite_init. */
	void (*report_fault)(const struct trap_info *info);
};

/* A probe declares itself once, in its own file, as `const struct probe_desc probe_<name>`,
 * and is listed by one line of bench/core/registry.def (docs/hacking.md: adding a probe). */
struct probe_desc {
	const char *name;
	const char *what; /* one line: what it measures (docs/options.md, docs/probes.md) */
	enum probe_status (*run)(struct probe_env *env);
	/* The options (bench/core/options.def) the probe reads, comma-separated, or NULL: none. The
	 * runner's own (samples, target_ns, pmu_events) are listed by the probes that use it. */
	const char *options;
	bool expects_fault; /* a test probe that must end in an exception */
	/* Why the sampling profiler cannot run over this probe (it takes interrupts itself, or masks
	 * them throughout), or NULL. */
	const char *unprofiled;
	/* Run after the probe however it ended (also after a fault abandoned it): put back what it
	 * may have left armed. NULL: nothing to do. */
	void (*cleanup)(struct probe_env *env);
};

/* Start a `probe` record declaring a new sample set: name, set id, unit, n, iters, overhead and
 * counter_hz are filled in; the caller adds parameters and calls emit_finish(). Returns the set id. */
uint32_t probe_declare_set(struct probe_env *env, struct record **r, const char *name, uint64_t n,
			   uint64_t iters, uint64_t overhead);
/* The same with another unit than cycles (e.g. `count`: event counts per sample). */
uint32_t probe_declare_set_unit(struct probe_env *env, struct record **r, const char *name, const char *unit,
				uint64_t n, uint64_t iters, uint64_t overhead);

/* Sample storage from the arena, or NULL (the caller then emits a skip: out of memory). */
uint64_t *probe_sample_buffer(struct probe_env *env, uint64_t n);

#endif
