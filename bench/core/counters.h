/* Counter sets attached to runner samples: which events a measurement asks for (the probe's
 * default set, or the pmu_events= option), their allocation into passes, reading them around every
 * sample, and the records that carry the per-sample deltas (`ctr`) — or, where the machine has no
 * usable PMU, the `skip` that says so. Pass 0 is the measurement whose times are the `samples`;
 * when the events outnumber the counters, each further pass repeats the same N samples with the
 * next group (never time-slicing inside one sample). Counter overhead — the deltas of an empty
 * sample, read exactly as a real one — is measured per pass and stated, not subtracted. A counter
 * whose programming is refused or whose read faults (a hypervisor filtering wrmsr or intercepting
 * rdpmc, on any CPU) is dropped from the set and reported as a refused event with the reason. */
#ifndef BENCH_COUNTERS_H
#define BENCH_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/pmu.h"
#include "bench/core/probe.h"

/* Default sets, by probe class. */
#define CTR_SET_SPIN "spin"
#define CTR_SET_BANDWIDTH "bandwidth"
#define CTR_SET_LATENCY_L1 "latency_l1"
#define CTR_SET_LATENCY_L2 "latency_l2"
#define CTR_SET_LATENCY_L3 "latency_l3"
#define CTR_SET_LATENCY_MEM "latency_mem"
#define CTR_SET_COST "pmu_cost"
#define CTR_SET_ICACHE "icache" /* the instruction-cache fill */
/* irq_footprint's re-touch: the misses of the level under test, Schaelicke's displaced lines;
 * demand-only where the CPU's tables have such an event (bench/probes/irq/footprint_pmu.c picks), else _any */
#define CTR_SET_FOOTPRINT_L1D "footprint_l1d"
#define CTR_SET_FOOTPRINT_L1D_ANY "footprint_l1d_any"
#define CTR_SET_FOOTPRINT_L1I "footprint_l1i"
#define CTR_SET_FOOTPRINT_L2 "footprint_l2"
#define CTR_SET_FOOTPRINT_L2_ANY "footprint_l2_any"
/* probe prim: instructions per iteration are its known answer; its branch kernels add the
 * branches and their mispredictions */
#define CTR_SET_PRIM "prim"
#define CTR_SET_PRIM_BRANCH "prim_branch"
#define CTR_SET_CONFIG "config" /* the pmu_events= list */

#define CTR_OVERHEAD_SAMPLES 33

/* A function that runs one timed sample of `iters` operations and returns its TSC cycles. */
typedef uint64_t (*ctr_timed_fn)(void *ctx, uint64_t iters);

struct ctr_run {
	struct probe_env *env;
	const char *probe;
	const char *set_name;
	bool requested;   /* counters were asked for */
	bool active;      /* ... and this machine reads them */
	unsigned nnames;
	const char *names[PMU_MAX_EVENTS];
	char names_buf[CONFIG_PROBES_MAX];
	unsigned ndropped; /* names past PMU_MAX_EVENTS */
	uint64_t n;
	struct pmu_plan plan;
	uint64_t *vals[PMU_MAX_PASSES];     /* plan.pass[p].n rows of n deltas */
	uint64_t *pass_tsc[PMU_MAX_PASSES]; /* TSC cycles of the repeated samples, passes > 0 */
	uint64_t overhead[PMU_MAX_PASSES][PMU_MAX_EVENTS];
	uint64_t wraps[PMU_MAX_PASSES][PMU_MAX_EVENTS];
	uint64_t ovf[PMU_MAX_PASSES];
	/* Counters whose register writes were refused or whose reads faulted (on this CPU): refused
	 * events with the reason, never values. */
	struct pmu_faults faults[PMU_MAX_PASSES];
	void (*prepare)(void *ctx); /* optional: runs before each sample's first counter read */
	/* Hybrid parts: the core type of the CPU that ran the set (pmu_cpu_core_type at each pass's
	 * begin), NULL elsewhere; the record's core_type. */
	const char *core_type;
	/* The PMU description the set is planned and programmed with: env->pmu, or the core's own on
	 * a hybrid part (ctr_prepare_scoped_on). */
	const struct pmu_info *pmu;
	unsigned pass;              /* the pass being measured */
};

/* The latency set for a buffer of `size` bytes: the cache level it fits in decides which miss
 * counts matter (the misses into that level and out of it). */
const char *ctr_latency_set(const struct cpu_info *ci, uint64_t size);
/* The event list of a default set, or NULL. */
const char *ctr_set_events(const char *set_name);

/* Resolve the events for one measurement of n samples (NULL default_set: none unless configured).
 * Returns the number of passes to run with counters: 0 = measure without (not requested, no PMU,
 * or no storage). */
unsigned ctr_prepare(struct ctr_run *cr, struct probe_env *env, const char *probe,
		     const char *default_set, uint64_t n);

/* Which of a set's events one measurement takes when several cores measure at once. The
 * package-wide counters (RAPL's energy_pkg, energy_dram, energy_core: one counter per package,
 * whichever core reads it) would show every core the whole package's energy, so they belong to
 * the aggregate measurement only. */
enum ctr_scope {
	CTR_SCOPE_CORE,    /* a core's own set: the package-wide events this CPU can count are
			    * refused with the reason (the aggregate counts them) */
	CTR_SCOPE_PACKAGE, /* the aggregate: only the package-wide events this CPU can count (none:
			    * not requested, the per-core sets already say why) */
};
/* ctr_prepare_scoped with the PMU description of the core that will run the set (a hybrid part's
 * core of another type than the boot processor's: pmu_discover_this_cpu on it). */
unsigned ctr_prepare_scoped_on(struct ctr_run *cr, struct probe_env *env, const struct pmu_info *pmu,
			       const char *probe, const char *default_set, uint64_t n, enum ctr_scope scope);
unsigned ctr_prepare_scoped(struct ctr_run *cr, struct probe_env *env, const char *probe,
			    const char *default_set, uint64_t n, enum ctr_scope scope);
/* True for the package-wide event names (see enum ctr_scope). */
bool ctr_package_event(const char *name);
/* Program and start pass p's group and measure its overhead. */
void ctr_pass_begin(struct ctr_run *cr, unsigned p);
/* One sample: counters read around fn(ctx, iters); stores the deltas; returns fn's cycles. */
uint64_t ctr_sample(struct ctr_run *cr, unsigned p, uint64_t i, ctr_timed_fn fn, void *ctx, uint64_t iters);
void ctr_pass_end(struct ctr_run *cr, unsigned p);
/* Counter fields of the probe record (nothing when inactive). */
void ctr_describe(const struct ctr_run *cr, struct record *r);
/* After the samples: `ctr` records, or `skip` records when counters were asked for but cannot be
 * read here; refused events are reported once per probe, set and event. */
void ctr_emit(struct ctr_run *cr, uint32_t set);
/* Finish a set's `probe` record r with its counter fields, then emit its samples and its counter
 * records: the order every counted set follows. cr NULL: a set without counters. */
void ctr_finish_set(struct ctr_run *cr, struct record *r, uint32_t set, const uint64_t *samples, uint64_t n);

#endif
