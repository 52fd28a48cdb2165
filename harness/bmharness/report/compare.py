"""compare.md, compare.json and the terminal text of `baremetric compare`, from
analysis/compare.py's result: the runs of each side, the unit and the method (stated in the
header), the matched sets sorted by effect size, the per-cache-level comparison, and the sets
found on one side only.
"""

from .doc import Doc, fbytes
from ..analysis import archinfo, compare_config
from ..analysis.compare import BOOTS, ONE_VS_BOOTS, TESTS, WITHIN, clock_hz, freq_text
from ..stream import set_identity

ONLY_ROWS = 40  # sets listed per "only in" table; compare.json lists them all


def _run_text(run):
    s = run["summary"]
    b, plat = s.get("begin") or {}, s.get("platform") or {}
    cpu = (plat.get("cpu") or {}).get("brand")
    hz = clock_hz(s)
    return "%s%s: build %s, %s, %s, %s %s, %d set(s)" % (
        run["path"], " (parsed)" if run["parsed"] else "", b.get("build", "-"), cpu or "cpu -",
        archinfo.arch(s), archinfo.clock(s)["hz_source"], freq_text(hz) if hz else "-",
        len(s.get("sets") or []))


def method_text(res):
    """The header's statement of how sets are compared (also compare.json's "method")."""
    spread = res.get("boot_spread_pct")
    if res["scope"] == BOOTS:
        how = ("boot-to-boot: %d boots of A, %d of B; the boot is the unit of comparison: per set "
               "each boot's median, then %s; effect = mean of B's boot medians - mean of A's"
               % (res["boots_a"], res["boots_b"], TESTS[BOOTS]))
    elif res["scope"] == ONE_VS_BOOTS:
        one, many = ("A", "B") if res["boots_a"] == 1 else ("B", "A")
        how = ("one boot against several (%d boot(s) of A, %d of B): per set each boot's median; "
               "%s's one median against %s's boot medians by the prediction-interval t test "
               "(t = (x - mean) / (s * sqrt(1 + 1/n)), df = n - 1); it ASSUMES %s's "
               "boot-to-boot spread equals %s's, which only %s's boots show; effect = mean of "
               "B's boot medians - mean of A's" % (res["boots_a"], res["boots_b"], one, many,
                                                   one, many, many))
        if spread:
            how += "; the stated boot spread (%g%%) is not used: %s's boots give it" % (
                spread, many)
    else:
        how = ("within-boot only (%d boot(s) of A, %d of B; two or more on a side compare "
               "boot medians instead): %s; the verdicts know the variation inside a boot only"
               % (res["boots_a"], res["boots_b"], TESTS[WITHIN]))
        how += ("; a shift under the stated boot-to-boot spread of %g%% is not called a "
                "difference" % spread if spread else
                "; no boot-to-boot spread stated (--boot-spread PCT): a difference may be the "
                "boot's, not the change's")
    return how + ("; p-values adjusted by %s over the tested sets: significant at q < %g; "
                  "a difference needs |effect| >= %g%% of A" % (
                      res["correction"], res["alpha"], res["threshold_pct"]))


def _params_text(params):
    return " ".join("%s=%s" % (k, v) for k, v in params.items()) or "-"


def _verdict_text(r):
    v = r.get("verdict", "-")
    if r.get("changed") and r.get("scope") == WITHIN:
        return v + " (within-boot only)"
    if r.get("changed") and r.get("scope") == ONE_VS_BOOTS:
        return v + " (one boot: equal boot spread assumed)"
    return v


def _pct(x):
    return "%+.2f%%" % x if x is not None else "-"


def _row_cells(r, multi):
    n = ("%s/%s boots" % (r["boots_a"], r["boots_b"]) if multi else
         "%s/%s" % (r.get("n_a", "-"), r.get("n_b", "-")))
    return [r["name"], _params_text(r["params"]), "%s/%s" % (r.get("set_a"), r.get("set_b")), n,
            r["unit"], r["median_a"], r["median_b"], _pct(r.get("pct")), r.get("shift"),
            _pct(r.get("shift_pct")), _fmt_p(r.get("p")), _fmt_p(r.get("q")), _verdict_text(r)]


def config_line(res, n_runs, table=True):
    """The header's one line on the firmware options (the terminal shows only this; table:
    the doc has the table too)."""
    line = compare_config.summary_line(res.get("config_diff") or [],
                                       res.get("config_unrecorded") or [], n_runs)
    if res.get("config_diff"):
        line += (" (table: Configuration differences)" if table else
                 " (compare.md and compare.json list them)")
    return line


def _config(doc, res):
    """compare.md's table of the options that differ (before the per-set table: a different
    option can be the whole reason a set differs)."""
    diff = res.get("config_diff") or []
    if not diff:
        return
    doc.h("Configuration differences")
    doc.p("The firmware options (cfg record) that differ between A and B, or between the boots "
          "of one side; %s: the boot's record does not carry the option." %
          compare_config.NOT_RECORDED)
    doc.table(["option", "A", "B", "differs"],
              [[r["option"], compare_config.side_text(r, "A", res["boots_a"]),
                compare_config.side_text(r, "B", res["boots_b"]),
                ", ".join((["A / B"] if r["between"] else [])
                          + ["within %s" % s for s in r["within"]])] for r in diff])


def build_doc(run_a, run_b, res, changed_only=False, config_table=True):
    """The comparison as a Doc (compare.md; doc.text() the terminal's). config_table: the
    Configuration differences table, else only the header's line on it (the terminal)."""
    runs_a = run_a if isinstance(run_a, list) else [run_a]
    runs_b = run_b if isinstance(run_b, list) else [run_b]
    doc = Doc()
    doc.h("baremetric compare", 1)
    doc.kv([("A" if i == 0 else "A%d" % (i + 1), _run_text(r)) for i, r in enumerate(runs_a)]
           + [("B" if i == 0 else "B%d" % (i + 1), _run_text(r)) for i, r in enumerate(runs_b)])
    basis = res.get("basis") or {"unit": "cycles", "text": "cycles", "warnings": []}
    doc.kv([("compared in", basis["text"]), ("method", method_text(res)),
            ("configuration", config_line(res, len(runs_a) + len(runs_b), config_table))])
    doc.list("WARNING: " + w for w in basis["warnings"])
    rows = res["rows"]
    changed = [r for r in rows if r["changed"]]
    doc.kv([("matched sets", "%d" % len(rows)),
            ("differences", "%d significant and >= %g%% (%s); %d significant but smaller or "
             "within the boot spread; %d not significant" % (
                 len(changed), res["threshold_pct"], ", ".join(
                     "%d %s" % (sum(1 for r in changed if r["verdict"] == v), v)
                     for v in sorted({r["verdict"] for r in changed})) or "none",
                 sum(1 for r in rows if r["significant"] and not r["changed"]),
                 sum(1 for r in rows if r["significant"] is False))),
            ("only in A / only in B", "%d / %d" % (len(res["only_a"]), len(res["only_b"])))])
    if res.get("unclassified"):
        doc.p("Fields the set-identity table does not know (taken as identity, so a set whose "
              "value differs is listed as only in A / only in B): %s" % ", ".join(
                  "%s.%s" % pf for pf in res["unclassified"]))
    if config_table:
        _config(doc, res)
    _matched(doc, res, rows, changed_only, basis)
    _levels(doc, res, changed_only)
    for label, only in (("A", res["only_a"]), ("B", res["only_b"])):
        doc.h("Only in %s" % label, 3)
        if only:
            doc.table(["probe", "params", "set", "median (cycles per op)"],
                      [[s.get("name"), _params_text(_ident(s)), str(s.get("set")),
                        ((s.get("stats") or {}).get("per_op") or {}).get("median")]
                       for s in only[:ONLY_ROWS]])
            if len(only) > ONLY_ROWS:
                doc.p("... %d more (compare.json lists them all)" % (len(only) - ONLY_ROWS))
        else:
            doc.p("none")
    return doc


def _ident(s):
    return {k: v for k, v in set_identity.identity(s).items() if k not in ("name", "unit")}


def _matched(doc, res, rows, changed_only, basis):
    doc.h("Matched sets")
    doc.p("Sorted by effect size. Sets match on their identity fields only (protocol.md, \"Set "
          "identity\"). %s; diff = median B - median A; effect = %s (positive: B's value is "
          "larger; for GB/s that is faster); p = %s; q = p adjusted by %s over the %d tested "
          "sets: significant at q < %g (false discovery rate %g%%)%s" % (
              "values in each set's own unit (GB/s, ns; counts as counted)"
              if basis["unit"] == "physical" else "%s per operation" % (
                  basis["unit"] if basis["unit"] == "ns" else basis["text"].split(" (")[0]),
              "the difference of the boot medians' means" if res["scope"] in (
                  BOOTS, ONE_VS_BOOTS) else
              "the Hodges-Lehmann shift (median of all pairwise differences B - A)",
              TESTS[res["scope"]], res["correction"], res["tests"], res["alpha"],
              100 * res["alpha"], "; only the differences are shown (--changed-only)"
              if changed_only else ""))
    shown = [r for r in rows if r["changed"]] if changed_only else rows
    multi = res["boots_a"] > 1 or res["boots_b"] > 1
    if shown:
        doc.table(["probe", "params", "set A/B", "boots A/B" if multi else "N A/B", "unit",
                   "median A", "median B", "diff %", "effect", "effect %", "p", "q", "verdict"],
                  [_row_cells(r, multi) for r in shown])
        doc.list("%s set %s/%s: %s" % (r["name"], r["set_a"], r["set_b"], "; ".join(r["notes"]))
                 for r in shown if r["notes"])
    else:
        doc.p("no differences" if changed_only and rows else "no sets in common")


def _sizes(sizes):
    return "%s-%s (%d)" % (fbytes(min(sizes)), fbytes(max(sizes)), len(sizes)) if sizes else "-"


def _levels(doc, res, changed_only):
    lv = res.get("levels") or {}
    rows = [r for r in lv.get("rows") or [] if r["changed"] or not changed_only]
    if not lv.get("rows"):
        return
    doc.h("Per cache level")
    doc.p("Each memory curve's plateau per level (from twice the level before to half the "
          "level's size: the knee where it agrees with the stated size, else the stated size; "
          "DRAM from 4x the largest level), per boot the median of its sets' medians, in GB/s "
          "or ns at each run's own clock; the sizes need not be the same in A and B. "
          "Levels A: %s. Levels B: %s" % (_bounds(lv.get("bounds_a")), _bounds(lv.get("bounds_b"))))
    if rows:
        doc.table(["curve", "level", "unit", "sizes A", "sizes B", "median A", "median B",
                   "effect %", "p", "q", "verdict"],
                  [[r["name"], r["level"], r["unit"], _sizes(r["sizes_a"]), _sizes(r["sizes_b"]),
                    r["median_a"], r["median_b"], _pct(r.get("shift_pct")), _fmt_p(r.get("p")),
                    _fmt_p(r.get("q")), _verdict_text(r)] for r in rows])
    else:
        doc.p("no differences")
    one = ["%s %s (only in %s)" % (k[0][0], k[1], side)
           for side in ("A", "B") for k in lv.get("only_" + side.lower()) or []]
    if one:
        doc.p("On one side only: " + "; ".join(one))


def _bounds(bounds):
    return ", ".join("%s %s-%s" % (n, fbytes(lo), fbytes(hi) if hi else "...")
                     for n, lo, hi in bounds or []) or "none stated"


def _set_brief(s):
    return {"name": s.get("name"), "set": s.get("set"), "identity": _ident(s),
            "median_cycles_per_op": ((s.get("stats") or {}).get("per_op") or {}).get("median")}


def json_doc(run_a, run_b, res, changed_only=False):
    """compare.json: the whole result (every row, whatever --changed-only hides in the text)."""
    runs_a = run_a if isinstance(run_a, list) else [run_a]
    runs_b = run_b if isinstance(run_b, list) else [run_b]
    lv = dict(res.get("levels") or {})
    lv["only_a"] = [list(k) for k in lv.get("only_a") or []]
    lv["only_b"] = [list(k) for k in lv.get("only_b") or []]
    return {"a": [_run_text(r) for r in runs_a], "b": [_run_text(r) for r in runs_b],
            "method": method_text(res), "scope": res["scope"], "unit": res["basis"]["unit"],
            "basis": {k: v for k, v in res["basis"].items() if k != "scales"},
            "alpha": res["alpha"], "threshold_pct": res["threshold_pct"],
            "boot_spread_pct": res["boot_spread_pct"], "correction": res["correction"],
            "tests": res["tests"], "changed_only_in_text": changed_only,
            "config_diff": res.get("config_diff") or [],
            "config_unrecorded": res.get("config_unrecorded") or [],
            "rows": res["rows"], "levels": lv,
            "only_a": [_set_brief(s) for s in res["only_a"]],
            "only_b": [_set_brief(s) for s in res["only_b"]],
            "unclassified": [list(pf) for pf in res.get("unclassified") or []]}


def _fmt_p(p):
    if p is None:
        return "-"
    return "<1e-300" if p < 1e-300 else "%.3g" % p
