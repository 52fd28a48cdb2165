"""Interrupt probes: latency distributions per source and wait mode, exception round trips,
handler cost by displacement next to the direct measurement, the cache footprint of one interrupt
against handlers of known footprint, and platform noise (rendered by report/irq.py).

`analyse(summary, out_dir)` reads summary.json and the raw files (every sample is needed: the
tails are the point). The arithmetic of the methods lives here, in plain functions the tests
check: `latency_stats` and `noise_summary`; displacement (Woodside et al., with its error terms)
is displace.py's and the cache footprint (Schaelicke, calibrated) footprint.py's.
"""

from . import archinfo, displace, footprint, irq_lat
from .. import stats
from ..stream.values import num

LATENCY, MASKED, EXCEPTION = "irq_latency", "irq_masked", "irq_exception"
DISPLACE, FOOTPRINT, NOISE = "irq_displace", "irq_footprint", "noise"
SECTION_PROBES = (LATENCY, MASKED, EXCEPTION, DISPLACE, FOOTPRINT, NOISE)


def latency_stats(values):
    """min, median, p99, p99.9 (only where N x 0.001 >= 10), max (and n) of raw values, with
    order-statistic CIs of the median and p99 (irq_lat.latency_summary); None entries when there
    are none."""
    return irq_lat.latency_summary(values)


def smi_gaps(smis):
    """Gaps the SMI count can be blamed for: smis[i] is the count (since the window start) read
    right after gap i, so gap i saw an SMI if the count rose since the previous gap's reading."""
    prev, n = 0, 0
    for v in smis:
        n += v > prev
        prev = max(prev, v)
    return n


def noise_summary(fields, starts, lens, hz, smis=None):
    """count, total stolen time, longest gap, share of the window, threshold (cycles, ns, hwlat's
    default next to it) and SMIs (in the window, and gaps with an SMI when read per gap)."""
    window = num(fields.get("window_cycles")) or 0
    total = num(fields.get("total_cycles")) or 0
    out = {"count": fields.get("count"), "total_cycles": total, "longest_cycles": fields.get("longest_cycles"),
           "window_cycles": window, "stored": len(lens), "dropped": fields.get("dropped"),
           "threshold_cycles": fields.get("threshold_cycles"), "median_step": fields.get("median_step_cycles"),
           "p90_step": fields.get("p90_step_cycles"),
           "masked": fields.get("irq_masked"), "smi": fields.get("smi_count", fields.get("smi")),
           "threshold_ns": fields.get("threshold_ns"), "hwlat_ns": fields.get("hwlat_default_ns"),
           "smi_gaps": smi_gaps(smis) if smis else None, "smi_note": fields.get("smi_note"),
           "share": total / window if window else None, "starts": starts, "lens": lens, "hz": hz,
           "consistent": len(lens) + (fields.get("dropped") or 0) == fields.get("count")
           and sum(lens) <= total + 1e-9 * total}
    return out


def _hz(summary, s):
    return num(s.get("tsc_hz")) or num(((summary.get("platform") or {}).get("tsc") or {}).get("hz"))


def analyse(summary, out_dir=None):
    res = {"latency": [], "masked": [], "exceptions": [], "displace": [], "footprint": [], "noise": None,
           "skips": [k for k in summary.get("skips") or [] if k.get("probe") in SECTION_PROBES],
           "apic": (summary.get("platform") or {}).get("apic"), "arch": archinfo.arch(summary)}
    disp, noise = {}, {}
    for s in summary.get("sets") or []:
        name, p = s.get("name"), s.get("params") or {}
        if name not in SECTION_PROBES:
            continue
        vals, hz = stats.set_samples(out_dir, s) or [], _hz(summary, s)
        if name == LATENCY:
            row = dict(latency_stats(vals), set=s.get("set"), source=p.get("source"), mode=p.get("mode"),
                       wait=p.get("wait"), deadline=p.get("deadline"), hz=hz, values=vals, params=p)
            res["latency"].append(row)
        elif name == MASKED:
            res["masked"].append(dict(p, n=s.get("n"), received=s.get("received"), set=s.get("set")))
        elif name == EXCEPTION:
            per = [v - (s.get("overhead") or 0) for v in vals]
            res["exceptions"].append(dict(latency_stats(per), kind=p.get("kind"), hz=hz, set=s.get("set")))
        elif name == DISPLACE:
            disp.setdefault(p.get("handler"), {})[p.get("what")] = (s, vals)
        elif name == NOISE:
            noise[p.get("what")] = (s, vals)
    res["displace"] = displace.rows(disp, summary.get("checks"))
    res["displace_checks"] = [c for c in summary.get("checks") or [] if c.get("probe") == DISPLACE]
    res["footprint"] = footprint.analyse(summary)
    if "gap_len" in noise:
        s, lens = noise["gap_len"]
        starts = noise.get("gap_start", (None, []))[1]
        smis = noise.get("gap_smi", (None, None))[1]
        res["noise"] = noise_summary(s.get("params") or {}, starts, lens, _hz(summary, s), smis)
    return res
