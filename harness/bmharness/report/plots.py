"""Histograms per probe name (one subplot per parameter set), drawn with matplotlib's Agg
backend from the raw/*.txt sample files, and the memory curves (bandwidth: one panel per kernel
family, width as colour; latency) from memory.analyse's result. Every figure goes through
figure.save (stamp, watermark, PNG + SVG, nothing written without data). Optional: without
matplotlib the report says so."""

import math
import os
import re

from . import figure
from ..analysis import irq, memory
from .. import stats

MAX_PANELS = 32  # subplots per histogram figure (a taller figure exceeds what Agg can draw)
MIN_HIST_N = 5   # fewer values make no histogram (a bar or two says nothing about a shape)
# Kernel families of the bandwidth figure, a panel each; a kernel is in the first family whose
# words its name contains (rep_stosb and memset write, rep_movsb and memcpy copy).
FAMILIES = (("read", ("read",)), ("write", ("write", "stos", "memset")),
            ("copy", ("copy", "movs", "memcpy")))
# Line style per kernel variant within a family (the colour is the width).
VARIANT_STYLES = (("_nt", "--", "s"), ("rep_", ":", "^"), ("mem", "-.", "D"))


def _matplotlib():
    try:
        import matplotlib
        matplotlib.use("Agg")  # no display on build machines
        import matplotlib.pyplot as plt
        return plt, None
    except Exception as exc:  # ImportError, or a broken install
        return None, "matplotlib not importable (%s); install python3-matplotlib" % exc


def draw(summary, out_dir, stamp=None):
    """Write hist-<probe>.png/.svg files (stamp: figure.stamp's). Returns {"files": [(name,
    path)], "notes": [...], "error": str or None}."""
    info = {"files": [], "notes": [], "error": None}
    by_name, mem_sets = {}, 0
    for s in summary.get("sets") or []:
        if s.get("name") in memory.SECTION_PROBES + irq.SECTION_PROBES:  # curves and tables instead
            mem_sets += 1
            continue
        by_name.setdefault(s.get("name") or "unknown", []).append(s)
    if mem_sets:
        info["notes"].append("%d membw/latency/membw_mc/interrupt set(s): no histograms here (see the "
                             "Memory, Multi-core bandwidth and Interrupts sections)" % mem_sets)
    if not by_name:
        return info
    plt, err = _matplotlib()
    if plt is None:
        info["error"] = err
        return info
    for name, sets in by_name.items():
        panels = []
        for s in sets:
            path = os.path.join(out_dir, s.get("raw_file") or "")
            try:
                _, raw = stats.read_raw(path)
            except (OSError, ValueError) as exc:
                info["notes"].append("set %s: raw file unreadable (%s)" % (s.get("set"), exc))
                continue
            vals = sorted(stats.per_op(stats.usable(raw), s.get("overhead") or 0, s.get("iters") or 1))
            if len(vals) >= MIN_HIST_N:
                panels.append((s, vals))
            else:
                info["notes"].append("%s set %s: %d value(s), too few for a histogram" % (
                    name, s.get("set"), len(vals)))
        if not panels:
            continue
        if len(panels) > MAX_PANELS:
            info["notes"].append("%s: histograms of the first %d of %d sets only" % (
                name, MAX_PANELS, len(panels)))
            panels = panels[:MAX_PANELS]
        fig, axes = plt.subplots(len(panels), 1, figsize=(8, 2.6 * len(panels)), squeeze=False)
        for ax, (s, vals) in zip(axes[:, 0], panels):
            # Timing data have long sparse tails: show the body (p10..p90 widened by 3x its
            # spread, within p0.5..p99.5) so outliers do not squash it; say how many are cut.
            quantum = 1.0 / (s.get("iters") or 1)
            p10, p90 = stats.percentile(vals, 10), stats.percentile(vals, 90)
            spread = max(p90 - p10, 4 * quantum)
            lo = max(stats.percentile(vals, 0.5), p10 - 3 * spread)
            hi = min(stats.percentile(vals, 99.5), p90 + 3 * spread)
            shown = [v for v in vals if lo <= v <= hi]
            width = max((hi - lo) / 80.0, quantum)
            bins = max(1, min(200, int((hi - lo) / width) + 1))
            # stepfilled: the same filled bars as one polygon, not an SVG element per bin
            ax.hist(shown, bins=bins, range=(lo - width / 2, hi + width / 2), color="#4477aa",
                    histtype="stepfilled")
            med = stats.median(vals)
            ax.axvline(med, color="#cc3311", lw=1, gid=figure.guide())
            params = " ".join("%s=%s" % kv for kv in (s.get("params") or {}).items())
            clipped = len(vals) - len(shown)
            ax.set_title("%s set %s %s  N=%d  median %.4g%s" % (
                name, s.get("set"), params, len(vals), med,
                "  (%d outside %.4g..%.4g not shown)" % (clipped, lo, hi) if clipped else ""),
                fontsize=9)
            ax.set_xlabel("cycles per operation", fontsize=8)
            ax.set_ylabel("count", fontsize=8)
            ax.tick_params(labelsize=8)
        path = figure.save(plt, fig, out_dir, "hist-%s" % re.sub(r"[^A-Za-z0-9._-]", "_", name),
                           stamp)
        if path:
            info["files"].append((name, path))
        else:
            info["notes"].append("%s: nothing to plot, no figure" % name)
    return info


def _size_axis(ax, sizes):
    """log2 x axis with byte labels at the powers of 4 (every octave when few)."""
    ax.set_xscale("log", base=2)
    lo, hi = min(sizes), max(sizes)
    e_lo, e_hi = int(math.floor(math.log2(lo))), int(math.ceil(math.log2(hi)))
    step = 1 if e_hi - e_lo <= 12 else 2
    ticks = [2 ** e for e in range(e_lo, e_hi + 1) if e % step == 0]
    ax.set_xticks(ticks)
    ax.set_xticklabels([memory.size_text(t).replace(" ", "") for t in ticks], fontsize=7,
                       rotation=45)
    ax.set_xlim(lo / 1.2, hi * 1.2)


def _cache_lines(ax, levels, sizes):
    lo, hi = min(sizes) / 1.2, max(sizes) * 1.2
    for lv in levels:
        if lo <= lv["size"] <= hi:
            ax.axvline(lv["size"], color="#888888", ls="--", lw=0.8, gid=figure.guide())
            ax.text(lv["size"], 0.98, " %s %s" % (lv["name"], memory.size_text(lv["size"])),
                    transform=ax.get_xaxis_transform(), rotation=90, va="top", ha="right",
                    fontsize=7, color="#555555")


# Colours of the widths (Paul Tol's "bright" scheme: distinguishable for colour-blind readers).
WIDTH_COLOURS = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb")


def family(kernel):
    """The bandwidth panel a kernel belongs to (FAMILIES), else the kernel's own name."""
    k = str(kernel or "")
    return next((fam for fam, words in FAMILIES if any(w in k for w in words)), k or "other")


def _variant(kernel):
    """(line style, marker) of a kernel within its family: plain, non-temporal, rep, library."""
    k = str(kernel or "")
    return next(((ls, mk) for word, ls, mk in VARIANT_STYLES if word in k), ("-", "o"))


def _width_key(w):
    return (0, int(w), "") if str(w).isdigit() else (1, 0, str(w))


def _series(ax, c, keys, knees, **style):
    """One curve with its CI bars and its knees (open triangles). Returns its sizes."""
    key, lo_key, hi_key = keys
    pts = [p for p in c["points"] if p.get(key) is not None]
    xs, ys = [p["size"] for p in pts], [p[key] for p in pts]
    err = [[max(0.0, y - p[lo_key]) if p.get(lo_key) is not None else 0.0 for y, p in zip(ys, pts)],
           [max(0.0, p[hi_key] - y) if p.get(hi_key) is not None else 0.0 for y, p in zip(ys, pts)]]
    line = ax.errorbar(xs, ys, yerr=err, ms=3, lw=1, capsize=2, elinewidth=0.6,
                       label=c["label"], **style)[0]
    at = {p["size"]: p[key] for p in pts}
    kx = [k["size"] for k in knees if k["size"] in at]
    if kx:
        ax.plot(kx, [at[x] for x in kx], ls="none", marker="v", ms=8, mfc="none",
                mec=line.get_color(), mew=1.2)
    return xs


def _axes_done(ax, mem, sizes, ylabel, log_y=False):
    _size_axis(ax, sizes)
    _cache_lines(ax, mem["cpuid"], sizes)
    ax.set_xlabel("buffer size (log2 scale)", fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)
    if log_y:  # latency: from a few ns (L1) to a hundred or more (DRAM)
        from matplotlib.ticker import ScalarFormatter
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(ScalarFormatter())
    ax.tick_params(axis="y", labelsize=8)
    ax.grid(True, which="major", alpha=0.3)


def _knees(mem, probe):
    return {s["label"]: s["knees"] for s in mem["hierarchy"]["sources"] if s["probe"] == probe}


def _bandwidth(plt, mem, title, out_dir, stamp):
    """bandwidth.png/.svg: a panel per kernel family (read, write, copy, then any other), the
    width as colour, the variant (plain, _nt, rep, library) as line style; legend outside."""
    from matplotlib.lines import Line2D
    cvs = [c for c in mem["curves"] if c["probe"] == memory.MEMBW
           and any(p.get("gbps") is not None for p in c["points"])]
    if not cvs:
        return None
    fams = [f for f, _ in FAMILIES] + sorted({family(c["kernel"]) for c in cvs} -
                                             {f for f, _ in FAMILIES})
    fams = [f for f in fams if any(family(c["kernel"]) == f for c in cvs)]
    widths = sorted({str(c["params"].get("width")) for c in cvs}, key=_width_key)
    colour = {w: WIDTH_COLOURS[k % len(WIDTH_COLOURS)] for k, w in enumerate(widths)}
    knees = _knees(mem, memory.MEMBW)
    fig, axes = plt.subplots(1, len(fams), figsize=(4.2 * len(fams), 4.6), sharey=True,
                             squeeze=False)
    styles = {}
    for ax, fam in zip(axes[0], fams):
        sizes = []
        for c in (c for c in cvs if family(c["kernel"]) == fam):
            ls, mk = _variant(c["kernel"])
            styles.setdefault((ls, mk), []).append(c["kernel"])
            sizes += _series(ax, c, ("gbps", "gbps_lo", "gbps_hi"), knees.get(c["label"], []),
                             color=colour[str(c["params"].get("width"))], ls=ls, marker=mk)
        _axes_done(ax, mem, sizes, "GB/s (10^9 B/s)" if ax is axes[0][0] else "")
        ax.set_title(fam, fontsize=9)
    handles = [Line2D([], [], color=colour[w], lw=2, label="width %s" % w) for w in widths]
    handles += [Line2D([], [], color="k", ls=ls, marker=mk, ms=4, lw=1,
                       label=", ".join(sorted(set(ks)))) for (ls, mk), ks in styles.items()]
    handles.append(Line2D([], [], ls="none", marker="v", mfc="none", mec="k",
                          label="detected knee"))
    fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 0.95), fontsize=7,
               frameon=False)
    fig.suptitle(title, fontsize=9)
    return figure.save(plt, fig, out_dir, "bandwidth", stamp)


def _latency(plt, mem, keys, ylabel, title, out_dir, stamp):
    """latency.png/.svg: a curve per pattern and stride, legend outside the axes."""
    cvs = [c for c in mem["curves"] if c["probe"] == memory.LATENCY
           and any(p.get(keys[0]) is not None for p in c["points"])]
    if not cvs:
        return None
    knees = _knees(mem, memory.LATENCY)
    fig, ax = plt.subplots(figsize=(8, 4.6))
    sizes = []
    for k, c in enumerate(cvs):
        sizes += _series(ax, c, keys, knees.get(c["label"], []),
                         color=WIDTH_COLOURS[k % len(WIDTH_COLOURS)],
                         ls=("-", "--", ":", "-.")[k // len(WIDTH_COLOURS) % 4], marker="o")
    ax.plot([], [], ls="none", marker="v", mfc="none", mec="k", label="detected knee")
    _axes_done(ax, mem, sizes, ylabel, log_y=True)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return figure.save(plt, fig, out_dir, "latency", stamp)


def draw_memory(mem, out_dir, stamp=None):
    """Write bandwidth and latency figures (PNG + SVG, when there are such curves). Returns
    {"files": [(kind, path of the PNG)], "error": str or None}."""
    info = {"files": [], "error": None}
    if not mem.get("measured"):
        return info
    plt, err = _matplotlib()
    if plt is None:
        info["error"] = err
        return info
    lat_ns = any(p.get("ns") is not None for c in mem["curves"] for p in c["points"]
                 if c["probe"] == memory.LATENCY)
    clk, src = mem.get("clock") or {}, mem.get("cache_source", "CPUID")
    keys, ylabel = (("ns", "ns_lo", "ns_hi"), "ns per load") if lat_ns else (
        ("cycles", "cycles_lo", "cycles_hi"), "%s per load (no %s frequency)" % (
            clk.get("short", "cycles"), clk.get("hz_source", "TSC")))
    path = _bandwidth(plt, mem, "bandwidth: median per size, bars = 95%% CI; dashed verticals: "
                      "%s caches" % src, out_dir, stamp)
    if path:
        info["files"].append(("bandwidth", path))
    path = _latency(plt, mem, keys, ylabel, "load latency: median per size, bars = 95%% CI; "
                    "dashed verticals: %s caches" % src, out_dir, stamp)
    if path:
        info["files"].append(("latency", path))
    return info
