"""Histogram PNGs per probe name (one subplot per parameter set), drawn with matplotlib's Agg
backend from the raw/*.txt sample files, and the memory curves (bandwidth.png, latency.png) from
memory.analyse's result. Optional: without matplotlib the report says so. Inside `svg_copies()`
(report --html) every figure is also written as an SVG beside its PNG (svg_path), which the HTML
report inlines."""

import contextlib
import math
import os
import re

from ..analysis import irq, memory
from ..stream import parse, stats

MAX_PANELS = 32  # subplots per histogram figure (a taller figure exceeds what Agg can draw)
_SVG = {"on": False}  # set only inside svg_copies()


@contextlib.contextmanager
def svg_copies():
    """While inside, save() also writes each figure as SVG (for the self-contained HTML report,
    which cannot reference the PNG files)."""
    before = _SVG["on"]
    _SVG["on"] = True
    try:
        yield
    finally:
        _SVG["on"] = before


def svg_path(path):
    """The SVG copy's path of a figure written to path (a .png)."""
    return os.path.splitext(path)[0] + ".svg"


def save(fig, path, dpi):
    """fig to path (PNG), and to svg_path(path) inside svg_copies()."""
    fig.savefig(path, dpi=dpi)
    if _SVG["on"]:
        fig.savefig(svg_path(path), format="svg")


def _matplotlib():
    try:
        import matplotlib
        matplotlib.use("Agg")  # no display on build machines
        import matplotlib.pyplot as plt
        return plt, None
    except Exception as exc:  # ImportError, or a broken install
        return None, "matplotlib not importable (%s); install python3-matplotlib" % exc


def draw(summary, out_dir):
    """Write hist-<probe>.png files. Returns {"files": [(name, path)], "notes": [...],
    "error": str or None}."""
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
                _, raw = parse.read_raw(path)
            except (OSError, ValueError) as exc:
                info["notes"].append("set %s: raw file unreadable (%s)" % (s.get("set"), exc))
                continue
            vals = sorted(stats.per_op(raw, s.get("overhead") or 0, s.get("iters") or 1))
            if vals:
                panels.append((s, vals))
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
            ax.hist(shown, bins=bins, range=(lo - width / 2, hi + width / 2), color="#4477aa")
            med = stats.percentile(vals, 50)
            ax.axvline(med, color="#cc3311", lw=1)
            params = " ".join("%s=%s" % kv for kv in (s.get("params") or {}).items())
            clipped = len(vals) - len(shown)
            ax.set_title("%s set %s %s  N=%d  median %.4g%s" % (
                name, s.get("set"), params, len(vals), med,
                "  (%d outside %.4g..%.4g not shown)" % (clipped, lo, hi) if clipped else ""),
                fontsize=9)
            ax.set_xlabel("cycles per operation", fontsize=8)
            ax.set_ylabel("count", fontsize=8)
            ax.tick_params(labelsize=8)
        fig.tight_layout()
        path = os.path.join(out_dir, "hist-%s.png" % re.sub(r"[^A-Za-z0-9._-]", "_", name))
        save(fig, path, 90)
        plt.close(fig)
        info["files"].append((name, path))
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
            ax.axvline(lv["size"], color="#888888", ls="--", lw=0.8)
            ax.text(lv["size"], 0.98, " %s %s" % (lv["name"], memory.size_text(lv["size"])),
                    transform=ax.get_xaxis_transform(), rotation=90, va="top", ha="right",
                    fontsize=7, color="#555555")


def _curve_plot(plt, mem, probe, key, lo_key, hi_key, ylabel, title, path):
    cvs = [c for c in mem["curves"] if c["probe"] == probe
           and any(p.get(key) is not None for p in c["points"])]
    if not cvs:
        return False
    knee_by_label = {s["label"]: s["knees"] for s in mem["hierarchy"]["sources"]
                     if s["probe"] == probe}
    fig, ax = plt.subplots(figsize=(9, 5))
    if len(cvs) > 10:  # the default cycle has 10 colours
        ax.set_prop_cycle(color=[plt.get_cmap("tab20")(k % 20) for k in range(len(cvs))])
    sizes = []
    for c in cvs:
        pts = [p for p in c["points"] if p.get(key) is not None]
        xs, ys = [p["size"] for p in pts], [p[key] for p in pts]
        sizes += xs
        err = [[max(0.0, y - p[lo_key]) if p.get(lo_key) is not None else 0.0 for y, p in
                zip(ys, pts)], [max(0.0, p[hi_key] - y) if p.get(hi_key) is not None else 0.0
                                for y, p in zip(ys, pts)]]
        line = ax.errorbar(xs, ys, yerr=err, marker=".", ms=4, lw=1, capsize=2,
                           label=c["label"])[0]
        at = {p["size"]: p[key] for p in pts}
        kx = [k["size"] for k in knee_by_label.get(c["label"], []) if k["size"] in at]
        if kx:
            ax.plot(kx, [at[x] for x in kx], ls="none", marker="v", ms=9, mfc="none",
                    mec=line.get_color(), mew=1.5)
    _size_axis(ax, sizes)
    _cache_lines(ax, mem["cpuid"], sizes)
    ax.plot([], [], ls="none", marker="v", mfc="none", mec="k", label="detected knee")
    ax.set_xlabel("buffer size (log2 scale)", fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.set_title(title, fontsize=9)
    if probe == memory.LATENCY:  # from a few ns (L1) to a hundred or more (DRAM)
        from matplotlib.ticker import ScalarFormatter
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(ScalarFormatter())
    ax.tick_params(axis="y", labelsize=8)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=6, ncol=2 if len(cvs) > 8 else 1, loc="best")
    fig.tight_layout()
    save(fig, path, 90)
    plt.close(fig)
    return True


def draw_memory(mem, out_dir):
    """Write bandwidth.png and latency.png (when there are such curves). Returns {"files":
    [(kind, path)], "error": str or None}."""
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
    lat_key = ("ns", "ns_lo", "ns_hi", "ns per load") if lat_ns else \
        ("cycles", "cycles_lo", "cycles_hi", "%s per load (no %s frequency)" % (
            clk.get("short", "cycles"), clk.get("hz_source", "TSC")))
    for kind, args in (
            ("bandwidth", (memory.MEMBW, "gbps", "gbps_lo", "gbps_hi", "GB/s (10^9 B/s)",
                           "bandwidth: median per size, bars = 95%% CI; dashed: %s caches" % src)),
            ("latency", (memory.LATENCY,) + lat_key +
             ("load latency: median per size, bars = 95%% CI; dashed: %s caches" % src,))):
        path = os.path.join(out_dir, "%s.png" % kind)
        if _curve_plot(plt, mem, *args, path):
            info["files"].append((kind, path))
    return info
