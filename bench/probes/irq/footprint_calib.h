/* The footprint probe's cache level and its calibration (Schaelicke et al.'s experiment with the
 * interrupt replaced by a direct call of a handler of known footprint K): a pointer chain filling
 * the level (L2: 3/4 of it, see footprint_calib.c) with a second, reverse link per line, the fill (two forward laps), the timed re-touch
 * in the REVERSE order of the last fill (same-order re-touch lets each miss evict the line touched
 * next: the misses cascade), the per-line cost of a miss at that level, repetition until the
 * paper's confidence bound, the response curve over a grid of K per level and the held-out
 * footprint_k checks. Needs no interrupt: runs in the hosted build on real caches too. */
#ifndef BENCH_FP_CALIB_H
#define BENCH_FP_CALIB_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/cpu_info.h"
#include "bench/probes/irq/footprint_code.h"
#include "bench/probes/irq/footprint_pmu.h"
#include "bench/stats/footprint.h"
#include "bench/core/probe.h"
#include "lib/rand.h"

#define FP_VAR_MAX 24       /* variants measured side by side in one repetition */
#define FP_HELD_MAX 8       /* held-out K values */
#define FP_SAMPLE_CAP 4096  /* repetitions kept per variant at most */
/* One repetition of a variant keeps the fastest of this many fill/handler/re-touch rounds: other
 * activity on a shared machine only ever adds misses (a sibling's or a neighbour's lines), so the
 * fastest round is the least disturbed; calibration and interrupt measurements use the same rule,
 * so the curve absorbs its bias. */
#define FP_BEST_OF 3

struct fp_level {
	const struct cache_desc *c;
	bool inst;                       /* the instruction cache: code chains (footprint_code.c), not data */
	struct fp_code code;
	uint64_t nodes, line;            /* chain: one node per line of the level */
	void *head, *evict_head;
	uint64_t evict_nodes;
	volatile uint8_t *kbuf;          /* the known handler's own lines, a random chain from khead */
	void *khead;
	uint64_t kbuf_lines;
	uint64_t k_grid[FP_GRID_MAX];    /* the calibration grid (k_grid[0] = 0) */
	unsigned n_grid;
	uint64_t k_held[FP_HELD_MAX];    /* held-out K (not on the grid) */
	unsigned n_held;
	/* The measure of a re-touch: the level's miss count where the PMU counts it (pmu->counted:
	 * one miss is one line, cost_m = FP_MILLI), TSC cycles otherwise (cost_m: milli-cycles per
	 * line missed at this level). */
	struct fp_pmu *pmu;
	int64_t cost_m;
	int64_t cold_mpl_m;              /* counted: milli-misses per line of a cold re-touch */
	bool effect;                     /* a miss at this level costs (time) / counts (pmu) measurably */
	struct fp_curve curve;
	struct rand_state *rng;          /* the order of the variants in each repetition */
};

/* Repetitions of several variants measured side by side. */
typedef bool (*fp_sample_fn)(void *ctx, uint64_t *out); /* one value per variant; false: drop it */
struct fp_run {
	unsigned nvar;
	int ref[FP_VAR_MAX];      /* paired reference column of each variant, -1: estimate it raw */
	uint64_t *v[FP_VAR_MAX];  /* kept samples per variant */
	uint32_t n, cap;
	uint64_t dropped;         /* repetitions the sample function refused */
	bool hit_limit;           /* stopped by the time bound (or the cap), not by convergence */
	bool converged;
	int64_t floor_m;          /* convergence floor: one line's cost, milli-cycles */
	struct fp_est est[FP_VAR_MAX];
	int64_t *diff;
	uint64_t *scratch;
};

/* Prepare a level: chains, reverse links, handler buffer, grid and held-out K (`held` explicit
 * K values, or nheld = 0 for the level's default fractions), and its miss counter where the PMU
 * counts (footprint_pmu.c). False: it does not fit. fp_level_finish releases the counter. */
bool fp_level_prepare(struct probe_env *env, struct fp_level *lv, const struct cache_desc *c,
		      const uint64_t *held, unsigned nheld, struct rand_state *rng);
void fp_level_finish(struct fp_level *lv);
void fp_fill(const struct fp_level *lv);
/* Re-touch of every line in the reverse order of a forward walk that stopped before `next`: its
 * misses at the level where the PMU counts them, else its TSC cycles. */
uint64_t fp_retouch(const struct fp_level *lv, const void *next);
/* The known handler: write k lines of its own buffer (random lines, random order). */
void fp_touch(const struct fp_level *lv, uint64_t k);
/* order[0..n) := a random permutation of 0..n-1. */
void fp_shuffle(struct rand_state *rng, unsigned *order, unsigned n);
/* A forward walk of `loads` lines from `from`; returns where it stopped. */
void *fp_walk(void *from, uint64_t loads);

bool fp_run_init(struct probe_env *env, struct fp_run *r, unsigned nvar, uint32_t cap);
/* Repeat in batches of `batch` until every variant with a reference converged (when
 * `until_converged`), the TSC passes `deadline`, or the cap; then estimate all variants. */
void fp_repeat(struct fp_run *r, fp_sample_fn fn, void *ctx, uint64_t batch, uint64_t deadline,
	       bool until_converged);
/* Milli-lines of a milli-unit difference of the measure (cycles or misses) at this level. */
int64_t fp_lines_m(const struct fp_level *lv, int64_t cycles_m);

/* Recover K (milli) and its CI bounds from measured lines m +- ci (milli) through the curve. */
enum fp_inv fp_recover(const struct fp_curve *c, int64_t m, int64_t ci, int64_t *k, int64_t *lo, int64_t *hi);

/* Calibrate the level and judge its held-out K; emits the sets and checks. Adds failed checks
 * to *fails. False when the level shows no cache effect (a skip was emitted). */
bool fp_calibrate(struct probe_env *env, struct fp_level *lv, unsigned *fails);

/* Declare one sample set of the level: unit `misses` (overhead: the counter's) where counted,
 * `cycles` otherwise. */
uint32_t fp_declare_set(struct probe_env *env, struct record **r, const struct fp_level *lv, uint64_t n);
/* "data", "unified" or "inst". */
const char *fp_type_name(const struct fp_level *lv);
/* Common fields of the probe's records of this level. */
void fp_level_fields(struct record *r, const struct fp_level *lv);
uint64_t fp_deadline(const struct probe_env *env);

#endif
