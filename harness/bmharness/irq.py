"""Interrupt probes: latency distributions per source and wait mode, exception round trips,
handler cost by displacement next to the direct measurement, the cache footprint of one interrupt
against handlers of known footprint, and platform noise; the report's Interrupts section.

`analyse(summary, out_dir)` reads summary.json and the raw files (every sample is needed: the
tails are the point). The arithmetic of the methods lives here, in plain functions the tests
check: `latency_stats`, `displacement` (Woodside et al. sections 2-3 with their error terms),
and `noise_summary`; the cache footprint (Schaelicke, calibrated) is footprint.py's.
"""

import math
import os

from . import footprint, irq_lat, parse, stats

LATENCY, MASKED, EXCEPTION = "irq_latency", "irq_masked", "irq_exception"
DISPLACE, FOOTPRINT, NOISE = "irq_displace", "irq_footprint", "noise"
SECTION_PROBES = (LATENCY, MASKED, EXCEPTION, DISPLACE, FOOTPRINT, NOISE)
PERCENTILES = (("min", 0), ("median", 50), ("p99", 99), ("p99.9", 99.9), ("max", 100))
AGREE_LIMIT = 0.02   # displacement vs direct, the icount test's bound


def num(x):
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def latency_stats(values):
    """min, median, p99, p99.9 (only where N x 0.001 >= 10), max (and n) of raw values, with
    order-statistic CIs of the median and p99 (irq_lat.latency_summary); None entries when there
    are none."""
    return irq_lat.latency_summary(values)


def _mean(xs):
    return math.fsum(xs) / len(xs) if xs else None


def _sd(xs):
    if len(xs) < 2:
        return 0.0
    m = _mean(xs)
    return math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def displacement(calib, loaded, counts, lf1, lf2=None, overhead=0, resolution=1.0):
    """Woodside et al.: per-interrupt CPU cost from a fluid loop's displacement.

    calib: T_F(1) per calibration window (L_F(1) = lf1 iterations, interrupts masked);
    loaded: T_F(2) per loaded window (lf2 iterations, default lf1); counts: interrupts taken per
    loaded window (L_PUT(2)). overhead S (start/stop cost inside every window) is subtracted from
    both, which removes the paper's e_start = S / L_PUT(2) (reported for reference).

    tau_F = (mean T_F(1) - S) / L_F(1); T_PUT = sum(T_F(2) - S - L_F(2) tau_F);
    tau_PUT = T_PUT / sum L_PUT(2).
    Error terms per window (section 3): e_res = resolution (1 + L_F(2)/L_F(1)) / (2 L_PUT(2));
    e_daemons is bounded by the calibration's spread: sd(T_F(1)) * (L_F(2)/L_F(1)) / L_PUT(2).
    """
    lf2 = lf2 or lf1
    if not calib or not loaded or len(loaded) != len(counts) or not lf1:
        return None
    total = sum(counts)
    tau_f = (_mean(calib) - overhead) / lf1
    t_put = math.fsum(t - overhead - lf2 * tau_f for t in loaded)
    per_window = total / len(loaded)
    res = {"tau_f": tau_f, "windows": len(loaded), "calib_windows": len(calib), "interrupts": total,
           "t_put": t_put, "lf1": lf1, "lf2": lf2, "overhead": overhead,
           "cost": t_put / total if total else None}
    if per_window:
        res["e_res"] = resolution * (1 + lf2 / lf1) / (2 * per_window)
        res["e_start"] = overhead / per_window
        res["e_daemons"] = _sd(calib) * (lf2 / lf1) / per_window
    else:
        res.update(e_res=None, e_start=None, e_daemons=None)
    return res


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
           "apic": (summary.get("platform") or {}).get("apic")}
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
    calib = disp.get(None, {}).get("calib")
    def by_work(kv):
        loaded = kv[1].get("loaded")
        return (loaded[0].get("params") or {}).get("work_lines", 0) if loaded else -1
    for handler, d in sorted(disp.items(), key=by_work):
        if handler is None or "loaded" not in d or not calib:
            continue
        ls, lv = d["loaded"]
        cv = d.get("count", (None, []))[1]
        dv = d.get("direct", (None, []))[1]
        r = displacement(calib[1], lv, cv, calib[0].get("iters"), ls.get("iters"), calib[0].get("overhead") or 0)
        direct = _mean(dv)
        row = {"handler": handler, "work_lines": (ls.get("params") or {}).get("work_lines"), "disp": r,
               "direct_mean": direct, "direct_median": stats.percentile(sorted(dv), 50) if dv else None,
               "direct_n": len(dv), "ratio": (r or {}).get("cost") / direct if r and r.get("cost") is not None
               and direct else None, "hz": _hz(summary, ls), "period": (ls.get("params") or {}).get("period_cycles")}
        res["displace"].append(row)
    res["footprint"] = footprint.analyse(summary)
    if "gap_len" in noise:
        s, lens = noise["gap_len"]
        starts = noise.get("gap_start", (None, []))[1]
        smis = noise.get("gap_smi", (None, None))[1]
        res["noise"] = noise_summary(s.get("params") or {}, starts, lens, _hz(summary, s), smis)
    return res


def _ns(cycles, hz):
    return cycles / hz * 1e9 if cycles is not None and hz else None


def section(doc, irq, out_dir, plot_info=None):
    """The report's Interrupts section (nothing when the run had no interrupt probe)."""
    from .report import fnum  # late: report imports this module
    if not any(irq[k] for k in ("latency", "masked", "exceptions", "displace", "noise", "skips")) and \
            not (irq["footprint"] or {}).get("levels"):
        return
    doc.h("Interrupts")
    apic = irq.get("apic")
    if isinstance(apic, dict):
        doc.kv([("local APIC", "%s, timer %s Hz calibrated against the TSC, TSC-deadline %s" % (
            apic.get("mode", "?"), fnum(apic.get("timer_hz")), "yes" if apic.get("tsc_deadline") else "no"))])
    if irq["latency"]:
        doc.h("Latency", 3)
        irq_lat.table(doc, irq["latency"], fnum)
    for m in irq["masked"]:
        doc.kv([("masked window", "interrupt armed while masked: taken during the masked window %s, "
                 "after unmask %s (%s cycles after the unmask), masked samples %s/%s complete" % (
                     fnum(m.get("taken_masked")), fnum(m.get("taken_after_unmask")),
                     fnum(m.get("after_unmask_cycles")), fnum(m.get("received")), fnum(m.get("n"))))])
    if irq["exceptions"]:
        doc.h("Exception round trip", 3)
        doc.table(["kind", "N", "min ns", "median", "p99", "p99.9", "max", "median cycles"],
                  [[e["kind"], e["n"]] + [fnum(_ns(e[k], e["hz"])) for k, _ in PERCENTILES] +
                   [fnum(e["median"])] for e in irq["exceptions"]])
    if irq["displace"]:
        doc.h("Handler cost: displacement vs direct", 3)
        doc.p("displacement (Woodside): (T_F(2) - S - L_F(2) tau_F) / interrupts, tau_F from masked "
              "windows; direct: stub entry to exit TSC per interrupt (excludes delivery, the stub's first "
              "and last instructions and iretq). Cycles per interrupt; errors per the paper (section 3).")
        rows = []
        for r in irq["displace"]:
            d = r["disp"] or {}
            rows.append([r["handler"], fnum(r["work_lines"]), fnum(d.get("interrupts")), fnum(d.get("tau_f")),
                         fnum(d.get("cost")), fnum(r["direct_mean"]), fnum(r["direct_median"]), fnum(r["ratio"]),
                         fnum(d.get("e_res")), fnum(d.get("e_daemons")), fnum(d.get("e_start"))])
        doc.table(["handler", "K lines", "interrupts", "tau_F", "displacement", "direct mean",
                   "direct median", "ratio", "e_res", "e_daemons", "e_start (removed)"], rows)
    footprint.section(doc, irq["footprint"], fnum)
    nz = irq["noise"]
    if nz:
        hz = nz["hz"]
        doc.h("Platform noise", 3)
        doc.kv([("gaps", "%s over %s s (threshold %s cycles = %s ns; hwlat's default: %s ns; median loop step "
                          "%s cycles)" % (
            fnum(nz["count"]), fnum(nz["window_cycles"] / hz if hz else None), fnum(nz["threshold_cycles"]),
            fnum(nz.get("threshold_ns")), fnum(nz.get("hwlat_ns")), fnum(nz["median_step"]))),
            ("stolen", "%s ms total (%s of the window), longest gap %s us" % (
                fnum(_ns(nz["total_cycles"], hz) / 1e6 if hz else None),
                "%.3f%%" % (100 * nz["share"]) if nz["share"] is not None else "-",
                fnum(_ns(num(nz["longest_cycles"]), hz) / 1e3 if hz and nz["longest_cycles"] is not None
                     else None))),
            ("interrupts masked", fnum(bool(nz["masked"]))),
            ("SMIs", "%s%s%s" % (fnum(nz["smi"]), "" if nz.get("smi_gaps") is None else
                                 ", gaps with an SMI: %d of %d stored" % (nz["smi_gaps"], len(nz["lens"])),
                                 " (%s)" % nz["smi_note"] if nz.get("smi_note") else ""))])
    for name, path, caption in (plot_info or {}).get("files", []):
        doc.img(os.path.relpath(path, out_dir), caption)
    if (plot_info or {}).get("error"):
        doc.p("plots: %s" % plot_info["error"])
    if irq["skips"]:
        doc.list("skipped %s%s: %s" % (k.get("probe"), " (%s)" % k["source"] if k.get("source") else "",
                                       k.get("reason")) for k in irq["skips"])
