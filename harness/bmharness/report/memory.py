"""The report's Memory section: bandwidth tables, the best kernel per size, the DRAM peak, the
plateaus in bytes per core cycle against the CPU's limits, latency tables, cache levels (knees vs
CPUID) and the memory plots, from analysis/memory.py's result (the plateaus: headline.py's pick).
Nothing here computes: every figure is memory.analyse()'s.
"""

import os

from . import plots
from .doc import fnum
from ..analysis import archinfo, limits
from ..analysis import headline as headline_analysis
from ..analysis.memory import DRAM_FACTOR, LATENCY, MAIN, MEMBW, analyse, size_text

NAME = "memory"
__all__ = ("NAME", "analyse", "draw", "section", "range_text")


def draw(mem, out_dir, stamp=None):
    """bandwidth and latency figures (plots.draw_memory): {"files": [(kind, path)], "error"}."""
    return plots.draw_memory(mem, out_dir, stamp)


def _note(p, pages):
    out = []
    if p.get("bimodal"):
        out.append("bimodal")
    if not p.get("complete", True):
        out.append("INCOMPLETE")
    if p.get("cycles") is None and p.get("n"):
        out.append("median below the timer overhead")
    if len(pages) > 1 and p.get("page") is not None:
        out.append("page %s" % p["page"])
    return ", ".join(out)


def range_text(lo, hi):
    """'lo-hi', or '-' when either end is missing."""
    return "%s-%s" % (fnum(lo), fnum(hi)) if lo is not None and hi is not None else "-"


def _ci_text(cvs):
    kinds = {p.get("ci") for c in cvs for p in c["points"] if p.get("ci")}
    if kinds == {"median"}:
        text = "CI95 = 95% CI of the median (order statistics of the raw samples), converted"
    elif kinds == {"mean"}:
        text = "CI95 = 95% CI of the mean (raw files not read), converted"
    else:
        text = "CI95 = 95% CI of the median, or of the mean where the raw file was unreadable"
    low = sorted({p["ci_coverage"] for c in cvs for p in c["points"] if (p.get("ci_coverage") or 1) < 0.95})
    if low:
        text += ("; with N <= 5 samples the median's interval is [min, max] and covers it with "
                 "probability %s only, not 95%%" % " / ".join("%.0f%%" % (100 * v) for v in low))
    return text


def _curve_head(c):
    """One line naming a curve, with what is common to its points; (text, pages)."""
    pts = c["points"]
    pages = sorted({str(p["page"]) for p in pts if p.get("page") is not None})
    extra = " ".join("%s=%s" % kv for kv in c["params"].items()
                     if kv[0] not in MAIN[c["probe"]])
    ns = sorted({p.get("n") for p in pts if p.get("n") is not None})
    sets = [p["set"] for p in pts if isinstance(p.get("set"), int)]
    return "%s: %d size(s)%s%s, N=%s, sets %s" % (
        c["label"], len(pts), ", " + extra if extra else "",
        ", pages %s" % "/".join(pages) if pages else "",
        "-".join(str(n) for n in ns[::max(1, len(ns) - 1)]) or "-",
        "%d-%d" % (min(sets), max(sets)) if sets else "-"), pages


def _bandwidth(doc, mem):
    bw = [c for c in mem["curves"] if c["probe"] == MEMBW]
    doc.h("Bandwidth", 3)
    if not bw:
        doc.p("no membw sets")
        return
    clk = mem.get("clock") or archinfo.CLOCKS[archinfo.X86]
    doc.p("GB/s = 10^9 B/s = bytes per pass x %s / median %s per pass; bytes under the "
          % (clk["hz"], clk["short"]) +
          "set's convention (rw: a copy counts bytes read + written, as STREAM and memtest86+ "
          "do; write-allocate traffic is not counted); 'once' counts a copy's bytes once; "
          + _ci_text(bw))
    for c in bw:
        head, pages = _curve_head(c)
        doc.p(head)
        alt = any(p.get("alt_bytes") and p["alt_bytes"] != p.get("bytes") for p in c["points"])
        per_cycle = any(p.get("core_clock") for p in c["points"])  # older logs: no core clock
        rows = []
        for p in c["points"]:
            rows.append([size_text(p["size"]), p.get("gbps"),
                         range_text(p.get("gbps_lo"), p.get("gbps_hi"))]
                        + ([p.get("gbps_alt")] if alt else []) + [p.get("cycles")]
                        + ([_ghz((p.get("core_clock") or {}).get("hz")), p.get("core_bpc")]
                           if per_cycle else []) + [_note(p, pages)])
        doc.table(["size", "GB/s", "CI95"] + (["GB/s once"] if alt else [])
                  + ["%s/pass" % clk["short"]] + (["core GHz", "B/cycle"] if per_cycle else [])
                  + ["note"], rows)
    d = mem["dram"]
    peak = d["peak_gbps"]
    doc.p("best kernel per size (GB/s as above%s)" % (
        "; % of the theoretical DRAM peak, above 100% = cache" if peak else ""))
    doc.table(["size", "best", "GB/s", "CI95"] + (["% DRAM peak"] if peak else []),
              [[size_text(size), lab, p["gbps"], range_text(p.get("gbps_lo"), p.get("gbps_hi"))]
               + (["%.1f%%" % (100 * p["gbps"] / peak)] if peak else [])
               for size, lab, p in mem["best"]])
    where = ("sizes >= %dx the largest cache (%s)" % (DRAM_FACTOR, size_text(d["threshold"]))
             if d["threshold"] else "no %s cache sizes: the largest size of each curve"
             % mem.get("cache_source", "CPUID"))
    if peak:
        doc.kv([("DRAM peak", "%.2f GB/s theoretical (%s device(s), %s)" % (
            peak, fnum(d.get("devices")), fnum(d.get("basis"))))])
    else:
        doc.kv([("DRAM peak", d["reason"])])
    if d["threshold"] is not None and not d["rows"]:
        doc.kv([("DRAM achieved", "not measured: no swept size is among the %s" % where)])
    elif d["best"]:
        b = d["best"]
        doc.kv([("DRAM achieved", "%.2f GB/s (%s at %s)%s; %s" % (
            b["gbps"], b["label"], size_text(b["size"]),
            " = %.1f%% of the peak" % b["pct"] if b["pct"] is not None else "", where))])
        if len(d["rows"]) > 1:
            doc.table(["kernel", "size", "GB/s"] + (["% peak"] if peak else []),
                      [[r["label"], size_text(r["size"]), r["gbps"]]
                       + (["%.1f%%" % r["pct"]] if peak else []) for r in d["rows"]])


def _latency(doc, mem):
    lat = [c for c in mem["curves"] if c["probe"] == LATENCY]
    doc.h("Latency", 3)
    if not lat:
        doc.p("no latency sets")
        return
    clk = mem.get("clock") or archinfo.CLOCKS[archinfo.X86]
    doc.p("per dependent load: median %s, and ns = %s / %s; " % (clk["unit"], clk["short"], clk["hz"])
          + _ci_text(lat).replace("converted", "in ns"))
    for c in lat:
        head, pages = _curve_head(c)
        doc.p(head)
        doc.table(["size", "ns/load", "CI95 ns", "%s/load" % clk["short"], "note"],
                  [[size_text(p["size"]), p.get("ns"), range_text(p.get("ns_lo"), p.get("ns_hi")),
                    p.get("cycles"), _note(p, pages)] for p in c["points"]])


def _levels(doc, mem):
    h = mem["hierarchy"]
    src = mem.get("cache_source", "CPUID")
    doc.h("Cache levels: knees vs %s" % src, 3)
    prim = h["primary"]
    nv = h.get("no_verdict")
    doc.p("a knee is the largest size before a significant step (latency up, bandwidth down; "
          "see knees.py)%s. Primary: %s" % (
              "" if nv else "; it agrees with %s within [0.5x, 2x]" % src,
              "the %s latency curve" % prim["label"] if prim else
              "no latency curve, so the bandwidth curves (majority)"))
    if nv:
        doc.p("NO VERDICT: %s. The knees below are the emulator's host's, not a cache of the "
              "CPU described, so they are not judged against its %s sizes." % (nv, src))
    if mem["cpuid"] and nv:
        doc.table(["level", src, "nearest knee (host)", "verdict"],
                  [[r["name"], size_text(r["size"]), size_text(r["knee"]) if r["knee"] else "-",
                    r["status"]] for r in h["levels"]])
    elif mem["cpuid"]:
        doc.table(["level", src, "knee", "knee/%s" % ("CPUID" if src == "CPUID" else "size"),
                   "verdict", "other curves"],
                  [[r["name"], size_text(r["size"]), size_text(r["knee"]) if r["knee"] else "-",
                    "%.2fx" % r["ratio"] if r["ratio"] else "-", r["status"], r["secondary"]]
                   for r in h["levels"]])
    else:
        doc.p("no %s data/unified cache sizes reported" % src)
    for u in h.get("unknown") or []:
        doc.p("%s: geometry unknown (%s): no size, so no knee is judged against it" % (
            u["name"], u["reason"]))
    lines = []
    for s in h["sources"]:
        ks = ", ".join("%s (%s)" % (size_text(k["size"]), k["confidence"]) for k in s["knees"])
        lines.append("%s %s: %s%s" % (s["probe"], s["label"], ks or "no knee",
                                      "; " + "; ".join(s["notes"]) if s["notes"] else ""))
    doc.list(lines)
    if prim:
        doc.list("%s knee %s -> %s: %s" % (prim["label"], size_text(k["size"]),
                                           size_text(k["next_size"]), k["note"])
                 for k in prim["knees"])
    doc.list("FLAG: " + f for f in h["flags"])
    if not h["flags"] and mem["cpuid"] and not h.get("no_verdict"):
        doc.p("knees and %s agree" % src)


# How each core clock source finds the clock (analysis/core_clock.py), for the paragraph above the
# table; only the sources the rows use are named (an AArch64 run has no APERF).
CLOCK_HOW = {"aperf_mperf": "the counter rate x APERF/MPERF per sample",
             "pmu_cycles": "PMU core cycles per sample time",
             "add_chain": "a chain of dependent adds, 1 cycle each, timed before and after the set"}


def _ghz(hz):
    return "%.3f" % (hz / 1e9) if hz else "-"


def _per_cycle(doc, mem):
    """The plateaus per level in bytes per core cycle; the L1's against the CPU's limits."""
    doc.h("Bytes per core cycle", 3)
    lv = headline_analysis.memory_levels(mem)
    lim = lv.get("limits") or {}
    used = [p.get("core_clock_source") for row in lv.get("levels") or [] for p in
            (row.get(k) for k in ("read", "write", "copy")) if p and p.get("core_clock_source")]
    how = "; ".join("%s: %s" % (src, CLOCK_HOW[src]) for src in CLOCK_HOW if src in used)
    doc.p("B/cycle = the plateau's GB/s / the core clock during its set (%s); the L1's against the "
          "CPU's load/store limit at the kernel's width (copy: 2 x min(read, write), rw bytes)"
          % (how or "no core clock in these sets"))
    doc.kv([("limits", "%s: %s" % (lim["cpu"], lim["source"]) if lim.get("cpu") else
             "%s: no row for this CPU in the table (analysis/limits.py)" % limits.UNKNOWN)])
    rows = []
    for row in lv.get("levels") or []:
        for k in ("read", "write", "copy"):
            p = row.get(k)
            if not p:
                continue
            li = p.get("limit")
            frac = ("%.2f of %s" % (li["fraction"], li["text"]) if li and li.get("fraction")
                    is not None else limits.UNKNOWN if "limit" in p and not li else "-")
            rows.append([row["name"], k, p["curve"], p["gbps"], "%s (%s-%s)" % (
                _ghz(p.get("core_hz")), _ghz(p.get("core_hz_lo")), _ghz(p.get("core_hz_hi"))),
                p.get("core_clock_source") or "-", p.get("bytes_per_cycle"), frac])
    doc.table(["level", "kernel", "curve", "GB/s", "core GHz (lo-hi)", "clock from", "B/cycle",
               "of the limit"], rows)
    d = lv.get("dram") or {}
    if d.get("measured"):
        doc.kv([("DRAM", "%.2f of the SMBIOS peak %.2f GB/s" % (d["peak_fraction"], d["peak_gbps"])
                 if d.get("peak_fraction") is not None else d.get("peak_reason")
                 or "peak unknown")])


def section(doc, mem, out_dir, plot_info=None):
    """The Memory section: bandwidth tables, best kernel per size, DRAM peak, latency tables,
    knees vs CPUID, plots (plot_info: {"files": [(kind, path)], "error"} or None)."""
    doc.h("Memory")
    by_reason = {}
    for s in mem["skips"]:
        what = "/".join(str(s[k]) for k in ("kernel", "width", "pattern") if k in s)
        by_reason.setdefault(s.get("reason") or "no reason given", []).append(
            what or "set %s" % s.get("set", "?"))
    skips = ["%s: %s" % (reason, ", ".join(whats)) for reason, whats in by_reason.items()]
    if not mem["measured"]:
        doc.p("nothing measured: no membw or latency sets in this run")
        doc.list("skipped: " + t for t in skips)
        return
    _bandwidth(doc, mem)
    _per_cycle(doc, mem)
    _latency(doc, mem)
    _levels(doc, mem)
    doc.list("skipped: " + t for t in skips)
    doc.h("Memory plots", 3)
    if plot_info is None:
        doc.p("not drawn")
        return
    if plot_info.get("error"):
        doc.p("none: %s" % plot_info["error"])
    for kind, path in plot_info.get("files", []):
        doc.img(os.path.relpath(path, out_dir), "%s vs buffer size" % kind)
