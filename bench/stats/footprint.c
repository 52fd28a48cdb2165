/* Integer statistics and the calibration curve of the footprint probe (see bench/stats/footprint.h). */
#include "bench/stats/footprint.h"

#include "lib/intmath.h"
#include "lib/sort.h"

#define SIGN_BIAS (1ull << 63) /* signed -> unsigned order-preserving map for sort_u64 */

/* Student t, 97.5% quantile, milli, by degrees of freedom (conservative between rows). */
static uint64_t t975_milli(uint32_t dof)
{
	static const struct { uint32_t dof; uint32_t t; } rows[] = {
		{ 1, 12706 }, { 2, 4303 }, { 3, 3182 }, { 4, 2776 }, { 5, 2571 }, { 7, 2365 },
		{ 10, 2228 }, { 14, 2145 }, { 20, 2086 }, { 30, 2042 }, { 60, 2000 }, { 120, 1980 },
	};
	uint64_t t = 1960;

	for (unsigned i = sizeof(rows) / sizeof(rows[0]); i-- > 0;)
		if (dof <= rows[i].dof)
			t = rows[i].t;
	return t;
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

bool fp_estimate(const int64_t *v, uint32_t n, uint64_t *scratch, struct fp_est *out)
{
	uint32_t trim = n / FP_TRIM_DIV ? n / FP_TRIM_DIV : 1, used;
	int64_t sum = 0, mean_m;
	uint64_t ss = 0, var_m2, sd_m;
	unsigned sh = 0;

	if (n < 3)
		return false;
	for (uint32_t i = 0; i < n; i++)
		scratch[i] = (uint64_t)v[i] ^ SIGN_BIAS;
	sort_u64(scratch, n);
	used = n - 2 * trim;
	for (uint32_t i = trim; i < n - trim; i++)
		sum += (int64_t)(scratch[i] ^ SIGN_BIAS);
	mean_m = sum * FP_MILLI / (int64_t)used;
	/* squares of milli-unit deviations overflow for a wide spread: scale them down by 2^sh so
	 * that `used` squares of the widest deviation still fit */
	{
		int64_t lo = (int64_t)(scratch[trim] ^ SIGN_BIAS) * FP_MILLI - mean_m;
		int64_t hi = (int64_t)(scratch[n - trim - 1] ^ SIGN_BIAS) * FP_MILLI - mean_m;
		uint64_t widest = (uint64_t)(abs64(lo) > abs64(hi) ? abs64(lo) : abs64(hi));
		uint64_t lim = u64_isqrt(UINT64_MAX / used);

		while ((widest >> sh) > lim)
			sh++;
	}
	for (uint32_t i = trim; i < n - trim; i++) {
		uint64_t d = (uint64_t)abs64((int64_t)(scratch[i] ^ SIGN_BIAS) * FP_MILLI - mean_m) >> sh;

		ss += d * d;
	}
	var_m2 = used > 1 ? ss / (used - 1) : 0;
	sd_m = u64_isqrt(var_m2) << sh;
	out->mean_m = mean_m;
	out->ci_m = (int64_t)(t975_milli(used - 1) * sd_m / FP_MILLI / u64_isqrt((uint64_t)used));
	out->used = used;
	return true;
}

bool fp_converged(const struct fp_est *e, uint32_t n, int64_t floor_m)
{
	if (n < FP_MIN_REPS)
		return false;
	return e->ci_m * 100 <= abs64(e->mean_m) * FP_CI_PCT || e->ci_m <= floor_m;
}

/* milli-lines per K of the segment ending at point i */
static int64_t slope_m(const struct fp_curve *c, unsigned i)
{
	int64_t dk = (int64_t)(c->k[i] - c->k[i - 1]);

	return dk > 0 ? (c->m[i] - c->m[i - 1]) / dk : 0;
}

void fp_curve_saturation(struct fp_curve *c)
{
	unsigned ref = (c->n - 1) * FP_CHORD_NUM / FP_CHORD_DEN, i;
	int64_t chord = ref && c->k[ref] ? c->m[ref] / (int64_t)c->k[ref] : 0, min_slope;

	/* the chord from (0, 0) to the middle of the grid is the curve's own scale (one steep or
	 * noisy segment at small K is not) */
	min_slope = chord / FP_SLOPE_REL_DIV;
	min_slope = min_slope > FP_SLOPE_MIN_MILLI ? min_slope : FP_SLOPE_MIN_MILLI;
	/* from the top down: saturation is where the curve stops rising for good; a flat stretch
	 * below a later rise is resolution lost there, not saturation */
	for (i = c->n - 1; i > 0; i--)
		if (slope_m(c, i) >= min_slope)
			break;
	c->valid = i;
	while (i > 1 && slope_m(c, i) >= min_slope)
		i--;
	/* K = 0 measures no lines by definition: a first point at or below it (noise: a 2 MiB L2's
	 * series stopped at their time bound on a guest once gave -248 lines for 1,536) is no anchor,
	 * a held-out K interpolated from it lands far off (1,920 -> 2,788). Start above it. */
	while (i < c->valid && c->m[i] <= 0)
		i++;
	c->lo = i;
	c->min_slope = min_slope;
}

uint64_t fp_curve_sat_k(const struct fp_curve *c)
{
	return c->valid + 1 < c->n ? c->k[c->valid + 1] : 0;
}

enum fp_inv fp_curve_invert(const struct fp_curve *c, int64_t m, int64_t tol, int64_t *k_milli)
{
	*k_milli = 0;
	if (m < -tol)
		return FP_INV_NEGATIVE;
	if (c->valid == 0 || m > c->m[c->valid])
		return FP_INV_SATURATED;
	if (m < c->m[c->lo]) {
		if (m > 0 && c->m[c->lo] > 0)
			*k_milli = m * (int64_t)c->k[c->lo] * FP_MILLI / c->m[c->lo];
		return FP_INV_BELOW;
	}
	for (unsigned i = c->lo; i < c->valid; i++) {
		if (m <= c->m[i + 1]) {
			int64_t dk = (int64_t)(c->k[i + 1] - c->k[i]), dm = c->m[i + 1] - c->m[i];

			*k_milli = (int64_t)c->k[i] * FP_MILLI + (m - c->m[i]) * dk * FP_MILLI / dm;
			return FP_INV_OK;
		}
	}
	return FP_INV_SATURATED;
}

enum fp_verdict fp_judge(const struct fp_curve *c, uint64_t expected_k, enum fp_inv inv, int64_t k_milli,
			 int64_t lo, int64_t hi, bool converged)
{
	int64_t want = (int64_t)expected_k * FP_MILLI, band = want * FP_TOL_PCT / 100;

	if (inv == FP_INV_NEGATIVE)
		return FP_FAIL;
	if (expected_k < c->k[c->lo])
		return FP_BELOW;
	if (expected_k > c->k[c->valid]) {
		int64_t top = (int64_t)c->k[c->valid] * FP_MILLI;

		if (inv == FP_INV_SATURATED || k_milli * 100 >= top * (100 - FP_TOL_PCT))
			return FP_SATURATED;
		return FP_FAIL;
	}
	if (inv == FP_INV_OK && abs64(k_milli - want) <= band)
		return FP_PASS;
	if (!converged && hi >= want - band && lo <= want + band)
		return FP_IMPRECISE;
	return FP_FAIL;
}

const char *fp_verdict_name(enum fp_verdict v)
{
	static const char *const names[] = { "pass", "fail", "saturated", "below_range", "imprecise" };

	return names[v];
}
