"""The statistics of `compare`: Mann-Whitney U with its Hodges-Lehmann shift (within a boot: the
samples), Welch's t test (between boots: one median per boot), the prediction-interval t test
(one boot against several: is the one boot's median a plausible next boot of the other side?),
and Benjamini-Hochberg across the sets. Standard library only; the t distribution through the regularised incomplete beta function.
"""

import math

from ..stats import median  # the one convention (compare.py takes it from here)

WITHIN, BOOTS, ONE_VS_BOOTS = "within-boot", "boot-to-boot", "one-vs-boots"
TESTS = {WITHIN: "Mann-Whitney U on the samples (Hodges-Lehmann shift)",
         BOOTS: "Welch t on the per-boot medians (difference of their means)",
         ONE_VS_BOOTS: "prediction-interval t of the one boot's median against the other "
                       "side's boot medians (df = n - 1; assumes both sides' boot-to-boot "
                       "spread is the same)"}


def _ranks(a, b):
    """Mid-ranks of a + b pooled: (sum of b's ranks, sum over tie groups of t^3 - t)."""
    pooled = sorted([(x, 0) for x in a] + [(x, 1) for x in b])
    rank_b, ties, i = 0.0, 0.0, 0
    while i < len(pooled):
        j = i
        while j + 1 < len(pooled) and pooled[j + 1][0] == pooled[i][0]:
            j += 1
        t = j - i + 1
        mid = (i + j) / 2.0 + 1.0
        rank_b += mid * sum(1 for k in range(i, j + 1) if pooled[k][1])
        ties += t ** 3 - t
        i = j + 1
    return rank_b, ties


def mann_whitney(a, b):
    """Two-sided Mann-Whitney U test of B against A: normal approximation with tie correction and
    continuity correction (scipy's mannwhitneyu(method="asymptotic")). Returns {u, z, p} (u of B:
    pairs with b > a, ties counting 1/2) or None when a side has fewer than 2 values."""
    na, nb = len(a), len(b)
    if na < 2 or nb < 2:
        return None
    rank_b, ties = _ranks(a, b)
    n = na + nb
    u = rank_b - nb * (nb + 1) / 2.0
    mu = na * nb / 2.0
    var = na * nb / 12.0 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:  # every value equal
        return {"u": u, "z": 0.0, "p": 1.0}
    z = max(0.0, abs(u - mu) - 0.5) / math.sqrt(var)
    return {"u": u, "z": math.copysign(z, u - mu), "p": math.erfc(z / math.sqrt(2.0))}


def _count_le(sa, sb, d):
    """Number of pairs with b - a <= d (sa, sb sorted), by two pointers."""
    count, j = 0, 0
    for x in sa:
        while j < len(sb) and sb[j] <= x + d:
            j += 1
        count += j
    return count


def _kth_diff(sa, sb, k):
    """The k-th smallest (1-based) of the pairwise differences b - a, without forming them all:
    bisection on the value, then the largest difference at or below the bound found."""
    lo, hi = sb[0] - sa[-1], sb[-1] - sa[0]
    if _count_le(sa, sb, lo) >= k:
        return lo
    for _ in range(200):  # invariant: count(lo) < k <= count(hi)
        mid = lo + (hi - lo) / 2.0
        if mid <= lo or mid >= hi:
            break
        if _count_le(sa, sb, mid) >= k:
            hi = mid
        else:
            lo = mid
    best, j = None, 0
    for x in reversed(sa):  # largest b <= x + hi for each a
        while j < len(sb) and sb[len(sb) - 1 - j] > x + hi:
            j += 1
        if j < len(sb):
            d = sb[len(sb) - 1 - j] - x
            best = d if best is None else max(best, d)
    return best


def hl_shift(a, b):
    """Hodges-Lehmann shift: the median of all pairwise differences b - a, in the one
    convention (stats.median: rank ceil(m/2) of the m differences). It is the estimate that goes
    with the Mann-Whitney test (it is > 0 exactly when more than half of the pairs have b > a),
    so the direction of a verdict and its significance come from one statistic."""
    sa, sb = sorted(a), sorted(b)
    m = len(sa) * len(sb)
    return _kth_diff(sa, sb, (m + 1) // 2) if m else None


def benjamini_hochberg(ps):
    """Benjamini-Hochberg adjusted p-values (q-values) of a list; None entries stay None and do
    not count as tests. Calling q < alpha significant keeps the expected share of false
    discoveries among the sets called significant at alpha."""
    idx = sorted((i for i, p in enumerate(ps) if p is not None), key=lambda i: ps[i])
    m = len(idx)
    q = [None] * len(ps)
    running = 1.0
    for rank in range(m, 0, -1):
        i = idx[rank - 1]
        running = min(running, ps[i] * m / rank)
        q[i] = running
    return q



# --- Welch's t test on per-boot medians -----------------------------------------------------

def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a, b, x):
    """Regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
          + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(ln) * _betacf(a, b, x) / a
    return 1.0 - math.exp(ln) * _betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t, df):
    """P(|T| >= |t|) for Student's t with df (> 0, not necessarily whole) degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def _mean_var(xs):
    m = sum(xs) / len(xs)
    return m, sum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def welch(a, b):
    """Welch's two-sided t test of mean(B) - mean(A) with unequal variances (scipy's
    ttest_ind(equal_var=False)). Returns {diff, t, df, p}, or None with fewer than 2 values a
    side. Both sides constant: p 1 when equal, 0 when not."""
    if len(a) < 2 or len(b) < 2:
        return None
    ma, va = _mean_var(a)
    mb, vb = _mean_var(b)
    se2 = va / len(a) + vb / len(b)
    if se2 <= 0:
        return {"diff": mb - ma, "t": 0.0 if mb == ma else math.copysign(math.inf, mb - ma),
                "df": float(len(a) + len(b) - 2), "p": 1.0 if mb == ma else 0.0}
    t = (mb - ma) / math.sqrt(se2)
    df = se2 ** 2 / ((va / len(a)) ** 2 / (len(a) - 1) + (vb / len(b)) ** 2 / (len(b) - 1))
    return {"diff": mb - ma, "t": t, "df": df, "p": t_two_sided_p(t, df)}


def prediction_t(x, ys):
    """Is x a plausible new draw from the population ys came from? t = (x - mean) / (s *
    sqrt(1 + 1/n)) with df = n - 1: the prediction interval's t (s: the sample standard
    deviation of ys). One boot's median against another side's boot medians; it takes x's
    spread to be that of ys. Returns {diff (x - mean), t, df, p (two-sided)}, None with fewer
    than 2 ys; constant ys: p 1 when x equals them, else 0 (as welch does)."""
    n = len(ys)
    if n < 2:
        return None
    m, v = _mean_var(ys)
    if v <= 0:
        return {"diff": x - m, "t": 0.0 if x == m else math.copysign(math.inf, x - m),
                "df": float(n - 1), "p": 1.0 if x == m else 0.0}
    t = (x - m) / math.sqrt(v * (1.0 + 1.0 / n))
    return {"diff": x - m, "t": t, "df": float(n - 1), "p": t_two_sided_p(t, n - 1)}


# --- the effect of one row ----------------------------------------------------------------

def _one_vs_boots(ma, mb):
    """The effect B - A of one boot against 2+ (ma or mb has one median): the one boot's median
    against the other side's boot medians (prediction_t), effect = mean(B) - mean(A)."""
    if len(ma) == 1:
        pt = prediction_t(ma[0], mb)
        diff = -pt["diff"]  # the test's x is A's boot: B - A is the opposite sign
    else:
        pt = prediction_t(mb[0], ma)
        diff = pt["diff"]
    ref = sum(ma) / len(ma)
    return {"scope": ONE_VS_BOOTS, "p": pt["p"], "t": math.copysign(abs(pt["t"]), diff),
            "df": pt["df"], "shift": diff,
            "shift_pct": 100.0 * diff / abs(ref) if ref else None}


def estimate_effect(vals_a, vals_b, meds_a, meds_b):
    """The effect B - A and its test, from per-boot values (lists or None) and boot medians:
    boot-to-boot (Welch on the boot medians) with at least 2 boot medians a side; one boot
    against 2+ (the prediction-interval t: one-vs-boots); else within-boot (Mann-Whitney and
    Hodges-Lehmann on the samples pooled per side)."""
    out = {"scope": WITHIN, "shift": None, "shift_pct": None, "p": None, "notes": []}
    ma, mb = [m for m in meds_a if m is not None], [m for m in meds_b if m is not None]
    if len(ma) >= 2 and len(mb) >= 2:
        w = welch(ma, mb)
        ref = sum(ma) / len(ma)
        out.update(scope=BOOTS, p=w["p"], t=w["t"], df=w["df"], shift=w["diff"],
                   shift_pct=100.0 * w["diff"] / abs(ref) if ref else None)
        return out
    if min(len(ma), len(mb)) == 1 and max(len(ma), len(mb)) >= 2:
        out.update(_one_vs_boots(ma, mb))
        return out
    if any(v is None for v in vals_a) or any(v is None for v in vals_b) or not vals_a \
            or not vals_b:
        out["notes"].append("not tested: raw samples missing")
        return out
    pa, pb = [x for v in vals_a for x in v], [x for v in vals_b for x in v]
    test = mann_whitney(pa, pb)
    if test is None:
        out["notes"].append("not tested: fewer than 2 values")
        return out
    shift = hl_shift(pa, pb)
    ref = median(pa)
    out.update(p=test["p"], z=test["z"], u=test["u"], shift=shift,
               shift_pct=100.0 * shift / abs(ref) if ref else None)
    return out


def effect_order(row):
    """Sort key: the largest relative effect first, rows without one last."""
    sp = row.get("shift_pct")
    return (sp is None, -abs(sp) if sp is not None else 0.0)
