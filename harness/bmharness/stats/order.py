"""Order statistics: the one median and quantile convention of the harness, their
distribution-free confidence intervals, and the interpolated percentile kept for drawing.

Convention (docs/methods/statistics.md): the q-quantile of N values is the order statistic
x_(ceil(N q)), 1-based (Hyndman and Fan's definition 1, the inverse of the empirical distribution
function); the median is its q = 1/2 case, x_(ceil(N/2)): the middle value for an odd N and the
lower of the two middle values for an even N. It is always a measured value, it is what the
firmware prints (bench/core/summary.c summary_median, lib/sort.c median_u64 and quantile_u64) and
it is the estimate the order-statistic CI below brackets. `percentile` interpolates (numpy's
default) and is for histogram ranges and bins only, never a reported quantile.
"""

import math

Z975 = 1.959964          # the standard normal's 97.5% quantile


def quantile_rank(n, q):
    """1-based rank of the q-quantile of n values: ceil(n q), at least 1 (q in (0, 1])."""
    return max(1, min(n, int(math.ceil(n * q - 1e-9))))


def quantile(sorted_xs, q):
    """The q-quantile of sorted values, x_(ceil(N q)); None without values."""
    return sorted_xs[quantile_rank(len(sorted_xs), q) - 1] if sorted_xs else None


def median(xs, key=None):
    """The median of the values (any order), x_(ceil(N/2)): the lower middle one for an even N.
    With `key`, the item whose key is that median (the median point of a curve). None if empty."""
    s = sorted(xs, key=key)
    return quantile(s, 0.5)


def percentile(sorted_xs, p):
    """Percentile (0..100) with linear interpolation between order statistics (numpy default)."""
    n = len(sorted_xs)
    if n == 0:
        raise ValueError("percentile of empty data")
    pos = (n - 1) * p / 100.0
    lo = int(math.floor(pos))
    hi = min(lo + 1, n - 1)
    a, b = sorted_xs[lo], sorted_xs[hi]
    if a == b:
        return a
    out = a + (b - a) * (pos - lo)
    if isinstance(out, float) and math.isinf(out) and not math.isinf(a) and not math.isinf(b):
        # b - a overflowed (values of both signs near the float limit): weight the ends instead
        out = a * (1.0 - (pos - lo)) + b * (pos - lo)
    return out



# ---- distribution-free quantile confidence intervals (order statistics) ------------------------

CI_LEVEL = 0.95
TAIL_MIN_BEYOND = 10   # report a tail quantile only with at least this many samples beyond it
PCTL_MIN_BEYOND = 1    # the general table's p1/p99: at least one sample expected beyond


def binom_cdf(n, p):
    """P(B <= k) for k = 0..n, B ~ Binomial(n, p), from log-space terms (no underflow of
    (1-p)^n for large n). Pure stdlib."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    lp, lq, lnf = math.log(p), math.log1p(-p), math.lgamma(n + 1)
    out, acc = [], 0.0
    for k in range(n + 1):
        acc += math.exp(lnf - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * lp + (n - k) * lq)
        out.append(min(acc, 1.0))
    return out


def quantile_ci_ranks(n, q, level=CI_LEVEL):
    """1-based ranks (l, u) of the order statistics that bound the q-quantile with coverage at
    least `level`, equal-tailed: B ~ Binomial(n, q) counts the samples below the true quantile,
    x_(l) <= xi_q with probability 1 - P(B <= l-1) and xi_q <= x_(u) with P(B <= u-1), so l is the
    largest rank with P(B <= l-1) <= (1-level)/2 and u the smallest with P(B <= u-1) >=
    1 - (1-level)/2. A side that no rank reaches (too few samples) is None. Returns
    (l, u, coverage) with coverage = P(B <= u-1) - P(B <= l-1) (the side missing counts as 0 / 1)."""
    if n < 1:
        return None, None, None
    tail = (1.0 - level) / 2.0
    cdf = binom_cdf(n, q)
    lo = None
    for r in range(1, n + 1):          # P(B <= r-1) grows with r: keep the last one within the tail
        if cdf[r - 1] <= tail:
            lo = r
        else:
            break
    hi = next((r for r in range(1, n + 1) if cdf[r - 1] >= 1.0 - tail), None)
    cov = (cdf[hi - 1] if hi else 1.0) - (cdf[lo - 1] if lo else 0.0)
    return lo, hi, cov


def quantile_ci(sorted_xs, q, level=CI_LEVEL):
    """Distribution-free CI of the q-quantile: {"lo", "hi", "lo_rank", "hi_rank", "coverage"};
    lo/hi None where the sample cannot bound that side (e.g. the p99's upper side needs N >= 368
    at 95%). None without values."""
    n = len(sorted_xs)
    if n == 0:
        return None
    lo, hi, cov = quantile_ci_ranks(n, q, level)
    return {"lo": sorted_xs[lo - 1] if lo else None, "hi": sorted_xs[hi - 1] if hi else None,
            "lo_rank": lo, "hi_rank": hi, "coverage": cov}


def median_ci(sorted_xs, level=CI_LEVEL):
    """The CI of the median as [lo, hi] (quantile_ci at q = 1/2); where N is too small for a
    side to reach `level` (N <= 5 at 95%) that side is the sample's extreme, [min, max], whose
    coverage median_ci_coverage states. None without values."""
    ci = quantile_ci(sorted_xs, 0.5, level)
    if ci is None:
        return None
    return [ci["lo"] if ci["lo"] is not None else sorted_xs[0],
            ci["hi"] if ci["hi"] is not None else sorted_xs[-1]]


def median_ci_coverage(n, level=CI_LEVEL):
    """The coverage median_ci's interval really has at N: quantile_ci_ranks' (at least `level`)
    where N reaches it, else that of [min, max], 1 - 2^(1-N) (94% at N = 5, 75% at N = 3)."""
    if n < 1:
        return None
    lo, hi, cov = quantile_ci_ranks(n, 0.5, level)
    return cov if lo and hi else 1.0 - 2.0 ** (1 - n)


def median_and_ci(values, level=CI_LEVEL):
    """{"n", "median", "lo", "hi", "coverage"} of a set's values (any order), the one
    median-with-CI every view of a set shows; None without values."""
    s = sorted(values)
    if not s:
        return None
    lo, hi = median_ci(s, level)
    return {"n": len(s), "median": quantile(s, 0.5), "lo": lo, "hi": hi,
            "coverage": median_ci_coverage(len(s), level)}


def tail_quantile_ok(n, q, beyond=TAIL_MIN_BEYOND):
    """A tail quantile is reported only with at least `beyond` samples past it: N x (1-q) >= beyond
    (p99.9: N >= 10000)."""
    return n * (1.0 - q) >= beyond - 1e-9


def wilson_ci(k, n, z=Z975):
    """Wilson score interval (default 95%) of a binomial proportion k/n: [lo, hi], or None for
    n = 0. Unlike the normal (Wald) interval it stays inside [0, 1] and does not collapse to a
    point at k = 0 or k = n, which matters for the small shares of a profile."""
    if not n:
        return None
    p, z2 = k / n, z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z / denom * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n))
    # k = 0 and k = n bound at exactly 0 and 1 (the formula gives them up to rounding)
    return [0.0 if k <= 0 else max(0.0, centre - half), 1.0 if k >= n else min(1.0, centre + half)]
