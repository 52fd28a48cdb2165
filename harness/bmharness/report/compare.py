"""compare.md and the terminal text of `baremetric compare` (`build_doc`), from analysis/compare.py's
result: the two runs, the clock they are compared in, the matched sets with medians, shift, p, q and
verdict, and the sets found in one run only.
"""

from .doc import Doc, fnum
from ..analysis import archinfo
from ..analysis.compare import MATCH_IGNORE, clock_hz, freq_text

# Follow from other parameters: not worth a column.
DERIVED = {"bytes_per_op", "read_bytes", "write_bytes", "nodes"}


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
    hz = clock_hz(s)
    return (label, "%s%s: build %s, %s, %s, %s %s, %d set(s)" % (
        run["path"], " (parsed)" if run["parsed"] else "", b.get("build", "-"), cpu or "cpu -",
        archinfo.arch(s), archinfo.clock(s)["hz_source"], freq_text(hz) if hz else "-",
        len(s.get("sets") or [])))


def build_doc(run_a, run_b, res):
    doc = Doc()
    doc.h("baremetric compare", 1)
    doc.kv([_run_kv("A", run_a), _run_kv("B", run_b)])
    basis = res.get("basis") or {"unit": "cycles", "text": "cycles", "warnings": []}
    doc.kv([("compared in", basis["text"])])
    doc.list("WARNING: " + w for w in basis["warnings"])
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
    doc.p("%s per operation; diff = median B - median A; shift = median of all pairwise "
          "differences B - A (Hodges-Lehmann; positive: B slower); p = Mann-Whitney U test of the "
          "same shift (two-sided, normal approximation with tie correction) on the per-operation "
          "values; q = p adjusted by %s over the %d tested sets: significant at q < %g "
          "(false discovery rate %g%%); practical: |shift| >= %g%% of median A; the verdict's "
          "direction is the shift's sign%s" % (basis["unit"] if basis["unit"] == "ns" else
                                             basis["text"].split(" (")[0],
                                             res["correction"], res["tests"], res["alpha"],
                                             100 * res["alpha"], res["threshold_pct"],
                                             "; sets with unit=pmu_cycles: PMU cycle counts"
                                             if any(r.get("unit") == "pmu_cycles" for r in rows)
                                             and basis["unit"] != "ns" else ""))
    shown = _shown_params(_all_sets(run_a, run_b))
    if rows:
        doc.table(["probe", "params", "set A/B", "N A/B", "median A", "median B", "diff",
                   "shift", "shift %", "p", "q", "signif.", "practical", "verdict"],
                  [[r["name"], _params_text({"name": r["name"], "params": r["params"]}, shown),
                    "%s/%s" % (r["set_a"], r["set_b"]), "%s/%s" % (r["n_a"], r["n_b"]),
                    r["median_a"], r["median_b"], r["diff"], r["shift"],
                    "%+.2f%%" % r["shift_pct"] if r["shift_pct"] is not None else "-",
                    _fmt_p(r["p"]), _fmt_p(r["q"]), fnum(r["significant"]), fnum(r["practical"]),
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
