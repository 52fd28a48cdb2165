/* Integer statistics of the displacement probe (see bench/stats/displace.h). */
#include "bench/stats/displace.h"

#include "lib/intmath.h"
#include "lib/rand.h"
#include "lib/sort.h"

#define SIGN_BIT (1ull << 63)       /* sorting signed values as unsigned: flip the sign bit */
#define CI_TAIL_DIVISOR 40          /* each tail of a 95% interval holds at most 1/40 */
#define Z95_SQUARED_X10000 38416ull /* 1.96^2 * 10^4: the normal ranks beyond the exact range */
#define PERMILLE 1000u              /* quantiles are given in permille */

static int64_t div_round(int64_t num, uint64_t den)
{
	/* round half away from zero; den > 0 */
	return num >= 0 ? (int64_t)(((uint64_t)num + den / 2) / den) : -(int64_t)(((uint64_t)-num + den / 2) / den);
}

unsigned disp_window_values(const struct disp_window *w, unsigned n, enum disp_quantity q, int64_t *out)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		int64_t num;

		if (!w[i].count)
			continue;
		switch (q) {
		case DISP_DISPLACEMENT:
			num = (int64_t)(w[i].loaded - w[i].calib);
			break;
		case DISP_DIRECT:
			num = (int64_t)w[i].direct_sum;
			break;
		default:
			num = (int64_t)(w[i].loaded - w[i].calib - w[i].direct_sum);
			break;
		}
		out[k++] = div_round(num * DISP_MILLI, w[i].count);
	}
	return k;
}

int64_t disp_chunk_offset(const struct disp_window *w, unsigned n, uint64_t chunks, uint64_t nominal)
{
	uint64_t sum = 0;

	if (!n || !chunks)
		return 0;
	for (unsigned i = 0; i < n; i++)
		sum += w[i].calib;
	return (int64_t)(sum * DISP_MILLI / ((uint64_t)n * chunks)) - (int64_t)(nominal * DISP_MILLI);
}

unsigned disp_irq_values(const uint64_t *excess, const uint64_t *direct, unsigned n, enum disp_quantity q,
			 int64_t offset, int64_t *out)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		int64_t e = (int64_t)excess[i], d = (int64_t)direct[i];

		if (excess[i] == DISP_UNMEASURED)
			continue;
		e = e * DISP_MILLI - offset;
		d *= DISP_MILLI;
		out[k++] = q == DISP_DISPLACEMENT ? e : q == DISP_DIRECT ? d : e - d;
	}
	return k;
}

bool disp_median_ci_ranks(unsigned n, unsigned *lo, unsigned *hi)
{
	unsigned j = 0; /* 1-based rank of the lower bound; 0 = none */

	if (n < DISP_CI_MIN_WINDOWS) {
		*lo = 0;
		*hi = n ? n - 1 : 0;
		return false;
	}
	if (n <= DISP_EXACT_RANKS_MAX) {
		/* largest j with P(Binomial(n, 1/2) <= j - 1) <= 1/40 */
		uint64_t limit = (1ull << n) / CI_TAIL_DIVISOR, c = 1, cum = 0;

		for (unsigned i = 0; i < n / 2; i++) {
			cum += c;
			if (cum > limit)
				break;
			j = i + 1;
			c = c * (n - i) / (i + 1);
		}
	} else {
		/* normal approximation, rounded outwards: j = floor((n - 1.96 sqrt(n)) / 2) */
		uint64_t z = u64_isqrt(Z95_SQUARED_X10000 * n); /* 100 * 1.96 sqrt(n) */

		j = (unsigned)((100ull * n - z) / 200);
	}
	if (j < 1)
		j = 1;
	*lo = j - 1;
	*hi = n - j;
	return true;
}

static void sort_i64(int64_t *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		v[i] = (int64_t)((uint64_t)v[i] ^ SIGN_BIT);
	sort_u64((uint64_t *)v, n);
	for (unsigned i = 0; i < n; i++)
		v[i] = (int64_t)((uint64_t)v[i] ^ SIGN_BIT);
}

unsigned disp_irq_values_windows(const uint64_t *excess, const uint64_t *direct, unsigned npairs,
				 const struct disp_window *w, unsigned nwin, enum disp_quantity q, int64_t offset,
				 struct disp_wval *out)
{
	unsigned k = 0, i = 0;

	for (unsigned win = 0; win < nwin && i < npairs; win++) {
		int64_t one;

		for (uint64_t c = 0; c < w[win].count && i < npairs; c++, i++) {
			if (disp_irq_values(&excess[i], &direct[i], 1, q, offset, &one))
				out[k++] = (struct disp_wval){ .v = one, .win = win };
		}
	}
	return k;
}

/* The 1-based rank of the q-th quantile (q permille) of n values: ceil(n q), at least 1. */
static uint64_t quantile_rank(uint64_t n, unsigned q)
{
	uint64_t at = (n * q + PERMILLE - 1) / PERMILLE;

	return at ? at : 1;
}

/* Heapsort of (value, window) pairs by value: no recursion, no allocation. */
static void sift_down(struct disp_wval *v, unsigned root, unsigned n)
{
	for (unsigned child; (child = 2 * root + 1) < n; root = child) {
		struct disp_wval t;

		if (child + 1 < n && v[child + 1].v > v[child].v)
			child++;
		if (v[root].v >= v[child].v)
			return;
		t = v[root], v[root] = v[child], v[child] = t;
	}
}

static void sort_wval(struct disp_wval *v, unsigned n)
{
	for (unsigned i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (unsigned end = n; end-- > 1;) {
		struct disp_wval t = v[0];

		v[0] = v[end], v[end] = t;
		sift_down(v, 0, end);
	}
}

/* The q-th quantile of the sorted values, each counted mult[its window] times; false when the
 * drawn windows hold no value. */
static bool weighted_quantile(const struct disp_wval *v, unsigned n, const uint32_t *mult, unsigned q, int64_t *out)
{
	uint64_t total = 0, at, run = 0;

	for (unsigned i = 0; i < n; i++)
		total += mult[v[i].win];
	if (!total)
		return false;
	at = quantile_rank(total, q);
	for (unsigned i = 0; i < n; i++) {
		run += mult[v[i].win];
		if (run >= at) {
			*out = v[i].v;
			return true;
		}
	}
	*out = v[n - 1].v;
	return true;
}

void disp_estimate_q_windows(struct disp_wval *v, unsigned n, unsigned nwin, unsigned q, unsigned k, uint64_t seed,
			     uint32_t *mult, int64_t *boot, struct disp_est *e)
{
	struct rand_state rng;
	unsigned nb = 0, tail;

	*e = (struct disp_est){ 0, 0, 0, n, false };
	if (!n || q == 0 || q >= PERMILLE)
		return;
	sort_wval(v, n);
	e->median = v[quantile_rank(n, q) - 1].v;
	e->lo = v[0].v;
	e->hi = v[n - 1].v;
	if (nwin < DISP_CI_MIN_WINDOWS)
		return;
	rand_seed(&rng, seed);
	for (unsigned b = 0; b < DISP_BOOT_RESAMPLES; b++) {
		for (unsigned w = 0; w < nwin; w++)
			mult[w] = 0;
		for (unsigned w = 0; w < nwin; w++)
			mult[rand_below(&rng, nwin)]++;
		nb += weighted_quantile(v, n, mult, q, &boot[nb]);
	}
	sort_i64(boot, nb);
	/* each tail holds 2.5%/k of the resamples (rounded down: the interval only widens) */
	tail = (unsigned)((uint64_t)nb / (CI_TAIL_DIVISOR * (uint64_t)(k ? k : 1)));
	if (!tail)
		return;
	e->lo = boot[tail - 1];
	e->hi = boot[nb - tail];
	e->ci95 = true;
}

void disp_estimate(int64_t *v, unsigned n, struct disp_est *e)
{
	unsigned lo, hi;

	*e = (struct disp_est){ 0, 0, 0, n, false };
	if (!n)
		return;
	sort_i64(v, n);
	/* the median x_(ceil(n/2)): of an even count the lower middle value, as the harness
	 * re-derives it from the raw sets (docs/methods/statistics.md) and summary_median prints */
	e->median = v[(n - 1) / 2];
	e->ci95 = disp_median_ci_ranks(n, &lo, &hi);
	e->lo = v[lo];
	e->hi = v[hi];
}

bool disp_within_permille(int64_t a, int64_t b, unsigned permille)
{
	uint64_t d = a > b ? (uint64_t)(a - b) : (uint64_t)(b - a);
	uint64_t m = b >= 0 ? (uint64_t)b : (uint64_t)-b;

	return d * 1000 <= m * permille;
}

bool disp_common_value(const struct disp_est *e, unsigned n, int64_t *max_lo, int64_t *min_hi)
{
	*max_lo = n ? e[0].lo : 0;
	*min_hi = n ? e[0].hi : 0;
	for (unsigned i = 1; i < n; i++) {
		if (e[i].lo > *max_lo)
			*max_lo = e[i].lo;
		if (e[i].hi < *min_hi)
			*min_hi = e[i].hi;
	}
	return n > 0 && *max_lo <= *min_hi;
}
