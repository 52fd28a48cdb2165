"""Compare two runs set by set (`baremetric compare RUN_A RUN_B`).

Each run is a parse directory (summary.json + raw/) or a serial log, which is parsed into a
temporary directory first. Sets are matched by probe name and parameters -- leaving out the
parameters that calibration or the shuffle choose anew each boot (MATCH_IGNORE); a parameter set
that occurs twice in one run is matched in order. For each pair: the medians of the cycles per
operation and their difference, and -- on the per-operation values from the raw files -- the
Hodges-Lehmann shift (the median of all pairwise differences B - A) with the Mann-Whitney U test
of that same shift (normal approximation, tie and continuity corrections). Hundreds of sets are
tested at once, so the p-values are adjusted by Benjamini-Hochberg across all tested sets: a set
is significant when its q < alpha (the false discovery rate). A difference matters when it is
significant *and* the shift is at least the threshold (% of A's median); its direction is the
shift's sign, the statistic the test is about. A set whose raw file is missing is not tested.
Sets found in one run only are listed. Standard library only.

The two runs' clocks must count the same thing (clock_basis): runs of different architectures
(begin arch: x86_64's TSC cycles against AArch64's generic-timer ticks) are refused. Runs of one
architecture whose clock frequencies differ by more than FREQ_TOL are compared in ns, each run's
values divided by its own frequency (sets in PMU cycles of no known rate are then not tested).
compare.md and the terminal text are report/compare.py's.
"""

import json
import math
import os
import tempfile

from . import archinfo
from ..stream import parse, stats

ALPHA = 0.05  # false discovery rate across all matched sets (Benjamini-Hochberg)
CORRECTION = "Benjamini-Hochberg"
THRESHOLD_PCT = 2.0
# Clock frequencies further apart than this (relative) make cycles incomparable: compare in ns.
# Far above the calibration spread of one machine (ppm), below the practical threshold.
FREQ_TOL = 0.01
# Chosen by the firmware per boot (calibration, shuffle seed): not part of a set's identity.
MATCH_IGNORE = {"target", "cal_steps", "cal_capped", "seed"}


# --- the test: Mann-Whitney U and its shift, Benjamini-Hochberg across sets ------------------

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
    """Hodges-Lehmann shift: the median of all pairwise differences b - a. It is the estimate
    that goes with the Mann-Whitney test (it is > 0 exactly when more than half of the pairs
    have b > a), so the direction of a verdict and its significance come from one statistic."""
    sa, sb = sorted(a), sorted(b)
    m = len(sa) * len(sb)
    if m == 0:
        return None
    lo = _kth_diff(sa, sb, (m + 1) // 2)
    return lo if m % 2 else (lo + _kth_diff(sa, sb, m // 2 + 1)) / 2.0


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


# --- runs and matching ------------------------------------------------------------------------

class RunError(Exception):
    pass


class ClockMismatch(RunError):
    """The runs' cycles count different clocks and cannot be put on one scale."""


def clock_hz(summary):
    """The run's clock frequency (plat kind=tsc hz), or None when it states no usable one."""
    hz = ((summary.get("platform") or {}).get("tsc") or {}).get("hz")
    return float(hz) if isinstance(hz, (int, float)) and not isinstance(hz, bool) and hz > 0 else None


def _clock_text(summary):
    clk, hz = archinfo.clock(summary), clock_hz(summary)
    return "%s: %s%s" % (archinfo.arch(summary), clk["unit"] if clk["unit"] != "cycles" else
                         "%s cycles" % clk["name"],
                         " at %s" % freq_text(hz) if hz else ", frequency not stated")


def freq_text(hz):
    """hz as '2.445406 GHz' (or MHz below 1 GHz)."""
    return "%.6f GHz" % (hz / 1e9) if hz >= 1e9 else "%.6g MHz" % (hz / 1e6)


def clock_basis(sum_a, sum_b):
    """How the two runs' per-operation values can be compared: {"unit": "cycles" or "ns",
    "scale_a", "scale_b" (ns per clock count, or None), "text", "warnings"}. Raises
    ClockMismatch when the architectures differ (their clocks count different things)."""
    arch_a, arch_b = archinfo.arch(sum_a), archinfo.arch(sum_b)
    if arch_a != arch_b:
        raise ClockMismatch(
            "cannot compare these runs: A counts %s, B counts %s; their cycles are not comparable "
            "(compare runs of one architecture)" % (_clock_text(sum_a), _clock_text(sum_b)))
    hz_a, hz_b = clock_hz(sum_a), clock_hz(sum_b)
    clk = archinfo.clock(sum_a)
    out = {"unit": "cycles", "scale_a": None, "scale_b": None, "warnings": [],
           "text": "%s (%s)" % (clk["unit"], _clock_text(sum_a))}
    if hz_a and hz_b and abs(hz_a - hz_b) > FREQ_TOL * max(hz_a, hz_b):
        out.update(unit="ns", scale_a=1e9 / hz_a, scale_b=1e9 / hz_b,
                   text="ns: the clocks differ by %.1f%% (A %s, B %s), so each run's %s are "
                   "divided by its own frequency" % (100.0 * abs(hz_b - hz_a) / hz_a,
                                                     freq_text(hz_a), freq_text(hz_b), clk["unit"]))
    elif not (hz_a and hz_b):
        out["warnings"].append("%s states no clock frequency: %s compared as they are (right only "
                               "if both clocks tick at one rate)" % (
                                   " and ".join(n for n, h in (("A", hz_a), ("B", hz_b)) if not h),
                                   clk["unit"]))
    return out


def load_run(path, tmp_root):
    """A run from a parse directory, a summary.json or a serial log (parsed under tmp_root).
    Returns {"path", "dir", "summary", "parsed": bool}."""
    if os.path.isdir(path):
        sj = os.path.join(path, "summary.json")
        if not os.path.exists(sj):
            raise RunError("%s has no summary.json (run `parse` first, or give the log)" % path)
        with open(sj) as fh:
            return {"path": path, "dir": path, "summary": json.load(fh), "parsed": False}
    if not os.path.isfile(path):
        raise RunError("%s: no such file or directory" % path)
    if path.endswith(".json"):
        with open(path) as fh:
            return {"path": path, "dir": os.path.dirname(path) or ".",
                    "summary": json.load(fh), "parsed": False}
    out = tempfile.mkdtemp(prefix="parse-", dir=tmp_root)
    summary = parse.parse_log(path, out)
    if not summary.get("sets") and not summary.get("begin"):
        raise RunError("%s: neither a parse directory nor a log with baremetric records" % path)
    return {"path": path, "dir": out, "summary": summary, "parsed": True}


def set_key(s):
    params = s.get("params") or {}
    return (s.get("name"), tuple(sorted((k, str(v)) for k, v in params.items()
                                        if k not in MATCH_IGNORE)))


def match_sets(sets_a, sets_b):
    """Pairs by set_key (k-th with k-th when a key repeats). Returns (pairs, only_a, only_b)."""
    ib = {}
    for s in sets_b:
        ib.setdefault(set_key(s), []).append(s)
    used = {}
    pairs, only_a = [], []
    for s in sets_a:  # in A's order
        key = set_key(s)
        k = used.get(key, 0)
        used[key] = k + 1
        if k < len(ib.get(key, [])):
            pairs.append((s, ib[key][k]))
        else:
            only_a.append(s)
    only_b = [s for key, bs in ib.items() for s in bs[used.get(key, 0):]]
    return pairs, only_a, only_b


def _values(run, s):
    """A set's per-operation values from its raw file (None when it cannot be read)."""
    try:
        _, raw = parse.read_raw(os.path.join(run["dir"], s.get("raw_file") or ""))
    except (OSError, ValueError):
        return None
    raw = parse.usable(raw)  # as the summary's statistics: wrapped samples left out
    return stats.per_op(raw, s.get("overhead") or 0, s.get("iters") or 1) if raw else None


def _scaled(x, scale):
    if x is None or scale is None:
        return x
    return [v * scale for v in x] if isinstance(x, list) else x * scale


def compare_pair(run_a, a, run_b, b, threshold_pct=THRESHOLD_PCT, basis=None):
    """One row of the comparison (a dict); `significant` is decided across all rows (compare).
    basis: clock_basis() (None: cycles as they are)."""
    sa, sb = (basis or {}).get("scale_a"), (basis or {}).get("scale_b")
    med_a = _scaled(((a.get("stats") or {}).get("per_op") or {}).get("median"), sa)
    med_b = _scaled(((b.get("stats") or {}).get("per_op") or {}).get("median"), sb)
    va, vb = _scaled(_values(run_a, a), sa), _scaled(_values(run_b, b), sb)
    unit_a, unit_b = a.get("unit", "cycles"), b.get("unit", "cycles")
    why_not = ("units differ (%s / %s)" % (unit_a, unit_b) if unit_a != unit_b else
               "%s of no known rate cannot be put in ns" % unit_a
               if sa is not None and unit_a == "pmu_cycles" else None)
    if why_not:
        med_a = med_b = va = vb = None
    row = {"name": a.get("name"), "params": a.get("params") or {}, "set_a": a.get("set"),
           "set_b": b.get("set"), "unit": unit_a, "n_a": len(va) if va else 0, "n_b": len(vb) if vb else 0,
           "median_a": med_a, "median_b": med_b, "diff": None, "pct": None, "shift": None,
           "shift_pct": None, "p": None, "q": None, "significant": None, "practical": None,
           "notes": []}
    if med_a is not None and med_b is not None:
        row["diff"] = med_b - med_a
        row["pct"] = 100.0 * (med_b - med_a) / abs(med_a) if med_a else None
    if why_not:
        row["notes"].append("not compared: " + why_not)
        return row
    if va is None or vb is None:
        row["notes"].append("not tested: raw samples missing")
        return row
    test = mann_whitney(va, vb)
    if test is None:
        row["notes"].append("not tested: fewer than 2 values")
        return row
    row.update(p=test["p"], z=test["z"], u=test["u"], shift=hl_shift(va, vb))
    ref = med_a if med_a else stats.percentile(sorted(va), 50)
    row["shift_pct"] = 100.0 * row["shift"] / abs(ref) if ref else None
    if row["shift_pct"] is not None:
        row["practical"] = abs(row["shift_pct"]) >= threshold_pct
    if row["diff"] and row["shift"] and row["diff"] * row["shift"] < 0:
        row["notes"].append("medians and the pairwise shift moved in opposite directions")
    return row


def verdict(row):
    if row["significant"] is None:
        return "-"
    if not row["significant"]:
        return "no significant difference"
    if not row["practical"]:
        return "significant, below threshold"
    return "B slower" if row["shift"] > 0 else "B faster"


def compare(run_a, run_b, alpha=ALPHA, threshold_pct=THRESHOLD_PCT):
    """Everything compare.md shows (report/compare.py): {"rows", "only_a", "only_b", "alpha", "threshold_pct",
    "tests", "correction"}. Significance is q < alpha after Benjamini-Hochberg over every
    tested pair of the two runs. Raises ClockMismatch for runs of different architectures."""
    basis = clock_basis(run_a["summary"], run_b["summary"])
    pairs, only_a, only_b = match_sets(run_a["summary"].get("sets") or [],
                                       run_b["summary"].get("sets") or [])
    rows = [compare_pair(run_a, a, run_b, b, threshold_pct, basis) for a, b in pairs]
    for row, q in zip(rows, benjamini_hochberg([r["p"] for r in rows])):
        row["q"] = q
        row["significant"] = q < alpha if q is not None else None
        row["verdict"] = verdict(row)
    return {"rows": rows, "only_a": only_a, "only_b": only_b, "alpha": alpha,
            "threshold_pct": threshold_pct, "tests": sum(1 for r in rows if r["p"] is not None),
            "correction": CORRECTION, "basis": basis}

