"""results.csv and results.json: every sample set of a run as one tidy row in real units, for
spreadsheets, notebooks and scripts (docs/results.md describes the columns; results.json is
checked against docs/results.schema.json).

`build(summary, out_dir)` makes the rows from summary.json's statistics (stats/describe.py: the
per-operation median, 10%-trimmed mean and N) and the raw files under out_dir (the CI of the
median from order statistics, analysis/memory.py's `median_ci`); `write(out_dir, summary)` writes
both files. The unit of a row follows its probe:

- bandwidth (`membw`, `membw_mc`): GB/s (10^9 bytes/s) = bytes_per_op * counter Hz / cycles per
  pass / 1e9, the set's own byte convention; the CI's ends swap (fewer cycles, more bandwidth);
- every other set timed in counter cycles: ns = cycles * 1e9 / counter Hz (`latency`: per load);
- a set in another unit (`count`, `pmu_cycles`) stays in it.

A bandwidth row also carries the core clock during its set (core_clock.py: its source, median
and spread; membw_mc from its counters only) and its median in bytes per core cycle; a membw L1
read/write/copy row its fraction of the CPU's limit at its width (limits.py; null with `limit`
null where the table has no row).

The cycles a row was converted from are kept next to it (`cycles`), in the counter's own ticks
(TSC cycles on x86_64, generic-timer ticks on AArch64). Without a counter frequency a row stays in
cycles. A value that cannot be formed (a median at or below the timer overhead for a rate, a
result beyond the float range) is null, never NaN.
"""

import csv
import io
import json
import math
import os

from . import archinfo, core_clock, limits, memory
from .. import stats
from ..stream import set_identity
from ..stream.values import num

FORMAT, FORMAT_VERSION = "baremetric-results", 1
BANDWIDTH_PROBES = ("membw", "membw_mc")
# Identity parameters that get a CSV column of their own; all of a row's are in `params` too.
CSV_PARAMS = ("kernel", "width", "size", "pattern", "stride", "method", "source", "what")
# Set units other than the counter's cycles: (metric, unit). PMU cycles are CPU clock cycles.
OTHER_UNITS = {"pmu_cycles": ("cpu_cycles", "cycles"), "count": ("count", "count")}
CYCLE_KEYS = ("median", "ci95_low", "ci95_high", "trimmed_mean")
CSV_COLUMNS = (("probe", "set") + CSV_PARAMS +
               ("params", "metric", "unit", "median", "ci95_low", "ci95_high", "ci_kind",
                "ci_coverage", "trimmed_mean", "n", "cycles_unit")
               + tuple("%s_cycles" % k for k in CYCLE_KEYS)
               + ("bytes_per_op", "counter_hz", "cache_level", "complete", "bimodal",
                  "core_hz", "bytes_per_cycle", "limit_fraction"))
PER_CYCLE_KERNELS = ("read", "write", "copy")  # the kernels a load/store limit applies to


def finite(x):
    """x as a float when it is a finite number, else None (results.json is strict JSON)."""
    x = num(x)
    return x if x is not None and math.isfinite(x) else None


def identity(name, params):
    """The parameters that tell the set apart and those it ran under: its identity and
    condition fields (stream/set_identity.py, the one table compare matches on), in record
    order."""
    keep = (set_identity.IDENTITY, set_identity.CONDITION)
    return {k: v for k, v in params.items() if k not in ("name", "unit", "set")
            and set_identity.effective_class(name, k) in keep}


def per_op_sorted(s, out_dir):
    """The set's sorted per-operation values from its raw file (the samples the statistics use:
    below 2^63), or None when it cannot be read."""
    vals = stats.raw_per_op(out_dir, s)
    return sorted(vals) if vals else None


def cycle_figures(s, out_dir):
    """{median, ci95_low, ci95_high, trimmed_mean} per operation in the set's unit, with the CI
    kind ("median": order statistics of the raw samples; "mean": the summary's t interval when
    the raw file is missing; None) and the median CI's real coverage."""
    st = (s.get("stats") or {}).get("per_op") or {}
    vals = per_op_sorted(s, out_dir)
    ci, kind, cover = (stats.median_ci(vals), "median",
                       stats.median_ci_coverage(len(vals))) if vals else (None, None, None)
    if ci is None and isinstance(st.get("ci95"), list):
        ci, kind = st["ci95"], "mean"
    lo, hi = (finite(ci[0]), finite(ci[1])) if ci else (None, None)
    figs = {"median": finite(st.get("median")), "ci95_low": lo, "ci95_high": hi,
            "trimmed_mean": finite(st.get("trimmed_mean"))}
    return figs, (kind if lo is not None else None), (cover if lo is not None else None)


def convert(figs, name, unit, bpo, hz):
    """(metric, unit, figures) of a set in its real unit from its per-operation figures."""
    if unit != "cycles":
        metric, unit = OTHER_UNITS.get(unit, (unit or "value", unit or ""))
        return metric, unit, dict(figs)
    if not hz:
        return ("bandwidth" if name in BANDWIDTH_PROBES else "latency" if name == "latency"
                else "time"), "cycles", dict(figs)
    if name in BANDWIDTH_PROBES:
        def rate(c):
            return finite(bpo * hz / c / 1e9) if bpo and c and c > 0 else None
        return "bandwidth", "GB/s", {"median": rate(figs["median"]),
                                     "ci95_low": rate(figs["ci95_high"]),
                                     "ci95_high": rate(figs["ci95_low"]),
                                     "trimmed_mean": rate(figs["trimmed_mean"])}
    to_ns = 1e9 / hz
    return ("latency" if name == "latency" else "time"), "ns", {
        k: finite(v * to_ns) if v is not None else None for k, v in figs.items()}


def cache_level(name, params, levels):
    """The cache level a set works in: its own `level`/`type` parameters (cachefill,
    irq_footprint, pmu_cost), else for a memory sweep the smallest reported cache its footprint
    fits in (read + write buffers, else `size`), "DRAM" beyond the largest; None when unknown."""
    level = params.get("level")
    if isinstance(level, int) and not isinstance(level, bool) and level > 0:
        suffix = {"data": "d", "inst": "i"}.get(params.get("type"), "")
        return "L%d%s" % (level, suffix)
    if name not in memory.PROBES + ("membw_mc",) or not levels:
        return None
    rb, wb = num(params.get("read_bytes")), num(params.get("write_bytes"))
    foot = rb + wb if rb is not None and wb is not None else num(params.get("size"))
    if not foot:
        return None
    for lv in levels:
        if foot <= lv["size"]:
            return lv["name"]
    return "DRAM"


def per_cycle(s, hz, out_dir, median_gbps, level, l1_name, lim_row):
    """{core_clock, core_hz, bytes_per_cycle, limit, limit_fraction} of a bandwidth row (module
    docstring); all None for another, and the limit for membw's L1 rows only."""
    out = {"core_clock": None, "core_hz": None, "bytes_per_cycle": None, "limit": None,
           "limit_fraction": None}
    if s.get("name") not in BANDWIDTH_PROBES:
        return out
    # membw_mc sets carry no add chain: their clock is the counters' (APERF/MPERF, cycles) only
    clk = core_clock.set_clock(s, hz, out_dir)
    if clk:
        out["core_clock"] = {k: clk.get(k) for k in ("source", "hz", "lo_hz", "hi_hz",
                                                     "add_chain_hz")}
        out["core_hz"] = finite(clk.get("hz"))
        out["bytes_per_cycle"] = finite(core_clock.bytes_per_cycle(median_gbps, clk))
    params = s.get("params") or {}
    if s.get("name") == memory.MEMBW and level and level == l1_name \
            and params.get("kernel") in PER_CYCLE_KERNELS:
        li = limits.limit(lim_row, params["kernel"], limits.width_bits(params.get("width")))
        if li:
            out["limit"] = {"bytes_per_cycle": li["bpc"], "text": li["text"]}
            out["limit_fraction"] = finite(limits.fraction(out["bytes_per_cycle"], li))
    return out


def row(s, plat_hz, levels, out_dir, clock_unit, lim_row=None):
    """One set as a results row (see the module docstring)."""
    name, params = s.get("name"), s.get("params") or {}
    st = (s.get("stats") or {}).get("per_op") or {}
    hz = s.get("tsc_hz") if finite(s.get("tsc_hz")) else plat_hz
    bpo = params.get("bytes_per_op")
    bpo = bpo if name in BANDWIDTH_PROBES and finite(bpo) else None
    figs, ci_kind, cover = cycle_figures(s, out_dir)
    metric, unit, real = convert(figs, name, s.get("unit"), bpo, hz)
    in_cycles = s.get("unit") == "cycles"
    out = {"probe": name, "set": s.get("set"), "params": identity(name, params),
           "metric": metric, "unit": unit}
    out.update(real)
    out.update(ci_kind=ci_kind, ci_coverage=cover, n=st.get("n", 0),
               cycles=dict(figs) if in_cycles else None,
               cycles_unit=clock_unit if in_cycles else None, bytes_per_op=bpo,
               counter_hz=hz if in_cycles else None,
               cache_level=cache_level(name, params, levels),
               complete=bool(s.get("complete", True)), bimodal=bool(st.get("bimodal")))
    out.update(per_cycle(s, hz, out_dir, real.get("median") if metric == "bandwidth" else None,
                         out["cache_level"], levels[0]["name"] if levels else None, lim_row))
    return out


def build(summary, out_dir=None):
    """results.json's content from a summary (and the raw files under out_dir, for the CIs)."""
    begin = summary.get("begin") or {}
    plat_hz = ((summary.get("platform") or {}).get("tsc") or {}).get("hz")
    plat_hz = plat_hz if finite(plat_hz) else None
    clock = archinfo.clock(summary)
    levels = memory.cpuid_levels(summary)
    src = summary.get("source") or {}
    lim = memory.cpu_limits(summary)
    lim_row = limits.by_name(lim["cpu"])
    rows = [row(s, plat_hz, levels, out_dir, clock["unit"], lim_row)
            for s in summary.get("sets") or []]
    return {"format": FORMAT, "format_version": FORMAT_VERSION,
            "source": {"log": src.get("log"), "parsed_utc": src.get("parsed_utc")},
            "ok": bool(summary.get("ok")),
            "arch": archinfo.arch(summary), "env": begin.get("env"),
            "build": begin.get("build"),
            "clock": {"name": clock["name"], "unit": clock["unit"], "hz": plat_hz},
            "cache_levels": [{"name": lv["name"], "size": int(lv["size"])} for lv in levels],
            "cache_source": archinfo.cache_source(summary),
            "emulated_cpu": archinfo.emulated_cpu(summary),
            "bandwidth_limits": {"cpu": lim["cpu"], "source": lim["source"],
                                 "note": None if lim["cpu"] else limits.UNKNOWN},
            "columns": list(CSV_COLUMNS), "rows": rows}


def csv_row(r):
    """A results.json row flattened into CSV_COLUMNS (None as an empty cell)."""
    flat = {k: r.get(k) for k in CSV_COLUMNS if k in r}
    for k in CSV_PARAMS:
        flat[k] = r["params"].get(k)
    flat["params"] = ";".join("%s=%s" % kv for kv in r["params"].items())
    for k in CYCLE_KEYS:
        flat["%s_cycles" % k] = (r["cycles"] or {}).get(k)
    return ["" if flat.get(k) is None else flat[k] for k in CSV_COLUMNS]


def to_csv(results):
    """results.csv's text: a header line, then one line per row."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in results["rows"]:
        w.writerow(csv_row(r))
    return buf.getvalue()


def write(out_dir, summary):
    """Write results.json and results.csv into out_dir (atomically); returns build()'s dict."""
    res = build(summary, out_dir)
    for name, text in (("results.json", json.dumps(res, indent=1, allow_nan=False) + "\n"),
                       ("results.csv", to_csv(res))):
        tmp = os.path.join(out_dir, name + ".tmp")
        with open(tmp, "w") as fh:
            fh.write(text)
        os.replace(tmp, os.path.join(out_dir, name))
    return res
