"""Knee detection on a size sweep: where does a memory curve step to the next level?

`detect(points, rising)` takes (size, value) pairs of one curve -- cycles per load (rising=True:
a cache level ends where latency rises) or bytes per cycle (rising=False: bandwidth falls) -- and
returns the knees: the largest size before each significant step, i.e. the capacity estimate of
a cache level. `match(knee_sizes, levels, sizes)` pairs knees with the CPUID cache sizes.

The method works on y = log(value) over x = log2(size) (negated for bandwidth, so a step is
always a rise), so steps are relative and the sweep may be spaced irregularly:

1. Points whose samples were bimodal (their median may sit at either mode) are left out while
   they are at most a third of the curve. A running median of 3 (Tukey's end-point rule) then
   removes isolated outliers while leaving monotone stretches -- steps, slopes -- exactly as
   they are.
2. The noise is estimated from the non-zero residuals of that smoothing (monotone stretches
   leave none), and the threshold is T = max(log 1.15, min(5 noise, log 1.5)): a step under
   15% is never a cache level, one over 50% always may be.
3. A point i is a knee when (a) the smoothed curve rises by at least T over the next octave
   (steep); (b) it rose by at most half as much over the octave before i (the curve bends: a
   constant drift, such as TLB costs growing with the size, never qualifies); (c) the rest of
   the curve stays at least T/2 above point i (latency never falls back) -- for the last three
   points the raw values too; point i counts with its raw value when that is lower than the smoothed
   one yet level with the points before (an outlier inside a step can lift the smoothed one) --
   and the median level over the three octaves after i is at least
   T above the median of the two octaves up to i (persistent); (d) nothing in those two octaves
   before i is within T/2 of the level the step reaches (not the far edge of a dip); (e) at
   least one point lies before i and two after it. Candidates whose one-octave windows chain
   together form one step; the knee is the one followed by the steepest interval (per octave),
   so on a fine sweep it is the last point before the curve shoots up.

A flat curve therefore yields no knees; a step carried by the last point alone is mentioned in
the notes but not called a knee. Each knee has a confidence (high, medium, low) from the step's
size against T, the points on either side and outliers smoothed nearby.
"""

import math

from .. import stats

MIN_STEP = math.log(1.15)   # smallest step called a cache level (relative)
NOISE_K = 5.0               # the step must also exceed this many noise sigmas ...
MAX_STEP = math.log(1.5)    # ... but a 50% step always counts (outliers inflate the noise)
NONZERO_RESID = 0.72        # median non-zero |y - med3(y)| is ~0.72 sigma for Gaussian noise
PERSIST_OCT = 3.0           # octaves after a knee that must stay up
BEFORE_OCT = 2.0            # octaves before a knee that must stay below the new level
AGREE_LO, AGREE_HI = 0.5, 2.0   # a knee agrees with CPUID within [0.5x, 2x]
MATCH_OCT = 2.0             # a knee further than 4x from every CPUID size matches none
EPS = 1e-6


def _exp(x):
    """e^x, inf where it exceeds the float range (a step from 1e-300 to 1e300 is e^1381)."""
    return math.exp(x) if x < 709.0 else math.inf


def _expm1(x):
    """e^x - 1, likewise."""
    return math.expm1(x) if x < 709.0 else math.inf


def _med3(y):
    """Running median of 3 with Tukey's end-point rule (extrapolate from the two neighbours)."""
    n = len(y)
    if n < 3:
        return list(y)
    s = [y[0]] + [sorted(y[i - 1:i + 2])[1] for i in range(1, n - 1)] + [y[-1]]
    s[0] = sorted([y[0], s[1], 3 * s[1] - 2 * s[2]])[1]
    s[-1] = sorted([y[-1], s[-2], 3 * s[-2] - 2 * s[-3]])[1]
    return s


def noise_of(ys, smooth):
    """Robust noise (sigma of y) from the residuals of the running median. Monotone stretches
    -- steps and slopes -- leave no residual, so only the non-zero ones are used (their median is
    about 0.72 sigma for Gaussian noise); their median also ignores isolated outliers."""
    d = [abs(a - b) for a, b in zip(ys, smooth) if abs(a - b) > 1e-12]
    return stats.median(d) / NONZERO_RESID if d else 0.0


def prepare(points):
    """Sorted (size, value) with positive values; several values at one size -> their median.
    A point may carry a third item, True when its samples were bimodal (its median may sit at
    either mode): such points are left out while at most a third of the points are flagged and
    at least 4 remain. Returns (points, notes)."""
    good = [(p[0], p[1], bool(p[2]) if len(p) > 2 else False) for p in points
            if p[0] and p[1] and 0 < p[0] < math.inf and 0 < p[1] < math.inf]
    notes = []
    flagged = sorted({p[0] for p in good if p[2]})
    kept = [p for p in good if not p[2]]
    if flagged and len({p[0] for p in kept}) >= 4 and 3 * len(flagged) <= len({p[0] for p in good}):
        notes.append("left out %d bimodal point(s): %s" % (
            len(flagged), ", ".join(size_text(s) for s in flagged)))
        good = kept
    by_size = {}
    for size, value, _ in good:
        by_size.setdefault(size, []).append(value)
    return [(size, stats.median(vals)) for size, vals in sorted(by_size.items())], notes


def _fmt_ratio(r):
    return "x%.2f" % r


def detect(points, rising=True, what=None):
    """Knees of one curve. points: (size, value[, bimodal]) tuples; rising: True for latency (a
    level ends where the value rises), False for bandwidth (where it falls).

    Returns {"knees": [{size, next_size, change, step, confidence, note}], "noise": relative
    noise, "threshold": relative step threshold, "points": n, "notes": [...]}. `change` is the
    value ratio over the octave after the knee, `step` the ratio to the highest (latency) or lowest
    (bandwidth) value within three octaves."""
    what = what or ("latency" if rising else "bandwidth")
    pts, notes = prepare(points)
    res = {"knees": [], "noise": None, "threshold": None, "points": len(pts), "notes": notes}
    if len(pts) < 4:
        res["notes"].append("%d point(s): too few to look for knees (need 4)" % len(pts))
        return res
    sign = 1.0 if rising else -1.0
    xs = [math.log2(size) for size, _ in pts]
    ys = [sign * math.log(v) for _, v in pts]
    s = _med3(ys)
    resid = [abs(a - b) for a, b in zip(ys, s)]
    noise = noise_of(ys, s)
    thr = max(MIN_STEP, min(MAX_STEP, NOISE_K * noise))
    res["noise"], res["threshold"] = _expm1(noise), _expm1(thr)
    n = len(pts)
    cands = []
    for i in range(1, n - 2):
        j = max(k for k in range(i + 1, n) if k == i + 1 or xs[k] <= xs[i] + 1 + EPS)
        b = min(k for k in range(0, i) if k == i - 1 or xs[k] >= xs[i] - 1 - EPS)
        # An outlier inside the step may have lifted s[i]: then the raw value, if it is level
        # with the points before (and not itself a low outlier), is the better base.
        base = ys[i] if s[b] - thr / 2 <= ys[i] < s[i] else s[i]
        rise, before = s[j] - base, base - s[b]
        if rise < thr or before > rise / 2:
            continue
        if min(s[i + 1:]) < base + thr / 2:  # latency never falls back (nor bandwidth recovers)
            continue
        if n - 1 - i <= 3 and min(ys[i + 1:]) < base + thr / 2:  # no smoothing to lean on
            continue
        after = [k for k in range(j, n) if xs[k] <= xs[i] + PERSIST_OCT + EPS] or [j]
        prior = [k for k in range(0, i + 1) if xs[k] >= xs[i] - BEFORE_OCT - EPS]
        step = stats.median(s[k] for k in after) - stats.median(s[k] for k in prior)
        if step < thr or max(s[k] for k in prior) > s[j] - thr / 2:
            continue
        cands.append({"i": i, "j": j, "rise": rise, "step": step,
                      "slope": (s[i + 1] - base) / max(xs[i + 1] - xs[i], EPS)})
    clusters = []  # candidates whose one-octave windows chain together belong to one step
    for c in cands:
        if clusters and c["i"] <= clusters[-1][-1]["j"]:
            clusters[-1].append(c)
        else:
            clusters.append([c])
    for cl in clusters:
        c = max(cl, key=lambda c: c["slope"])  # where the step is steepest
        i, j, rise = c["i"], c["j"], c["rise"]
        # j itself always counts: after a gap in the sweep it may lie beyond PERSIST_OCT
        step = max(s[k] for k in range(j, n)
                   if k == j or xs[k] <= xs[i] + PERSIST_OCT + EPS) - s[i]
        issues = []
        if rise < 2 * thr:
            issues.append("step under twice the threshold")
        n_after = n - 1 - i
        if n_after < 3:
            issues.append("only %d points after it" % n_after)
        if i < 2:
            issues.append("only %d point before it" % i)
        near = [k for k in range(max(0, i - 1), min(n, j + 2)) if resid[k] > thr / 2]
        if near:
            issues.append("outlier(s) smoothed at %s" % ", ".join(
                size_text(pts[k][0]) for k in near))
        conf = "high" if not issues else "medium" if len(issues) == 1 and n_after >= 3 else "low"
        note = "%s %s within 1 octave, %s within %g octaves (threshold %s, noise %.1f%%)" % (
            what, _fmt_ratio(_exp(sign * rise)), _fmt_ratio(_exp(sign * step)),
            PERSIST_OCT, _fmt_ratio(_exp(sign * thr)), 100 * _expm1(noise))
        res["knees"].append({"size": pts[i][0], "next_size": pts[i + 1][0],
                             "change": _exp(sign * rise), "step": _exp(sign * step),
                             "confidence": conf,
                             "note": note + ("; " + "; ".join(issues) if issues else "")})
    # A step carried by the last point alone is not a knee (one point may be an outlier).
    if ys[-1] - s[-2] >= thr:
        res["notes"].append("the last point (%s) is %s the one before it: one point is not "
                            "enough to call a knee" % (size_text(pts[-1][0]),
                                                       "above" if rising else "below"))
    return res


def size_text(n):
    """Bytes as '32 KiB', '1.5 MiB'."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            v = n / scale
            return ("%d %s" % (v, unit)) if v == int(v) else ("%.3g %s" % (v, unit))
    return "%d B" % n


def covered(size, sizes):
    """Whether a sweep over `sizes` could show a knee at `size` (two points up to it, two
    beyond)."""
    return (sum(1 for s in sizes if s <= size * (1 + EPS)) >= 2
            and sum(1 for s in sizes if s > size * (1 + EPS)) >= 2)


def match(knee_sizes, levels, sizes):
    """Pair knee sizes with CPUID levels ([{"name", "size"}], any order), closest in log size
    first, within 4x. Returns (per level [{level, knee, ratio, status}], unmatched knee sizes).
    status: agree (within [0.5x, 2x]), DISAGREE (matched further off), no knee (the sweep covers
    the size but shows no knee), outside sweep."""
    pairs = sorted((abs(math.log2(k / lv["size"])), li, ki)
                   for li, lv in enumerate(levels) for ki, k in enumerate(knee_sizes)
                   if lv.get("size") and abs(math.log2(k / lv["size"])) <= MATCH_OCT + EPS)
    used_l, used_k, found = set(), set(), {}
    for _, li, ki in pairs:
        if li not in used_l and ki not in used_k:
            used_l.add(li)
            used_k.add(ki)
            found[li] = knee_sizes[ki]
    out = []
    for li, lv in enumerate(levels):
        knee = found.get(li)
        if knee is not None:
            ratio = knee / lv["size"]
            status = "agree" if AGREE_LO - EPS <= ratio <= AGREE_HI + EPS else "DISAGREE"
        else:
            ratio = None
            status = "no knee" if covered(lv["size"], sizes) else "outside sweep"
        out.append({"level": lv, "knee": knee, "ratio": ratio, "status": status})
    extra = [k for ki, k in enumerate(knee_sizes) if ki not in used_k]
    return out, extra
