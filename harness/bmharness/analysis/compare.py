"""Compare runs set by set (`baremetric compare`): one or several boots per side.

Each run is a parse directory (summary.json + raw/) or a serial log, which is parsed into a
temporary directory first. Sets are matched on their identity fields only
(stream/set_identity.py: the probe name and parameters as asked; never the values a boot
measured or chose); a set whose identity occurs twice in one boot is matched in order.

Values (compare_units.py): GB/s for bandwidth sets, ns for the other cycle sets, their own unit
for counts; `cycles=True` keeps cycles. Per matched set:

- one boot on a side (within-boot): on the per-operation values of the raw files, the
  Hodges-Lehmann shift (median of all pairwise differences B - A) and the Mann-Whitney U test of
  that same shift (normal approximation, tie and continuity corrections). This knows the
  variation inside a boot only: two boots of one image differ by more than their samples say,
  so a shift smaller than a stated boot-to-boot spread (boot_spread_pct) is not called a
  difference, and the verdict says it rests on within-boot variation only;
- two or more boots on both sides (boot-to-boot): the boot is the unit. Per boot the median of
  the set's values; Welch's t test compares the boot medians of A with those of B, the effect is
  the difference of their means (relative to A's);
- one boot on one side, two or more on the other (one-vs-boots): the one boot's median against
  the other side's boot medians by the prediction-interval t test (t = (x - mean) / (s *
  sqrt(1 + 1/n)), df = n - 1): would the other side's next boot land this far off? The other
  side's boots give the boot-to-boot spread, taken to be the one boot's side's as well (an
  assumption the report states). The effect is again mean B - mean A.

Hundreds of sets are tested at once, so the p-values are adjusted by Benjamini-Hochberg across
the tested sets: significant is q < alpha (the false discovery rate). A set is a difference
(`changed`) when significant, at least `threshold_pct` (and, within-boot, the boot spread) and
in the verdict's direction (the shift's sign; for GB/s a larger value is faster). Rows are sorted
by the size of the effect. The memory probes are also compared per cache level
(compare_levels.py), which works when the two machines' size sweeps differ.

The firmware options the boots ran with (their cfg records) are compared too
(compare_config.py): which differ between A and B, and between the boots of one side.

The runs' clocks must count the same thing: runs of different architectures are refused.
compare.md, compare.json and the terminal text are report/compare.py's.
"""

import json
import os
import tempfile

from . import archinfo, compare_config, compare_levels, compare_units
from .compare_stats import (BOOTS, ONE_VS_BOOTS, TESTS, WITHIN, benjamini_hochberg,  # noqa: F401
                            effect_order, estimate_effect, hl_shift, mann_whitney, median,
                            prediction_t, welch)
from .compare_units import per_op_values
from ..stream import parse, set_identity

ALPHA = 0.05  # false discovery rate across all matched sets (Benjamini-Hochberg)
CORRECTION = "Benjamini-Hochberg"
THRESHOLD_PCT = 2.0
# Clock frequencies further apart than this (relative) make cycles incomparable: compare in ns.
# Far above the calibration spread of one machine (ppm), below the practical threshold.
FREQ_TOL = 0.01


# --- runs -------------------------------------------------------------------------------------

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




def side_basis(sums_a, sums_b):
    """clock_basis over every run of both sides: refuses mixed architectures; "ns" when any two
    clocks differ by more than FREQ_TOL. Adds "scales": per run (sides in order, A first) ns
    per clock count, or None."""
    sums = list(sums_a) + list(sums_b)
    bases = [clock_basis(sums[0], s) for s in sums[1:]] or [clock_basis(sums[0], sums[0])]
    worst = next((b for b in bases if b["unit"] == "ns"), bases[0])
    out = dict(worst, warnings=sorted({w for b in bases for w in b["warnings"]}))
    out["scales"] = [1e9 / clock_hz(s) if worst["unit"] == "ns" and clock_hz(s) else None
                     for s in sums]
    return out


# --- matching -----------------------------------------------------------------------------------

def set_key(s):
    return set_identity.key(s)


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


def keyed_sets(summary):
    """[((identity key, occurrence), set)] of one boot, in its order."""
    seen, out = {}, []
    for s in summary.get("sets") or []:
        key = set_key(s)
        out.append(((key, seen.get(key, 0)), s))
        seen[key] = seen.get(key, 0) + 1
    return out


def match_sides(runs_a, runs_b):
    """Entries {"key", "a": [(boot index, run, set)], "b": [...]} in A's order, then B's; a set
    missing in some boots of a side is matched in the others."""
    entries, order = {}, []
    for side, runs in (("a", runs_a), ("b", runs_b)):
        for i, run in enumerate(runs):
            for k, s in keyed_sets(run["summary"]):
                if k not in entries:
                    entries[k] = {"key": k, "a": [], "b": []}
                    order.append(k)
                entries[k][side].append((i, run, s))
    return [entries[k] for k in order]


# --- values and one row -------------------------------------------------------------------------

def boot_values(run, s, opts, scale):
    """(measure, values in its unit or None, boot median or None, its CI or None) of one set in
    one boot; the median is the set's own (compare_units.convert_median)."""
    m = compare_units.measure(s, run["summary"], cycles=opts.get("cycles"), scale=scale)
    raw = per_op_values(run, s)
    vals = compare_units.convert_all(raw, m)
    med, ci = compare_units.convert_median(raw, m)
    if med is None and m["convert"] is not None:  # no raw file: the summary's median
        sm = ((s.get("stats") or {}).get("per_op") or {}).get("median")
        med = m["convert"](sm) if isinstance(sm, (int, float)) else None
    return m, vals, med, ci


def _conditions_differ(items_a, items_b):
    """{field: [A's values, B's values]} of the condition fields that differ between sides."""
    def vals(items):
        out = {}
        for _, _, s in items:
            for k, v in set_identity.conditions(s).items():
                out.setdefault(k, set()).add(str(v))
        return out
    ca, cb = vals(items_a), vals(items_b)
    return {k: [sorted(ca.get(k, ())), sorted(cb.get(k, ()))] for k in sorted(set(ca) | set(cb))
            if ca.get(k) != cb.get(k)}


def row_of(entry, opts):
    """One matched set (an entry of match_sides) as a row; significance is decided across all
    rows (decide)."""
    per = {side: [(s,) + boot_values(run, s, opts, run.get("scale"))
                  for _, run, s in entry[side]] for side in ("a", "b")}
    s_a, s_b = entry["a"][0][2], entry["b"][0][2]
    ident = set_identity.identity(s_a)
    units = sorted({m["unit"] for side in per.values() for _, m, _, _, _ in side})
    m0 = per["a"][0][1]
    row = {"name": s_a.get("name"),
           "params": {k: v for k, v in ident.items() if k not in ("name", "unit")},
           "set_a": s_a.get("set"), "set_b": s_b.get("set"),
           "sets_a": [s.get("set") for _, _, s in entry["a"]],
           "sets_b": [s.get("set") for _, _, s in entry["b"]],
           "unit": units[0], "higher_is_better": m0["higher_is_better"],
           "boots_a": len(entry["a"]), "boots_b": len(entry["b"]),
           "conditions_differ": _conditions_differ(entry["a"], entry["b"]),
           "q": None, "significant": None, "practical": None, "within_spread": None,
           "changed": False}
    why_not = ("units differ (%s)" % " / ".join(units) if len(units) > 1 else
               next((m["note"] for side in per.values() for _, m, _, _, _ in side
                     if m["convert"] is None), None))
    vals = {k: [v for _, _, v, _, _ in per[k]] for k in per}
    meds = {k: [md for _, _, _, md, _ in per[k]] for k in per}
    for k in ("a", "b"):
        pooled = [x for v in vals[k] if v for x in v]
        row["n_" + k] = len(pooled)
        row["boot_medians_" + k] = meds[k]
        # one boot: that set's median and its CI; more: the median of the boot medians
        row["median_" + k] = None if why_not else (
            meds[k][0] if len(meds[k]) == 1 else
            median([m for m in meds[k] if m is not None]) if any(
                m is not None for m in meds[k]) else None)
        row["median_ci_" + k] = per[k][0][4] if len(meds[k]) == 1 and not why_not else None
    ma, mb = row["median_a"], row["median_b"]
    row["diff"] = mb - ma if ma is not None and mb is not None else None
    row["pct"] = 100.0 * row["diff"] / abs(ma) if row["diff"] is not None and ma else None
    if why_not:
        row.update(scope=None, shift=None, shift_pct=None, p=None,
                   notes=["not compared: " + why_not])
        return row
    row.update(estimate_effect(vals["a"], vals["b"], meds["a"], meds["b"]))
    notes = [n for side in per.values() for _, m, _, _, _ in side[:1] for n in [m["note"]] if n]
    row["notes"] = sorted(set(notes)) + row["notes"]
    if row["diff"] and row["shift"] and row["diff"] * row["shift"] < 0:
        row["notes"].append("medians and the pairwise shift moved in opposite directions")
    if row["conditions_differ"]:
        row["notes"].append("conditions differ: " + "; ".join(
            "%s %s / %s" % (k, ",".join(a) or "-", ",".join(b) or "-")
            for k, (a, b) in row["conditions_differ"].items()))
    return row


def decide(rows, alpha, threshold_pct, boot_spread_pct=None):
    """Benjamini-Hochberg over the rows' p-values, then each row's significance, practical
    size, boot-spread rule, verdict and `changed`."""
    for row, q in zip(rows, benjamini_hochberg([r["p"] for r in rows])):
        row["q"] = q
        row["significant"] = q < alpha if q is not None else None
        sp = row.get("shift_pct")
        row["practical"] = abs(sp) >= threshold_pct if sp is not None else None
        if row.get("scope") == WITHIN and boot_spread_pct and sp is not None:
            row["within_spread"] = abs(sp) < boot_spread_pct
        row["verdict"] = verdict(row)
        row["changed"] = row["verdict"] in compare_units.direction_words(
            row["unit"], row["higher_is_better"])


def verdict(row):
    if row["significant"] is None:
        return "-"
    if not row["significant"]:
        return "no significant difference"
    if not row["practical"]:
        return "significant, below threshold"
    if row.get("within_spread"):
        return "within the boot-to-boot spread"
    up, down = compare_units.direction_words(row["unit"], row.get("higher_is_better"))
    return up if row["shift"] > 0 else down


def side_scope(boots_a, boots_b):
    """How a comparison of so many boots a side tests: BOOTS with 2+ a side, ONE_VS_BOOTS with
    one boot against 2+, WITHIN with one a side (estimate_effect decides each row the same
    way from the boot medians it has)."""
    if min(boots_a, boots_b) >= 2:
        return BOOTS
    return ONE_VS_BOOTS if max(boots_a, boots_b) >= 2 else WITHIN


def _as_runs(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def compare(run_a, run_b, alpha=ALPHA, threshold_pct=THRESHOLD_PCT, cycles=False,
            boot_spread_pct=None):
    """Everything compare.md and compare.json show (report/compare.py). run_a, run_b: one run
    (load_run) or a list of runs, the boots of that side. Raises ClockMismatch for runs of
    different architectures."""
    runs_a, runs_b = _as_runs(run_a), _as_runs(run_b)
    basis = side_basis([r["summary"] for r in runs_a], [r["summary"] for r in runs_b])
    for run, scale in zip(runs_a + runs_b, basis["scales"]):
        run["scale"] = scale  # ns per count when the clocks differ (None: they agree)
    if not cycles:
        basis = dict(basis, unit="physical", text="GB/s for bandwidth, ns for the other cycle "
                     "sets (each run's values at its own clock rate); counts in their unit")
    opts = {"cycles": cycles}
    entries = match_sides(runs_a, runs_b)
    rows = [row_of(e, opts) for e in entries if e["a"] and e["b"]]
    decide(rows, alpha, threshold_pct, boot_spread_pct)
    rows.sort(key=effect_order)
    levels = compare_levels.compare_levels(runs_a, runs_b, threshold_pct)
    decide(levels["rows"], alpha, threshold_pct, boot_spread_pct)
    all_sets = [s for r in runs_a + runs_b for s in r["summary"].get("sets") or []]
    return {"rows": rows, "only_a": [e["a"][0][2] for e in entries if not e["b"]],
            "only_b": [e["b"][0][2] for e in entries if not e["a"]],
            "alpha": alpha, "threshold_pct": threshold_pct, "boot_spread_pct": boot_spread_pct,
            "boots_a": len(runs_a), "boots_b": len(runs_b), "cycles": cycles,
            "scope": side_scope(len(runs_a), len(runs_b)),
            "tests": sum(1 for r in rows if r["p"] is not None), "correction": CORRECTION,
            "basis": basis, "levels": levels,
            "config_diff": compare_config.config_diff(runs_a, runs_b),
            "config_unrecorded": compare_config.unrecorded(runs_a, runs_b),
            "unclassified": set_identity.unclassified(all_sets)}
