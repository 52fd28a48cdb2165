"""Interrupt probes: latency distributions per source and wait mode, exception round trips,
handler cost by displacement next to the direct measurement, the cache footprint of one interrupt
against handlers of known footprint, and platform noise; the report's Interrupts section.

`analyse(summary, out_dir)` reads summary.json and the raw files (every sample is needed: the
tails are the point). The arithmetic of the methods lives here, in plain functions the tests
check: `latency_stats` and `noise_summary`; displacement (Woodside et al., with its error terms)
is displace.py's and the cache footprint (Schaelicke, calibrated) footprint.py's.
"""

import os

from . import archinfo, displace, footprint, irq_lat
from ..report.doc import fnum, ns, num
from ..stream import parse

LATENCY, MASKED, EXCEPTION = "irq_latency", "irq_masked", "irq_exception"
DISPLACE, FOOTPRINT, NOISE = "irq_displace", "irq_footprint", "noise"
SECTION_PROBES = (LATENCY, MASKED, EXCEPTION, DISPLACE, FOOTPRINT, NOISE)
PERCENTILES = (("min", 0), ("median", 50), ("p99", 99), ("p99.9", 99.9), ("max", 100))


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
           "masked": fields.get("irq_masked"), "smi": fields.get("smi_count", fields.get("smi")),
           "threshold_ns": fields.get("threshold_ns"), "hwlat_ns": fields.get("hwlat_default_ns"),
           "smi_gaps": smi_gaps(smis) if smis else None, "smi_note": fields.get("smi_note"),
           "share": total / window if window else None, "starts": starts, "lens": lens, "hz": hz,
           "consistent": len(lens) + (fields.get("dropped") or 0) == fields.get("count")
           and sum(lens) <= total + 1e-9 * total}
    return out


def _raw(s, out_dir):
    if not out_dir or not s.get("raw_file"):
        return []
    try:
        return parse.read_raw(os.path.join(out_dir, s["raw_file"]))[1]
    except (OSError, ValueError):
        return []


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
        vals, hz = _raw(s, out_dir), _hz(summary, s)
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


def section(doc, irq, out_dir, plot_info=None):
    """The report's Interrupts section (nothing when the run had no interrupt probe)."""
    if not any(irq[k] for k in ("latency", "masked", "exceptions", "displace", "noise", "skips")) and \
            not (irq["footprint"] or {}).get("levels"):
        return
    doc.h("Interrupts")
    unit = archinfo.clock(irq.get("arch", archinfo.X86))["unit"]  # cycles, or counter ticks
    apic = irq.get("apic")
    if isinstance(apic, dict):
        doc.kv([("local APIC", "%s, timer %s Hz calibrated against the TSC, TSC-deadline %s" % (
            apic.get("mode", "?"), fnum(apic.get("timer_hz")), "yes" if apic.get("tsc_deadline") else "no"))])
    if irq["latency"]:
        doc.h("Latency", 3)
        irq_lat.table(doc, irq["latency"], fnum, irq.get("arch", archinfo.X86))
    for m in irq["masked"]:
        doc.kv([("masked window", "interrupt armed while masked: taken during the masked window %s, "
                 "after unmask %s (%s %s after the unmask), masked samples %s/%s complete" % (
                     fnum(m.get("taken_masked")), fnum(m.get("taken_after_unmask")),
                     fnum(m.get("after_unmask_cycles")), unit, fnum(m.get("received")), fnum(m.get("n"))))])
    if irq["exceptions"]:
        doc.h("Exception round trip", 3)
        doc.table(["kind", "N", "min ns", "median", "p99", "p99.9", "max", "median " + unit],
                  [[e["kind"], e["n"]] + [fnum(ns(e[k], e["hz"])) for k, _ in PERCENTILES] +
                   [fnum(e["median"])] for e in irq["exceptions"]])
    if irq["displace"]:
        displace.section(doc, irq["displace"], irq.get("displace_checks"), fnum)
    footprint.section(doc, irq["footprint"], fnum)
    nz = irq["noise"]
    if nz:
        hz = nz["hz"]
        doc.h("Platform noise", 3)
        doc.kv([("gaps", "%s over %s s (threshold %s %s = %s ns; hwlat's default: %s ns; median loop step "
                          "%s %s)" % (
            fnum(nz["count"]), fnum(nz["window_cycles"] / hz if hz else None), fnum(nz["threshold_cycles"]),
            unit, fnum(nz.get("threshold_ns")), fnum(nz.get("hwlat_ns")), fnum(nz["median_step"]), unit)),
            ("stolen", "%s ms total (%s of the window), longest gap %s us" % (
                fnum(ns(nz["total_cycles"], hz) / 1e6 if hz else None),
                "%.3f%%" % (100 * nz["share"]) if nz["share"] is not None else "-",
                fnum(ns(num(nz["longest_cycles"]), hz) / 1e3 if hz and nz["longest_cycles"] is not None
                     else None))),
            ("interrupts masked", fnum(bool(nz["masked"])))])
        if irq.get("arch", archinfo.X86) == archinfo.X86:  # no SMI count elsewhere
            doc.kv([("SMIs", "%s%s%s" % (fnum(nz["smi"]), "" if nz.get("smi_gaps") is None else
                                 ", gaps with an SMI: %d of %d stored" % (nz["smi_gaps"], len(nz["lens"])),
                                 " (%s)" % nz["smi_note"] if nz.get("smi_note") else ""))])
    for name, path, caption in (plot_info or {}).get("files", []):
        doc.img(os.path.relpath(path, out_dir), caption)
    if (plot_info or {}).get("error"):
        doc.p("plots: %s" % plot_info["error"])
    if irq["skips"]:
        doc.list("skipped %s%s: %s" % (k.get("probe"), " (%s)" % k["source"] if k.get("source") else "",
                                       k.get("reason")) for k in irq["skips"])
