"""Multi-core bandwidth (`membw_mc` sets): per kernel and core count, the aggregate GB/s of all
cores together and each core's own GB/s, with the scaling over one core.

The firmware emits, per (kernel, width, cpus), one set per core (`cpu=K`: that core's cycles per
pass, timed by itself) and one aggregate set (`cpu=all`: earliest start to latest end over the
cores, `bytes_per_op` = every core's bytes). Rates come from memory.point, so the byte convention
and the CI of the median are the Memory section's. report/multicore.py renders the result.
"""

from . import memory
from ..stream.values import num

MEMBW_MC = "membw_mc"


def _int(x):
    try:
        return int(x)
    except (TypeError, ValueError):
        return None


def analyse(summary, out_dir=None):
    """{"rows": [...], "skips": [...], "peak_gbps", "peak_reason"}; a row per (kernel, width, cpus), ordered by kernel then
    cores: agg (point of the cpu=all set), cores (points of cpu=K, by K), core_min/core_max
    (GB/s), core_bpc_min/core_bpc_max (bytes per core cycle, each core over its own clock; None
    without one), scaling (aggregate over the 1-core aggregate), efficiency (scaling / cores), pct_peak
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
        bpcs = [p["core_bpc"] for p in cores if p.get("core_bpc") is not None]
        agg = g["agg"] or {}
        one = groups.get((kernel, width, 1), {}).get("agg") or {}
        scaling = memory.div(agg.get("gbps"), one.get("gbps"))
        rows.append({"kernel": kernel, "width": width, "cpus": cpus, "size": g["size"],
                     "agg": g["agg"], "cores": cores,
                     "core_min": min(rates) if rates else None,
                     "core_max": max(rates) if rates else None,
                     "core_sum": sum(rates) if len(rates) == cpus else None,
                     "core_bpc_min": min(bpcs) if bpcs else None,
                     "core_bpc_max": max(bpcs) if bpcs else None,
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
