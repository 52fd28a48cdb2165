"""Descriptive statistics for one sample set, standard library only (no numpy/scipy).

`set_stats` turns raw samples (cycles per sample, timer overhead included) into per-operation
values `(v - overhead) / iters` and describes both. `describe` gives N, min, median, 10%-trimmed
mean, sample stddev, a Student-t 95% CI of the mean, max, p1/p99, Sarle's bimodality coefficient
and a histogram-based mode detector that is meant to stay quiet on heavy-tailed timing data.
"""

import bisect
import heapq
import math

# Two-sided 95% Student t quantiles t(0.975, df). Beyond the table, interpolate linearly in 1/df
# towards the normal quantile, which is exact to ~1e-4 for the values in between.
_T975 = {
    1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
    10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110,
    18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060,
    26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042, 40: 2.021, 50: 2.009, 60: 2.000,
    80: 1.990, 100: 1.984, 120: 1.980, 200: 1.972, 500: 1.965, 1000: 1.962,
}
Z975 = 1.959964
TRIM = 0.10
CI_REL_LIMIT = 0.05
BIMODAL_MIN_N = 20
MODE_MIN_MASS = 0.10    # each mode holds at least this fraction of all samples
VALLEY_RATIO = 0.55     # the valley is at most this fraction of the smaller peak
SARLE_THRESHOLD = 5.0 / 9.0
NOISE_SIGMAS = 2.0      # peak minus valley must exceed this many Poisson sigmas (at least)
SMOOTH_NOISE = 0.61     # noise left after the [1,2,1]/4 kernel: sqrt(1+4+1)/4
# At least this many bins across p1..p99 (10 merged a 50/50 mixture 4 sigma apart at N = 200 in
# over half of the trials), and the multiple of sqrt(2 ln bins) Poisson sigmas a dip must beat.
# Tuned by seeded simulation (tests/python/test_stats.py): that mixture found in ~96% of trials,
# no false alarm on normal, lognormal, exponential or heavy-tailed timing data.
MIN_BINS = 16.0
NOISE_SCALE = 0.9
# Below BIMODAL_MIN_N (the default run's 16 samples per set) a histogram means nothing; a gap test
# runs instead from SMALL_MIN_N: the widest gap between two groups of >= SMALL_SIDE of the values
# each, over the mean of the groups' own robust spreads (MAD x 1.4826), against a threshold per N
# at the 99th percentile of the statistic for normal, lognormal(0, 0.5), exponential and t(3)
# data (simulation, 4000 draws each, seed 7): <= 1% false alarms on those, and it finds only
# well separated modes (50/50, 8 sigma apart: ~70% at N = 16; 4 sigma: rarely).
SMALL_MIN_N = 8
SMALL_SIDE = 0.25
SMALL_GAP_LIMIT = {8: 13.5, 9: 10.3, 10: 9.5, 11: 9.5, 12: 8.8, 13: 5.8, 14: 4.8, 15: 4.8,
                   16: 4.7, 17: 3.5, 18: 3.5, 19: 3.5}
MAD_NORMAL = 1.4826     # MAD x this estimates the standard deviation of normal data


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


def _bin_width(sorted_xs, lo, hi, quantum):
    """Freedman-Diaconis width over the central values, at least 10 bins across [lo, hi], and
    snapped to whole steps of the value quantum (integer cycle counts must not fall unevenly
    into bins, which would draw a comb of fake valleys)."""
    central = [x for x in sorted_xs if lo <= x <= hi]
    iqr = percentile(central, 75) - percentile(central, 25)
    width = 2.0 * iqr / len(central) ** (1.0 / 3.0)
    if width <= 0:  # over half the values equal: fall back to sqrt(n) bins
        width = (hi - lo) / math.sqrt(len(central))
    width = min(width, (hi - lo) / MIN_BINS)
    if quantum and quantum > 0:
        width = max(quantum, math.ceil(width / quantum - 1e-9) * quantum)
    return width


def _histogram(sorted_xs, lo, hi, quantum):
    """Sparse histogram over [lo, hi]. The bin count is not capped (a heavy tail would otherwise
    widen the bins until close modes merge): empty stretches are compressed to at most three zero
    cells, which is all the 3-point smoothing can tell apart. Returns (start, width, cells, counts,
    below, above) with cells[i] the bin index of counts[i]."""
    width = _bin_width(sorted_xs, lo, hi, quantum)
    if not math.isfinite((hi - lo) / width):  # bins of 1 across 1e308: no histogram to draw
        return None
    start = lo - quantum / 2.0 if quantum and quantum > 0 else lo  # lattice points centred
    binned = {}
    below = above = 0
    for x in sorted_xs:
        if x < lo:
            below += 1
        elif x > hi:
            above += 1
        else:
            k = int((x - start) / width)
            binned[k] = binned.get(k, 0) + 1
    cells, counts = [], []
    for k in sorted(binned):
        if cells:
            gap = k - cells[-1] - 1
            # Empty bins next to data, and one truly empty bin in between for longer gaps.
            fill = [] if gap <= 0 else [cells[-1] + 1] if gap == 1 else \
                [cells[-1] + 1, k - 1] if gap == 2 else [cells[-1] + 1, cells[-1] + 2, k - 1]
            cells.extend(fill)
            counts.extend([0] * len(fill))
        cells.append(k)
        counts.append(binned[k])
    return start, width, cells, counts, below, above


def _smooth(counts):
    """One pass of a [1, 2, 1] / 4 kernel; the edges reuse their own value (no mass leaks)."""
    n = len(counts)
    if n < 3:
        return [float(c) for c in counts]
    out = []
    for i in range(n):
        left = counts[i - 1] if i > 0 else counts[i]
        right = counts[i + 1] if i < n - 1 else counts[i]
        out.append((left + 2.0 * counts[i] + right) / 4.0)
    return out


def _basins(smooth, counts):
    """Split the histogram at local minima into basins (one per local maximum), then merge basins
    whose separating valley is not clearly below their peak (persistence-style merging, weakest
    first, via a heap so thousands of tail specks stay cheap)."""
    n = len(smooth)
    cuts = []  # strict-or-plateau local minima between rising flanks
    i = 1
    while i < n - 1:
        j = i
        while j + 1 < n and smooth[j + 1] == smooth[i]:
            j += 1
        if j < n - 1 and smooth[i - 1] > smooth[i] < smooth[j + 1]:
            cuts.append((i + j) // 2)
        i = j + 1
    bounds = [0] + cuts + [n]
    segs = []
    for a, b in zip(bounds, bounds[1:]):
        peak_i = max(range(a, b), key=lambda k: smooth[k])
        segs.append({"lo": a, "hi": b, "peak": smooth[peak_i], "peak_i": peak_i,
                     "mass": sum(counts[a:b])})
    m = len(segs)
    # The deepest of many noisy dips is deeper than one: raise the bar with the number of bins
    # (the expected maximum of n Gaussian deviates grows like sqrt(2 ln n)).
    sigmas = max(NOISE_SIGMAS, NOISE_SCALE * math.sqrt(2.0 * math.log(max(n, 2))))
    prev, nxt = list(range(-1, m - 1)), list(range(1, m + 1))
    alive, version = [True] * m, [0] * m
    nxt[-1] = -1

    def valleys(k):
        out = []
        if prev[k] >= 0:
            out.append(smooth[segs[k]["lo"]])
        if nxt[k] >= 0:
            out.append(smooth[segs[nxt[k]]["lo"]])
        return out

    def weakness(k):  # ratio of the higher neighbouring valley to the peak; None if it stands
        vals = valleys(k)
        if not vals:
            return None
        peak = segs[k]["peak"]
        ratio = max(vals) / peak if peak > 0 else float("inf")
        # Clearly lower: relative depth, and deeper than counting noise. The noise is that of
        # (peak - valley) for Poisson counts if there were no valley (both at peak level); the
        # observed valley would understate the noise of a chance dip. Tuned on synthetic data:
        # no false alarms on normal, lognormal, exponential-, Pareto- and Cauchy-tailed sets;
        # 80/20 clusters found reliably from N ~ 200.
        noise = math.sqrt(2.0 * peak)
        if ratio <= VALLEY_RATIO and peak * (1.0 - ratio) > sigmas * SMOOTH_NOISE * noise:
            return None
        return ratio

    heap = []

    def push(k):
        version[k] += 1
        w = weakness(k)
        if w is not None:
            heapq.heappush(heap, (-w, version[k], k))

    for k in range(m):
        push(k)
    while heap:
        _, ver, k = heapq.heappop(heap)
        if not alive[k] or ver != version[k]:
            continue
        lo_v = smooth[segs[k]["lo"]] if prev[k] >= 0 else -1.0
        hi_v = smooth[segs[nxt[k]]["lo"]] if nxt[k] >= 0 else -1.0
        other = prev[k] if lo_v >= hi_v else nxt[k]  # merge across the higher valley
        a, c = (other, k) if other == prev[k] else (k, other)
        sa, sc = segs[a], segs[c]
        top = sa if sa["peak"] >= sc["peak"] else sc
        segs[a] = {"lo": sa["lo"], "hi": sc["hi"], "peak": top["peak"], "peak_i": top["peak_i"],
                   "mass": sa["mass"] + sc["mass"]}
        alive[c] = False
        nxt[a] = nxt[c]
        if nxt[c] >= 0:
            prev[nxt[c]] = a
        for j in (a, prev[a], nxt[a]):
            if j >= 0:
                push(j)
    return [segs[k] for k in range(m) if alive[k]]


def _mad(xs):
    """Median absolute deviation from the median, scaled to a normal standard deviation."""
    s = sorted(xs)
    med = percentile(s, 50)
    return MAD_NORMAL * percentile(sorted(abs(x - med) for x in s), 50)


def _small_n_gap_test(sorted_xs, quantum, res):
    """The gap test for SMALL_MIN_N <= N < BIMODAL_MIN_N (see SMALL_GAP_LIMIT)."""
    n = len(sorted_xs)
    side = max(3, int(math.ceil(SMALL_SIDE * n)))
    best, at = 0.0, None
    for k in range(side, n - side + 1):
        spread = (_mad(sorted_xs[:k]) + _mad(sorted_xs[k:])) / 2.0
        spread = max(spread, quantum or 0.0)  # integer counts: a gap of one step is no gap
        gap = sorted_xs[k] - sorted_xs[k - 1]
        g = gap / spread if spread > 0 else (math.inf if gap > 0 else 0.0)
        if g > best:
            best, at = g, k
    limit = SMALL_GAP_LIMIT[n]
    how = ("small-N gap test (N=%d < %d for the histogram): widest gap between groups of >= %d "
           "values is %s robust spreads, limit %.1f (<= 1%% false alarms on unimodal data; finds "
           "only well separated modes at this N)" % (
               n, BIMODAL_MIN_N, side, "%.2f" % best if best != math.inf else "inf", limit))
    if at is not None and best > limit:
        lo, hi = sorted_xs[:at], sorted_xs[at:]
        res["bimodal"] = True
        res["modes"] = [{"at": percentile(g, 50), "fraction": len(g) / n, "peak": None,
                         "valley_after": None} for g in (lo, hi)]
        res["explanation"] = "2 modes (%.0f%% near %.4g; %.0f%% near %.4g): %s" % (
            100 * len(lo) / n, res["modes"][0]["at"], 100 * len(hi) / n, res["modes"][1]["at"],
            how)
    else:
        res["explanation"] = "unimodal: " + how
    return res


def detect_modes(sorted_xs, quantum=None):
    """Mode detector. Returns dict(bimodal, explanation, modes, bins, bin_width).

    From SMALL_MIN_N to BIMODAL_MIN_N - 1 values: the small-N gap test (_small_n_gap_test).
    From BIMODAL_MIN_N: a histogram over p1..p99 (tails beyond cannot create modes but count
    towards their side's mass), at least MIN_BINS bins, light smoothing, basins merged unless
    separated by a valley <= VALLEY_RATIO of the smaller peak and deeper than counting noise; the
    data are called bimodal when at least two surviving basins each hold >= 10% of all samples.
    """
    n = len(sorted_xs)
    res = {"bimodal": False, "modes": [], "bins": 0, "bin_width": None}
    if n < SMALL_MIN_N:
        res["explanation"] = "not tested: N=%d is below %d" % (n, SMALL_MIN_N)
        return res
    if sorted_xs[0] == sorted_xs[-1]:
        res["explanation"] = "unimodal: all values are equal"
        return res
    if not math.isfinite(float(sorted_xs[-1]) - float(sorted_xs[0])):
        res["explanation"] = "not tested: the values span more than a float holds"
        return res
    if n < BIMODAL_MIN_N:
        return _small_n_gap_test(sorted_xs, quantum, res)
    lo, hi = percentile(sorted_xs, 1), percentile(sorted_xs, 99)
    if hi <= lo:
        res["explanation"] = "unimodal: p1..p99 is a single value (outliers aside)"
        return res
    hist = _histogram(sorted_xs, lo, hi, quantum)
    if hist is None:
        res["explanation"] = "not tested: p1..p99 spans too many bins to count"
        return res
    start, width, cells, counts, below, above = hist
    smooth = _smooth(counts)
    basins = _basins(smooth, counts)
    basins[0]["mass"] += below
    basins[-1]["mass"] += above
    nbins = cells[-1] - cells[0] + 1
    res["bins"], res["bin_width"] = nbins, width
    modes = []
    for k, b in enumerate(basins):
        # Locate the mode by the median of the values in its peak bin (finer than the bin).
        b_lo = start + cells[b["peak_i"]] * width
        inside = sorted_xs[bisect.bisect_left(sorted_xs, b_lo):
                           bisect.bisect_left(sorted_xs, b_lo + width)]
        at = inside[len(inside) // 2] if inside else b_lo + width / 2
        modes.append({"at": at, "fraction": b["mass"] / n, "peak": b["peak"],
                      "valley_after": smooth[basins[k + 1]["lo"]] if k + 1 < len(basins) else None})
    big = [m for m in modes if m["fraction"] >= MODE_MIN_MASS]
    res["modes"] = modes
    desc = "; ".join("%.0f%% near %.4g" % (100 * m["fraction"], m["at"]) for m in big)
    hist = "%d bins of %.4g over p1..p99, smoothed" % (nbins, width)
    if len(big) >= 2:
        res["bimodal"] = True
        res["explanation"] = ("%d modes each holding >= %d%% of samples (%s), separated by "
                              "valleys <= %d%% of the smaller peak (%s)"
                              % (len(big), 100 * MODE_MIN_MASS, desc, 100 * VALLEY_RATIO, hist))
    elif not big:
        res["explanation"] = ("no mode holds %d%% of samples: flat or many small bumps, not "
                              "called bimodal (%s)" % (100 * MODE_MIN_MASS, hist))
    else:
        minor = len(modes) - len(big)
        res["explanation"] = "unimodal: one main mode (%s)%s (%s)" % (
            desc, "; %d minor bump(s) below %d%% of samples" % (minor, 100 * MODE_MIN_MASS)
            if minor else "", hist)
    return res


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
    out = {"n": n, "min": s[0], "max": s[-1], "mean": mean, "median": percentile(s, 50),
           "trimmed_mean": trimmed_mean(s),
           # a 1% tail quantile only where the sample reaches past it (N >= 100): below that the
           # "p99" of a few samples is an interpolation towards the maximum, not a percentile
           "p1": percentile(s, 1) if tail_quantile_ok(n, 0.99, PCTL_MIN_BEYOND) else None,
           "p99": percentile(s, 99) if tail_quantile_ok(n, 0.99, PCTL_MIN_BEYOND) else None}
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
