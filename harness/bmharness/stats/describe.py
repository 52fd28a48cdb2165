"""Descriptive statistics for one sample set, standard library only (no numpy/scipy).

`set_stats` turns raw samples (cycles per sample, timer overhead included) into per-operation
values `(v - overhead) / iters` and describes both. `describe` gives N, min, median (order.py's
convention), 10%-trimmed mean, sample stddev, a Student-t 95% CI of the mean, max, p1/p99,
Sarle's bimodality coefficient and the mode detector (modes.py).
"""

import math

from .modes import SARLE_THRESHOLD, detect_modes
from .order import PCTL_MIN_BEYOND, Z975, quantile, tail_quantile_ok

# Two-sided 95% Student t quantiles t(0.975, df). Beyond the table, interpolate linearly in 1/df
# towards the normal quantile, which is exact to ~1e-4 for the values in between.
_T975 = {
    1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
    10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110,
    18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060,
    26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042, 40: 2.021, 50: 2.009, 60: 2.000,
    80: 1.990, 100: 1.984, 120: 1.980, 200: 1.972, 500: 1.965, 1000: 1.962,
}
TRIM = 0.10
CI_REL_LIMIT = 0.05


def t_quantile_975(df):
    """t(0.975, df) from the table, interpolated in 1/df; normal value for very large df."""
    if df < 1:
        raise ValueError("df must be >= 1")
    if df in _T975:
        return _T975[df]
    keys = sorted(_T975)
    if df > keys[-1]:
        lo_df, lo_t, hi_inv, hi_t = keys[-1], _T975[keys[-1]], 0.0, Z975
    else:
        lo_df = max(k for k in keys if k < df)
        hi_df = min(k for k in keys if k > df)
        lo_t, hi_inv, hi_t = _T975[lo_df], 1.0 / hi_df, _T975[hi_df]
    lo_inv = 1.0 / lo_df
    frac = (1.0 / df - hi_inv) / (lo_inv - hi_inv)
    return hi_t + frac * (lo_t - hi_t)



def trimmed_mean(sorted_xs, proportion=TRIM):
    """Mean after dropping floor(proportion * N) values from each end (as scipy's trim_mean)."""
    n = len(sorted_xs)
    k = int(proportion * n)
    return mean_sd(sorted_xs[k:n - k])[0]


def mean_sd(xs):
    """(mean, sample standard deviation or None for N < 2) of finite numbers, without overflow,
    underflow or cancellation: integers (cycle counts near 2^64 differ in their last digits,
    which floats would drop) are summed exactly as deviations from their middle value; floats
    are first scaled by a power of two near their largest magnitude (squares of 1e200 overflow,
    those of 1e-200 vanish), then shifted likewise."""
    n = len(xs)
    if n == 0:
        raise ValueError("mean of empty data")
    shift = xs[n // 2]
    if all(isinstance(x, int) for x in xs):
        d = [x - shift for x in xs]
        s1, s2 = sum(d), sum(v * v for v in d)
        mean = shift + s1 / n
        # n * sum(d^2) - (sum d)^2 is exact: the only rounding is the final division
        sd = math.sqrt((n * s2 - s1 * s1) / (n * (n - 1))) if n > 1 else None
        return float(mean), sd
    top = max(abs(x) for x in xs)
    scale = math.ldexp(1.0, math.frexp(top)[1] - 1) if top else 1.0  # a power of two: exact
    ys = [x / scale for x in xs]
    c = ys[n // 2]
    d = [y - c for y in ys]
    md = math.fsum(d) / n
    mean = (c + md) * scale
    if n == 1:
        return mean, None
    var = math.fsum((v - md) ** 2 for v in d) / (n - 1)
    sd = math.sqrt(var) * scale
    return mean, sd if math.isfinite(sd) else None  # a spread beyond the float range: unknown


def sarle_coefficient(xs, mean):
    """Sarle's bimodality coefficient from bias-corrected skewness and excess kurtosis.

    Values above 5/9 (the uniform distribution's) hint at bi- or multimodality; it is also driven
    up by strong skew, which is why it is reported but does not decide the flag. None if N < 4 or
    the data do not vary.
    """
    n = len(xs)
    if n < 4:
        return None
    # Scale-free: divide the deviations by their largest so cubes and fourth powers stay finite
    # (exact integer deviations first: x - mean of integers near 2^64 would round to 0).
    if all(isinstance(x, int) for x in xs):
        c = xs[n // 2]
        dev = [x - c for x in xs]
        mean = math.fsum(dev) / n
        xs = dev
    dev = [x - mean for x in xs]
    big = max(abs(v) for v in dev)
    if not big or not math.isfinite(big):
        return None
    xs, mean = [v / big for v in dev], 0.0
    m2 = math.fsum((x - mean) ** 2 for x in xs) / n
    if m2 == 0:
        return None
    m3 = math.fsum((x - mean) ** 3 for x in xs) / n
    m4 = math.fsum((x - mean) ** 4 for x in xs) / n
    g1 = m3 / m2 ** 1.5
    g2 = m4 / m2 ** 2 - 3.0
    skew = g1 * math.sqrt(n * (n - 1)) / (n - 2)
    kurt = (n - 1) / ((n - 2) * (n - 3)) * ((n + 1) * g2 + 6)
    return (skew ** 2 + 1) / (kurt + 3.0 * (n - 1) ** 2 / ((n - 2) * (n - 3)))



def describe(xs, quantum=None):
    """Describe a list of numbers. Returns a dict; with N=0 only N and a note."""
    finite = [x for x in xs if not isinstance(x, float) or math.isfinite(x)]
    nonfinite = len(xs) - len(finite)
    n = len(finite)
    if n == 0:
        out = {"n": 0, "note": "no samples: no statistics"}
        if nonfinite:
            out.update(nonfinite=nonfinite, note="no finite samples (%d NaN or infinite): no "
                       "statistics" % nonfinite)
        return out
    s = sorted(finite)
    mean, sd = mean_sd(s)
    out = {"n": n, "min": s[0], "max": s[-1], "mean": mean, "median": quantile(s, 0.5),
           "trimmed_mean": trimmed_mean(s),
           # a 1% tail quantile only where the sample reaches past it (N >= 100): below that the
           # "p99" of a few samples is the maximum or next to it, not a percentile
           "p1": quantile(s, 0.01) if tail_quantile_ok(n, 0.99, PCTL_MIN_BEYOND) else None,
           "p99": quantile(s, 0.99) if tail_quantile_ok(n, 0.99, PCTL_MIN_BEYOND) else None}
    if n == 1 or sd is None:
        out.update(stddev=None, ci95=None, ci95_half=None, ci95_rel=None, ci_within_5pct=None,
                   sarle_bc=None, note="one sample: no spread or confidence interval" if n == 1
                   else "the spread exceeds the float range: no standard deviation or CI")
    else:
        half = t_quantile_975(n - 1) * (sd / math.sqrt(n))
        ci = [mean - half, mean + half]
        if not all(math.isfinite(v) for v in ci + [half]):  # beyond the float range: none
            half, ci = None, None
        rel = (None if half is None else half / abs(mean) if mean != 0 else
               (0.0 if half == 0 else None))
        out.update(stddev=sd, ci95=ci, ci95_half=half, ci95_rel=rel,
                   ci_within_5pct=(rel is not None and rel <= CI_REL_LIMIT),
                   sarle_bc=sarle_coefficient(s, mean))
    modes = detect_modes(s, quantum)
    out["bimodal"] = modes["bimodal"]
    out["bimodal_explanation"] = modes["explanation"]
    if out.get("sarle_bc") is not None:
        out["bimodal_explanation"] += "; Sarle BC %.3f (%s 5/9)" % (
            out["sarle_bc"], ">" if out["sarle_bc"] > SARLE_THRESHOLD else "<=")
    out["modes"] = modes["modes"]
    if nonfinite:  # NaN sorts nowhere and inf has no mean: left out, and said so
        out["nonfinite"] = nonfinite
        out["note"] = "%d NaN or infinite value(s) left out" % nonfinite
    return out


def per_op(raw, overhead=0, iters=1):
    """Per-operation values: (v - overhead) / iters as floats."""
    iters = iters or 1
    return [(v - overhead) / iters for v in raw]


def set_stats(raw, overhead=0, iters=1):
    """Statistics for a sample set: `per_op` (the headline numbers) and `raw` (as captured)."""
    iters = iters or 1
    values = per_op(raw, overhead, iters)
    quantum = 1.0 / iters if iters > 0 and float(overhead).is_integer() else None
    res = {"overhead": overhead, "iters": iters, "per_op": describe(values, quantum),
           "raw": describe(list(raw), 1.0)}
    res["negative"] = sum(1 for v in values if v < 0)
    return res

