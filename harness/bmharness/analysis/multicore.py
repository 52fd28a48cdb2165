"""Multi-core bandwidth (`membw_mc` sets): per kernel and core count, the aggregate GB/s of all
cores together and each core's own GB/s, with the scaling over one core.

The firmware emits, per (kernel, width, cpus), one set per core (`cpu=K`: that core's cycles per
pass, timed by itself) and one aggregate set (`cpu=all`: earliest start to latest end over the
cores, `bytes_per_op` = every core's bytes). Rates come from memory.point, so the byte convention
and the CI of the median are the Memory section's.
"""

from . import memory
from ..report.doc import fnum, num

MEMBW_MC = "membw_mc"


def _int(x):
    try:
        return int(x)
    except (TypeError, ValueError):
        return None


def analyse(summary, out_dir=None):
    """{"rows": [...], "skips": [...], "peak_gbps", "peak_reason"}; a row per (kernel, width, cpus), ordered by kernel then
    cores: agg (point of the cpu=all set), cores (points of cpu=K, by K), core_min/core_max
    (GB/s), scaling (aggregate over the 1-core aggregate), efficiency (scaling / cores), pct_peak
    (aggregate as a percentage of the SMBIOS DRAM peak, None when unknown)."""
    plat_hz = num(((summary.get("platform") or {}).get("tsc") or {}).get("hz"))
    groups = {}
    for s in summary.get("sets") or []:
        if s.get("name") != MEMBW_MC:
            continue
        params = s.get("params") or {}
        cpus = _int(params.get("cpus"))
        if cpus is None:
            continue
        key = (str(params.get("kernel", "?")), str(params.get("width", "?")), cpus)
        hz = num(s.get("tsc_hz")) or plat_hz
        g = groups.setdefault(key, {"agg": None, "cores": {}, "size": num(params.get("size"))})
        p = memory.point(s, hz, out_dir)
        if str(params.get("cpu")) == "all":
            g["agg"] = p
        elif _int(params.get("cpu")) is not None:
            g["cores"][_int(params.get("cpu"))] = p
    rows = []
    for (kernel, width, cpus), g in sorted(groups.items()):
        cores = [g["cores"][k] for k in sorted(g["cores"])]
        rates = [p["gbps"] for p in cores if p.get("gbps") is not None]
        agg = g["agg"] or {}
        one = groups.get((kernel, width, 1), {}).get("agg") or {}
        scaling = memory.div(agg.get("gbps"), one.get("gbps"))
        rows.append({"kernel": kernel, "width": width, "cpus": cpus, "size": g["size"],
                     "agg": g["agg"], "cores": cores,
                     "core_min": min(rates) if rates else None,
                     "core_max": max(rates) if rates else None,
                     "core_sum": sum(rates) if len(rates) == cpus else None,
                     "scaling": scaling,
                     "efficiency": scaling / cpus if scaling is not None else None,
                     "missing_cores": cpus - len(cores)})
    # counter skips (ctr_set) are the Counters section's: the bandwidth itself was measured
    skips = [k for k in summary.get("skips") or [] if k.get("probe") == MEMBW_MC and not k.get("ctr_set")]
    # All cores together are what can approach the DRAM peak SMBIOS implies (one core rarely does).
    peak = memory.dram([], [], summary)
    for r in rows:
        gbps = (r["agg"] or {}).get("gbps")
        r["pct_peak"] = 100.0 * gbps / peak["peak_gbps"] if gbps and peak["peak_gbps"] else None
    return {"rows": rows, "skips": skips, "peak_gbps": peak["peak_gbps"], "peak_reason": peak["reason"]}


def section(doc, mc):
    """The report's Multi-core bandwidth section (nothing when the run had no membw_mc)."""
    if not mc["rows"] and not mc["skips"]:
        return
    doc.h("Multi-core bandwidth")
    if not mc["rows"]:
        doc.list("skipped: %s" % (k.get("reason") or "no reason given") for k in mc["skips"])
        return
    doc.p("Every core streams its own buffers with the same kernel and pass count, released by one "
          "common start. aggregate = all cores' bytes / (latest end - earliest start); per core = "
          "each core's own timing; sum = the per-core rates added (> aggregate when the cores did "
          "not overlap fully). Scaling is over the 1-core aggregate. GB/s = 10^9 B/s, a copy "
          "counts bytes read + written.")
    rows = []
    for r in mc["rows"]:
        agg = r["agg"] or {}
        rows.append([r["kernel"], r["width"], memory.size_text(r["size"]) if r["size"] else "-",
                     r["cpus"], fnum(agg.get("gbps")),
                     memory.range_text(agg.get("gbps_lo"), agg.get("gbps_hi")),
                     memory.range_text(r["core_min"], r["core_max"]), fnum(r["core_sum"]),
                     fnum(r["scaling"]), fnum(r["efficiency"]),
                     "%.0f%%" % r["pct_peak"] if r["pct_peak"] is not None else "-",
                     "%d missing" % r["missing_cores"] if r["missing_cores"] else "ok"])
    doc.table(["kernel", "width", "buffer/core", "cores", "aggregate GB/s", "CI95",
               "per core GB/s", "sum", "scaling", "efficiency", "of DRAM peak", "sets"], rows)
    if mc["peak_gbps"]:
        doc.p("DRAM peak (SMBIOS): %s GB/s" % fnum(mc["peak_gbps"]))
    else:
        doc.p("of DRAM peak: %s" % mc["peak_reason"])
    doc.list("skipped: %s" % (k.get("reason") or "no reason given") for k in mc["skips"])
