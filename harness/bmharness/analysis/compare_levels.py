"""`compare` per cache level: the memory curves of two machines whose size sweeps differ.

The memory probes sweep sizes derived from each CPU's caches, so two machines share few sizes
(compare's set rows pair only those). Here every curve (memory.curves: per membw kernel and
width, per latency pattern and stride) is reduced, per boot, to one value per level: the
plateau of L1d, L2, L3 ... and DRAM. A level's bounds are the knee the curve hierarchy found for
it where it agrees with the CPU's stated size (memory.hierarchy, knees.py), else the stated size
(CPUID; CLIDR/CCSIDR on AArch64). Its plateau is the sets with sizes from twice the level before
(0 for L1) up to half the level's own size -- away from the transitions -- and DRAM is every
size from DRAM_FACTOR (4) x the largest level up. The plateau's value per boot is the median
of those sets' medians; its samples (pooled) are the within-boot test's. Levels pair by name
(L1d with L1d; DRAM with DRAM) and curves by kernel/width or pattern/stride, so the sizes need
not match. Values are GB/s (bandwidth) and ns (latency) at each run's own clock rate, whatever
--cycles says: cycles of different machines are not one scale.

The rows have compare.py's shape (the same test and verdict rules); compare.py decides them.
"""

from . import archinfo, compare_units, memory
from .compare_stats import effect_order, estimate_effect
from .. import stats

GBPS, NS = "GB/s", "ns"


def level_bounds(summary, cvs):
    """[(name, low, high)] of the plateaus of this run's levels (high None: no upper end)."""
    levels = memory.cpuid_levels(summary)
    unknown = archinfo.unknown_geometry(summary)
    if not levels:
        return []
    hier = memory.hierarchy(cvs, levels, archinfo.emulated_cpu(summary),
                            archinfo.cache_source(summary))
    # A level of unknown size leaves the plateaus above it unbounded (and DRAM's start unknown):
    # only the levels below the lowest unknown one keep their bounds (an L3 a hypervisor's CPUID
    # misstated leaves L1d and L2 comparable).
    top = min((u["level"] for u in unknown if isinstance(u.get("level"), int)), default=None)
    out, prev = [], 0
    for lv, row in zip(levels, hier["levels"]):
        if top is not None and lv["level"] >= top:
            return out
        size = row["knee"] if row.get("status") == "agree" and row.get("knee") else lv["size"]
        out.append((lv["name"], 2 * prev, size / 2.0))
        prev = size
    if unknown:
        return out
    out.append(("DRAM", memory.DRAM_FACTOR * max(lv["size"] for lv in levels), None))
    return out


def _curve_key(c):
    return (c["probe"], tuple(sorted((k, str(v)) for k, v in c["params"].items())))


def _plateau(run, curve, lo, hi, set_values):
    """(values pooled over the plateau's sets or None, median of their medians, sizes) of one
    curve in one boot between lo and hi (inclusive)."""
    probe = curve["probe"]
    field = "gbps" if probe == memory.MEMBW else "ns"
    pts = [p for p in curve["points"] if p["size"] is not None and p["size"] >= lo
           and (hi is None or p["size"] <= hi) and p.get(field) is not None]
    if not pts:
        return None, None, []
    meds = sorted(p[field] for p in pts)
    pooled = []
    for p in pts:
        vals = set_values(run, p["set"], field)
        if vals is None:
            pooled = None
            break
        pooled.extend(vals)
    return pooled, stats.median(meds), [p["size"] for p in pts]


def _set_values(run, set_id, field):
    """Per-sample GB/s or ns of one set of a run (None without its raw file)."""
    s = next((s for s in run["summary"].get("sets") or [] if s.get("set") == set_id), None)
    if s is None:
        return None
    m = compare_units.measure(s, run["summary"])
    if m["unit"] != (GBPS if field == "gbps" else NS):
        return None
    return compare_units.convert_all(compare_units.per_op_values(run, s), m)


def side_plateaus(runs):
    """Per boot: {(curve key, level name): (pooled values, plateau median, sizes, label,
    probe)}."""
    out = []
    for run in runs:
        cvs = memory.curves(run["summary"], run["dir"])
        bounds = level_bounds(run["summary"], cvs)
        per = {}
        for c in cvs:
            for name, lo, hi in bounds:
                pooled, med, sizes = _plateau(run, c, lo, hi, _set_values)
                if med is not None:
                    per[(_curve_key(c), name)] = (pooled, med, sizes, c["label"], c["probe"])
        out.append({"bounds": bounds, "plateaus": per})
    return out


def compare_levels(runs_a, runs_b, threshold_pct):
    """{"rows": rows of compare.py's shape (name = curve, params = {"level"}), "bounds_a",
    "bounds_b": each side's first boot's level bounds, "only_a", "only_b": (curve, level) found
    on one side only}."""
    pa, pb = side_plateaus(runs_a), side_plateaus(runs_b)
    keys_a = [k for boot in pa for k in boot["plateaus"]]
    keys_b = {k for boot in pb for k in boot["plateaus"]}
    rows, seen = [], set()
    for k in keys_a:
        if k in seen or k not in keys_b:
            continue
        seen.add(k)
        got_a = [b["plateaus"][k] for b in pa if k in b["plateaus"]]
        got_b = [b["plateaus"][k] for b in pb if k in b["plateaus"]]
        label, probe = got_a[0][3], got_a[0][4]
        unit = GBPS if probe == memory.MEMBW else NS
        meds_a, meds_b = [g[1] for g in got_a], [g[1] for g in got_b]
        ma, mb = stats.median(meds_a), stats.median(meds_b)
        row = {"name": "%s %s" % (probe, label), "probe": probe, "curve": label,
               "params": {"level": k[1]}, "level": k[1], "unit": unit,
               "higher_is_better": unit == GBPS, "boots_a": len(got_a), "boots_b": len(got_b),
               "sizes_a": got_a[0][2], "sizes_b": got_b[0][2], "median_a": ma, "median_b": mb,
               "boot_medians_a": meds_a, "boot_medians_b": meds_b,
               "diff": mb - ma, "pct": 100.0 * (mb - ma) / abs(ma) if ma else None,
               "q": None, "significant": None, "practical": None, "within_spread": None,
               "changed": False}
        row.update(estimate_effect([g[0] for g in got_a], [g[0] for g in got_b],
                                           meds_a, meds_b))
        rows.append(row)
    rows.sort(key=effect_order)
    return {"rows": rows, "bounds_a": pa[0]["bounds"] if pa else [],
            "bounds_b": pb[0]["bounds"] if pb else [],
            "only_a": sorted({k for k in keys_a if k not in keys_b}, key=str),
            "only_b": sorted({k for k in keys_b if k not in set(keys_a)}, key=str)}
