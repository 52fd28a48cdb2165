/* The integer statistics of the displacement probe (bench/probes/irq/displace.c) and its checks. The
 * firmware has no floating point: every per-interrupt value is a signed fixed-point number of
 * milli-cycles (DISP_MILLI per cycle).
 *
 * Per loaded window w (L_F fluid iterations, n_w interrupts, D_w = sum of their direct
 * entry..exit costs) paired with its own calibration window (the same L_F iterations, masked):
 *   displacement_w = (T_F(2)_w - T_F(1)_w) / n_w   (the start/stop cost S is in both and cancels)
 *   direct_w       = D_w / n_w
 *   delivery_w     = displacement_w - direct_w      (what the stub's / handler's stamps cannot see)
 * The same per interrupt: the fluid loop reads the TSC every chunk, so each interrupt's own
 * displacement is the excess of the chunk it landed in (disp_irq_values); pairing each with its
 * own direct cost keeps a hypervisor's or kernel's time that happens to coincide with an
 * interrupt out of the other interrupts' estimates.
 * Each quantity is summarised by the median over windows and its distribution-free 95%
 * confidence interval (order statistics: ranks from the binomial(n, 1/2) distribution), robust to
 * the odd window a preemption or an SMI stretched. */
#ifndef BENCH_DISPLACE_STATS_H
#define BENCH_DISPLACE_STATS_H

#include <stdbool.h>
#include <stdint.h>

#define DISP_MILLI 1000          /* fixed point: milli-cycles */
#define DISP_UNMEASURED UINT64_MAX /* an interrupt's excess that could not be measured */
#define DISP_CI_MIN_WINDOWS 6    /* fewer windows: no 95% interval exists; [min, max] is given */
#define DISP_EXACT_RANKS_MAX 60   /* binomial ranks computed exactly up to here (2^60 fits) */

enum disp_quantity { DISP_DISPLACEMENT, DISP_DIRECT, DISP_DELIVERY };

struct disp_window {
	uint64_t calib;      /* T_F(1): masked window, cycles */
	uint64_t loaded;     /* T_F(2): the same iterations with the timer interrupting, cycles */
	uint64_t count;      /* interrupts taken inside the loaded window */
	uint64_t direct_sum; /* their direct entry..exit costs, summed */
};

/* A median with its confidence interval, milli-cycles. ci95: the interval covers >= 95% (else
 * there were fewer than DISP_CI_MIN_WINDOWS windows and [lo, hi] is the whole range). */
struct disp_est {
	int64_t median, lo, hi;
	unsigned n;
	bool ci95;
};

/* One per-interrupt value and the loaded window it was taken in. */
struct disp_wval {
	int64_t v;
	uint32_t win;
};

/* Per-window values of q (windows without an interrupt are left out); returns how many. */
unsigned disp_window_values(const struct disp_window *w, unsigned n, enum disp_quantity q, int64_t *out);
/* Per-interrupt values of q, milli-cycles: displacement = the excess of the fluid chunk the
 * interrupt landed in over the nominal chunk (Woodside with L_PUT = 1 and L_F = one chunk),
 * direct = its entry..exit cost, delivery = the difference, paired interrupt by interrupt.
 * Interrupts whose excess is DISP_UNMEASURED are left out; `offset` (milli-cycles) is taken from
 * every excess; returns how many values. */
unsigned disp_irq_values(const uint64_t *excess, const uint64_t *direct, unsigned n, enum disp_quantity q,
			 int64_t offset, int64_t *out);
/* The same per window: the first w[0].count interrupts are window 0's, and so on (the loaded
 * windows in the order they ran, npairs interrupts in all); each value gets its window's index.
 * Returns how many values. */
unsigned disp_irq_values_windows(const uint64_t *excess, const uint64_t *direct, unsigned npairs,
				 const struct disp_window *w, unsigned nwin, enum disp_quantity q, int64_t offset,
				 struct disp_wval *out);
/* The offset (milli-cycles) to take from each excess: the mean fluid chunk of the calibration
 * windows (gaps out) minus the nominal chunk measured by a separate timing loop (a few
 * instructions apart). */
int64_t disp_chunk_offset(const struct disp_window *w, unsigned n, uint64_t chunks, uint64_t nominal);
/* Median and 95% order-statistic CI of v[0..n) (v is sorted in place). n = 0: all zero. */
void disp_estimate(int64_t *v, unsigned n, struct disp_est *e);
#define DISP_BOOT_RESAMPLES 2000 /* window resamples behind a disp_estimate_q_windows interval */
/* The q-th quantile of v[0..n) (q in permille: the value at rank ceil(n q / 1000)), its CI
 * from resampling whole windows (a cluster bootstrap: DISP_BOOT_RESAMPLES draws of nwin windows
 * with replacement, percentile interval, each tail 2.5%/k so that k such intervals hold together
 * with 95%). The interrupts of one window share that moment's background (another tenant's load,
 * the host's own interrupts), so they are no independent samples and an interval from the
 * interrupt count alone is too narrow when the background drifts. v is sorted in place; mult
 * (nwin counters) and boot (DISP_BOOT_RESAMPLES values) are scratch; the draws are seeded, so
 * a result is reproducible. ci95 false (and the whole range) below DISP_CI_MIN_WINDOWS windows. */
void disp_estimate_q_windows(struct disp_wval *v, unsigned n, unsigned nwin, unsigned q, unsigned k, uint64_t seed,
			     uint32_t *mult, int64_t *boot, struct disp_est *e);
/* 0-based ranks (lo, hi = n - 1 - lo) of the 95% CI of a median of n values; false (and the
 * whole range) when n < DISP_CI_MIN_WINDOWS. */
bool disp_median_ci_ranks(unsigned n, unsigned *lo, unsigned *hi);
/* |a - b| <= permille/1000 * |b| in integers. */
bool disp_within_permille(int64_t a, int64_t b, unsigned permille);
/* The delivery cost is constant across handlers within its CI: one value lies inside every
 * interval (max of the lows <= min of the highs). */
bool disp_common_value(const struct disp_est *e, unsigned n, int64_t *max_lo, int64_t *min_hi);

#endif
