/* Integer statistics of the footprint probe (the firmware has no floating point): the trimmed
 * mean of paired differences with its 95% confidence interval (Schaelicke et al. drop the high
 * and low outliers, then repeat until the CI is within 5% of the mean), and the calibration
 * curve (measured lines against the known footprint K of a directly called handler) with its
 * saturation point and piecewise-linear inversion. Values are in milli-units (x1000). */
#ifndef BENCH_FP_STATS_H
#define BENCH_FP_STATS_H

#include <stdbool.h>
#include <stdint.h>

#define FP_MILLI 1000
#define FP_TRIM_DIV 10      /* drop n/10 (at least 1) of the highest and of the lowest values */
#define FP_MIN_REPS 16      /* the paper's minimum number of repetitions */
#define FP_CI_PCT 5         /* converged: CI half-width within 5% of the mean... */
#define FP_GRID_MAX 16      /* points on one level's calibration curve (K = 0 included) */
/* A curve segment still responds when it rises by at least 1/4 of the slope of the chord from
 * (0, 0) to the grid point 5/8 of the way along (the level's own scale: the per-line cost that
 * converts time to lines is itself disturbed on a shared machine, so an absolute slope in lines
 * would move with it), and at least 1/10 line per K. */
#define FP_SLOPE_REL_DIV 4
#define FP_CHORD_NUM 5
#define FP_CHORD_DEN 8
#define FP_SLOPE_MIN_MILLI 100

/* Trimmed mean and CI of one set of (signed) values. */
struct fp_est {
	int64_t mean_m; /* trimmed mean, milli-units of the input */
	int64_t ci_m;   /* 95% CI half-width of that mean, milli-units */
	uint32_t used;  /* values left after trimming */
};

/* Trim and estimate v[0..n) (n >= 3); scratch holds n values. False when n < 3. */
bool fp_estimate(const int64_t *v, uint32_t n, uint64_t *scratch, struct fp_est *out);
/* The paper's stopping rule: CI within FP_CI_PCT % of |mean|, or within floor_m (one line's
 * worth: a mean near zero has no relative precision), after at least FP_MIN_REPS values. */
bool fp_converged(const struct fp_est *e, uint32_t n, int64_t floor_m);

/* One level's response curve: k[0] = 0 with m[0] = 0 (the K = 0 handler is the baseline). */
struct fp_curve {
	unsigned n;                /* points */
	uint64_t k[FP_GRID_MAX];   /* known footprints, increasing */
	int64_t m[FP_GRID_MAX];    /* measured lines, milli */
	int64_t ci[FP_GRID_MAX];   /* their CI half-widths, milli */
	unsigned valid;            /* index of the last point of the usable (unsaturated) range */
	unsigned lo;               /* index of its first point (>= 1) */
	int64_t min_slope;         /* milli-lines per K a responding segment rises by */
};

/* Sets c->valid and c->lo: the usable range ends with the curve's last responding segment (past
 * it the level is saturated) and reaches down through responding segments, at most to the first
 * grid point above K = 0: where the curve is flat or falls it cannot tell one K from another. It
 * starts at a point that measured more than K = 0's zero lines. */
void fp_curve_saturation(struct fp_curve *c);
/* First K past the usable range (the saturation point), 0 when the whole grid responds. */
uint64_t fp_curve_sat_k(const struct fp_curve *c);

enum fp_inv { FP_INV_OK, FP_INV_SATURATED, FP_INV_NEGATIVE, FP_INV_BELOW };
/* K (milli) of measured lines m (milli) by linear interpolation on the calibrated range
 * [k[lo], k[valid]]. Above m[valid]: saturated. Below m[lo]: below the range (*k_milli still the
 * interpolation towards (0, 0), for the record), unless below 0 by more than `tol` (milli lines,
 * the measurement's CI): negative. */
enum fp_inv fp_curve_invert(const struct fp_curve *c, int64_t m, int64_t tol, int64_t *k_milli);

/* The held-out check's verdict. */
enum fp_verdict { FP_PASS, FP_FAIL, FP_SATURATED, FP_BELOW, FP_IMPRECISE };
#define FP_TOL_PCT 20 /* recovered K within +-20% of the known K */
/* expected K below k[lo] (the smallest calibrated K): below_range, never a number — the curve
 * was not measured there or is too flat to tell K apart. expected K beyond k[valid]: saturated
 * when the inversion says so or lands within the top FP_TOL_PCT of the range, else fail (a
 * clearly smaller number for a saturating handler is absurd). Within the range: pass when K
 * (milli) came back within +-FP_TOL_PCT; otherwise fail — unless the series stopped at its time
 * bound without reaching the paper's precision (`converged` false) and its CI [lo, hi] (milli)
 * still reaches into the band: then the measurement cannot decide, imprecise. Negative: fail. */
enum fp_verdict fp_judge(const struct fp_curve *c, uint64_t expected_k, enum fp_inv inv, int64_t k_milli,
			 int64_t lo, int64_t hi, bool converged);
const char *fp_verdict_name(enum fp_verdict v);

#endif
