"""Compare two runs set by set (`baremetric compare RUN_A RUN_B`).

Each run is a parse directory (summary.json + raw/) or a serial log, which is parsed into a
temporary directory first. Sets are matched by probe name and parameters -- leaving out the
parameters that calibration or the shuffle choose anew each boot (MATCH_IGNORE); a parameter set
that occurs twice in one run is matched in order. For each pair: the medians of the cycles per
operation, their difference (absolute and relative to A), Welch's t-test on the per-operation
values from the raw files (the summary's mean, stddev and N when a raw file is missing), and a
practical threshold: a difference matters when it is significant (p < alpha) *and* the medians
differ by at least the threshold. Sets found in one run only are listed.

The t distribution's tail comes from the regularised incomplete beta function (continued
fraction, as in Numerical Recipes' betacf), standard library only.
"""

import json
import math
import os
import tempfile

from . import parse, stats

ALPHA = 0.05
THRESHOLD_PCT = 2.0
# Chosen by the firmware per boot (calibration, shuffle seed): not part of a set's identity.
MATCH_IGNORE = {"target", "cal_steps", "cal_capped", "seed"}
# Follow from other parameters: not worth a column.
DERIVED = {"bytes_per_op", "read_bytes", "write_bytes", "nodes"}


# --- Student t tail ---------------------------------------------------------------------------

def _betacf(a, b, x, max_iter=300, eps=3e-16):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, max_iter + 1):
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
        if abs(delta - 1.0) < eps:
            break
    return h


def betainc(a, b, x):
    """Regularised incomplete beta I_x(a, b) for a, b > 0, 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
           + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):  # the fraction converges fast on this side
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_sf2(t, df):
    """Two-sided tail P(|T| >= |t|) of Student's t with df (> 0, need not be whole) degrees."""
    if math.isinf(t):
        return 0.0
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def welch(a, b):
    """Welch's unequal-variance t-test from (mean, variance, n) pairs. Returns {t, df, p} or
    None when either side has fewer than 2 values."""
    (ma, va, na), (mb, vb, nb) = a, b
    if na < 2 or nb < 2:
        return None
    sa, sb = va / na, vb / nb
    se2 = sa + sb
    if se2 == 0:  # both sides constant: equal or infinitely clear
        return {"t": 0.0 if ma == mb else math.copysign(math.inf, mb - ma),
                "df": float(na + nb - 2), "p": 1.0 if ma == mb else 0.0}
    t = (mb - ma) / math.sqrt(se2)
    den = (sa * sa / (na - 1) if sa else 0.0) + (sb * sb / (nb - 1) if sb else 0.0)
    df = se2 * se2 / den
    return {"t": t, "df": df, "p": t_sf2(t, df)}


def moments(xs):
    """(mean, sample variance, n) of a list."""
    n = len(xs)
    if n == 0:
        return (None, None, 0)
    mean = math.fsum(xs) / n
    var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    return (mean, var, n)


# --- runs and matching ------------------------------------------------------------------------

class RunError(Exception):
    pass


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
    """(mean, variance, n) of a set's per-operation values and where they came from."""
    try:
        _, raw = parse.read_raw(os.path.join(run["dir"], s.get("raw_file") or ""))
        if raw:
            return moments(stats.per_op(raw, s.get("overhead") or 0, s.get("iters") or 1)), "raw"
    except (OSError, ValueError):
        pass
    st = (s.get("stats") or {}).get("per_op") or {}
    sd = st.get("stddev")
    if st.get("n") and st.get("mean") is not None:
        return (st["mean"], sd * sd if sd is not None else 0.0, st["n"]), "summary"
    return (None, None, 0), "none"


def compare_pair(run_a, a, run_b, b, alpha=ALPHA, threshold_pct=THRESHOLD_PCT):
    """One row of the comparison (a dict)."""
    med_a = ((a.get("stats") or {}).get("per_op") or {}).get("median")
    med_b = ((b.get("stats") or {}).get("per_op") or {}).get("median")
    (va, src_a), (vb, src_b) = _values(run_a, a), _values(run_b, b)
    row = {"name": a.get("name"), "params": a.get("params") or {}, "set_a": a.get("set"),
           "set_b": b.get("set"), "n_a": va[2], "n_b": vb[2], "median_a": med_a,
           "median_b": med_b, "diff": None, "pct": None, "p": None, "significant": None,
           "practical": None, "notes": []}
    if med_a is not None and med_b is not None:
        row["diff"] = med_b - med_a
        row["pct"] = 100.0 * (med_b - med_a) / abs(med_a) if med_a else None
    test = welch(va, vb) if va[0] is not None and vb[0] is not None else None
    if "summary" in (src_a, src_b):
        row["notes"].append("t-test from summary stats (raw file missing)")
    if test is None:
        row["notes"].append("not tested: fewer than 2 values")
    else:
        row.update(p=test["p"], t=test["t"], df=test["df"], significant=test["p"] < alpha)
        if row["diff"] is not None and row["diff"] * (vb[0] - va[0]) < 0:
            row["notes"].append("means and medians moved in opposite directions")
    if row["pct"] is not None:
        row["practical"] = abs(row["pct"]) >= threshold_pct
    row["verdict"] = verdict(row)
    return row


def verdict(row):
    if row["significant"] is None:
        return "-"
    if not row["significant"]:
        return "no significant difference"
    if not row["practical"]:
        return "significant, below threshold"
    return "B slower" if row["diff"] > 0 else "B faster"


def compare(run_a, run_b, alpha=ALPHA, threshold_pct=THRESHOLD_PCT):
    """Everything compare.md shows: {"rows", "only_a", "only_b", "alpha", "threshold_pct"}."""
    pairs, only_a, only_b = match_sets(run_a["summary"].get("sets") or [],
                                       run_b["summary"].get("sets") or [])
    rows = [compare_pair(run_a, a, run_b, b, alpha, threshold_pct) for a, b in pairs]
    return {"rows": rows, "only_a": only_a, "only_b": only_b, "alpha": alpha,
            "threshold_pct": threshold_pct}


# --- rendering --------------------------------------------------------------------------------

def _shown_params(sets):
    """Per probe name, the parameters worth a column: those that differ between its sets (or
    that some of its sets lack)."""
    vals, count = {}, {}
    for s in sets:
        count[s.get("name")] = count.get(s.get("name"), 0) + 1
        for k, v in (s.get("params") or {}).items():
            vals.setdefault(s.get("name"), {}).setdefault(k, []).append(str(v))
    return {name: {k for k, vs in d.items() if (len(set(vs)) > 1 or len(vs) < count[name])
                   and k not in MATCH_IGNORE | DERIVED}
            for name, d in vals.items()}


def _params_text(s, shown):
    keep = shown.get(s.get("name"), set())
    return " ".join("%s=%s" % (k, v) for k, v in (s.get("params") or {}).items()
                    if k in keep) or "-"


def _run_kv(label, run):
    s = run["summary"]
    b, plat = s.get("begin") or {}, s.get("platform") or {}
    cpu = (plat.get("cpu") or {}).get("brand")
    hz = (plat.get("tsc") or {}).get("hz")
    return (label, "%s%s: build %s, %s, TSC %s, %d set(s)" % (
        run["path"], " (parsed)" if run["parsed"] else "", b.get("build", "-"), cpu or "cpu -",
        "%.6f GHz" % (hz / 1e9) if isinstance(hz, (int, float)) and hz else "-",
        len(s.get("sets") or [])))


def build_doc(run_a, run_b, res):
    from .report import Doc, fnum
    doc = Doc()
    doc.h("baremetric compare", 1)
    doc.kv([_run_kv("A", run_a), _run_kv("B", run_b)])
    rows = res["rows"]
    sig = [r for r in rows if r["significant"] and r["practical"]]
    doc.kv([("matched sets", "%d" % len(rows)),
            ("differences", "%d significant and >= %g%% (%d B slower, %d B faster); %d significant "
             "but smaller; %d not significant" % (
                 len(sig), res["threshold_pct"], sum(1 for r in sig if r["diff"] > 0),
                 sum(1 for r in sig if r["diff"] < 0),
                 sum(1 for r in rows if r["significant"] and not r["practical"]),
                 sum(1 for r in rows if r["significant"] is False))),
            ("only in A / only in B", "%d / %d" % (len(res["only_a"]), len(res["only_b"])))])
    doc.h("Matched sets")
    doc.p("cycles per operation, medians; diff = B - A (positive: B slower); p = Welch's t-test "
          "on the per-operation values (two-sided), significant at p < %g; practical: |diff| >= "
          "%g%% of A" % (res["alpha"], res["threshold_pct"]))
    shown = _shown_params(_all_sets(run_a, run_b))
    if rows:
        doc.table(["probe", "params", "set A/B", "N A/B", "median A", "median B", "diff",
                   "diff %", "p", "signif.", "practical", "verdict"],
                  [[r["name"], _params_text({"name": r["name"], "params": r["params"]}, shown),
                    "%s/%s" % (r["set_a"], r["set_b"]), "%s/%s" % (r["n_a"], r["n_b"]),
                    r["median_a"], r["median_b"], r["diff"],
                    "%+.2f%%" % r["pct"] if r["pct"] is not None else "-",
                    _fmt_p(r["p"]), fnum(r["significant"]), fnum(r["practical"]),
                    r["verdict"]] for r in rows])
        doc.list("%s set %s/%s: %s" % (r["name"], r["set_a"], r["set_b"], "; ".join(r["notes"]))
                 for r in rows if r["notes"])
    else:
        doc.p("no sets in common")
    for label, only in (("A", res["only_a"]), ("B", res["only_b"])):
        doc.h("Only in %s" % label, 3)
        if only:
            doc.table(["probe", "params", "set", "median"],
                      [[s.get("name"), _params_text(s, shown), str(s.get("set")),
                        ((s.get("stats") or {}).get("per_op") or {}).get("median")]
                       for s in only])
        else:
            doc.p("none")
    return doc


def _all_sets(run_a, run_b):
    return (run_a["summary"].get("sets") or []) + (run_b["summary"].get("sets") or [])


def _fmt_p(p):
    if p is None:
        return "-"
    return "<1e-300" if p < 1e-300 else "%.3g" % p
