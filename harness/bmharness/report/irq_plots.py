"""Plots of the Interrupts section (matplotlib Agg, optional): latency histograms per set,
latency CDFs, a panel per source on a shared log axis (its modes and waits told apart by line
style and marker as well as colour, so they survive a black-and-white print), the footprint (measured lines vs known K with CI bars
and the y = x line) and the noise timeline. Each goes through figure.save (stamp, watermark,
PNG + SVG, nothing written without data).
"""

import math

from . import figure, plots
from .. import stats

# CDF styles: every source/wait gets its own (line style, marker) pair before colours repeat.
LINE_STYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "x", "+", "*")
MARKS_PER_CURVE = 8


def _add(info, path, kind, caption):
    if path:
        info["files"].append((kind, path, caption))


def _label(r):
    return "%s %s %s" % (r["source"], r["mode"], r["wait"])


def cdf_style(k):
    """(line style, marker) of the k-th CDF: distinct pairs for the first 32 curves."""
    return LINE_STYLES[k % len(LINE_STYLES)], MARKERS[(k // len(LINE_STYLES) + k) % len(MARKERS)]


def _hist(plt, lat, out_dir, stamp):
    fig, axes = plt.subplots(len(lat), 1, figsize=(8, 2.2 * len(lat) + 0.4), squeeze=False)
    for ax, r in zip(axes[:, 0], lat):
        ns = sorted(v / r["hz"] * 1e9 for v in r["values"]) if r["hz"] else sorted(r["values"])
        hi = stats.percentile(ns, 99.5)
        # stepfilled: the same filled bars as one polygon, not an SVG element per bin
        ax.hist([v for v in ns if v <= hi], bins=80, color="#4477aa", histtype="stepfilled")
        ax.set_title("%s  N=%d  (above p99.5 not shown)" % (_label(r), len(ns)), fontsize=8)
        ax.set_xlabel("latency ns" if r["hz"] else "latency cycles", fontsize=8)
        ax.set_ylabel("count", fontsize=8)
        ax.tick_params(labelsize=7)
    return figure.save(plt, fig, out_dir, "irq-latency-hist", stamp, dpi=80)


def _cdf(plt, lat, out_dir, stamp):
    """One panel per interrupt source (shared log x axis), a curve per mode and wait in it, each
    with its own line style and marker (and colour)."""
    sources = []
    for r in lat:
        if r["source"] not in sources:
            sources.append(r["source"])
    cols = 1 if len(sources) == 1 else 2
    rows = (len(sources) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 3.2 * rows + 0.4), sharex=True,
                             sharey=True, squeeze=False)
    for ax, src in zip(axes.flat, sources):
        for k, r in enumerate(r for r in lat if r["source"] == src):
            ns = sorted(max(v, 1) / r["hz"] * 1e9 if r["hz"] else max(v, 1) for v in r["values"])
            ls, mk = cdf_style(k)
            ax.step(ns, [(i + 1) / len(ns) for i in range(len(ns))], where="post",
                    label="%s %s" % (r["mode"], r["wait"]), lw=1.2, ls=ls, marker=mk, ms=4,
                    mfc="none", color=plots.WIDTH_COLOURS[k % len(plots.WIDTH_COLOURS)],
                    markevery=max(1, len(ns) // MARKS_PER_CURVE))
        ax.set_xscale("log")
        ax.set_title(src, fontsize=9)
        ax.legend(fontsize=7, loc="lower right", title="mode, wait", title_fontsize=7)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
    for ax in axes.flat[len(sources):]:
        ax.set_visible(False)
    unit = "ns" if all(r["hz"] for r in lat) else "ns, or cycles where no clock rate"
    for ax in axes[-1]:
        ax.set_xlabel("latency %s (log)" % unit, fontsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel("fraction <= x", fontsize=8)
    fig.suptitle("interrupt latency CDFs, a panel per source", fontsize=9)
    return figure.save(plt, fig, out_dir, "irq-latency-cdf", stamp)


def _points(rows):
    pts = [r for r in rows if r["lines"] is not None and r["k"] is not None]
    return ([r["k"] for r in pts], [r["lines"] for r in pts],
            [r["ci"] if r.get("ci") is not None else 0.0 for r in pts])


def _footprint(plt, fp_levels, out_dir, stamp):
    fig, ax = plt.subplots(figsize=(7, 4.6))
    top = 0
    for k, lv in enumerate(fp_levels):
        colour = plots.WIDTH_COLOURS[k % len(plots.WIDTH_COLOURS)]
        name = "L%s %s" % (lv["level"], lv["type"])
        xs, ys, ci = _points(lv["curve"])
        if xs:
            ax.errorbar(xs, ys, yerr=ci, color=colour, marker="o", ms=4, lw=1, capsize=2,
                        label="%s calibration (direct call)" % name)
        hx, hy, hci = _points(lv["heldout"])
        if hx:
            ax.errorbar(hx, hy, yerr=hci, color=colour, ls="none", marker="x", ms=7, capsize=2,
                        label="%s held-out K" % name)
        top = max([top] + xs + hx + [y + c for y, c in zip(ys + hy, ci + hci)])
    if top:
        ax.plot([0, top], [0, top], color="#888888", ls="--", lw=1, gid=figure.guide(),
                label="y = x (measured = known)")
    ax.set_xlabel("known K (lines the directly called handler touches)")
    ax.set_ylabel("measured lines (reverse re-touch), bars = 95% CI")
    ax.set_title("cache footprint: calibration curves", fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax.grid(alpha=0.3)
    return figure.save(plt, fig, out_dir, "irq-footprint", stamp)


def _noise(plt, nz, out_dir, stamp):
    hz = nz["hz"] or 1
    fig, ax = plt.subplots(figsize=(8, 3.2))
    # every gap a vertical line, all in one path (NaN breaks it between gaps): vlines would
    # write one SVG element each, ~150 bytes a gap over thousands of gaps
    xs, ys = [], []
    for s, v in zip(nz["starts"], nz["lens"]):
        xs += [s / hz, s / hz, math.nan]
        ys += [0.0, v / hz * 1e6, math.nan]
    ax.plot(xs, ys, lw=0.8, color="C0", solid_capstyle="butt")  # as vlines draws them
    ax.set_xlabel("time in window, s")
    ax.set_ylabel("gap us")
    ax.set_title("platform noise: %d gaps" % len(nz["lens"]), fontsize=9)
    return figure.save(plt, fig, out_dir, "noise-timeline", stamp)


def draw(irq, out_dir, stamp=None):
    """Returns {"files": [(name, path of the PNG, caption)], "error": str or None}."""
    info = {"files": [], "error": None}
    lat = [r for r in irq["latency"] if r["values"]]
    fp = irq["footprint"] if isinstance(irq["footprint"], dict) else {}
    fp_levels = fp.get("levels")
    nz = irq["noise"]
    if not lat and not fp_levels and not (nz and nz["lens"]):
        return info
    plt, err = plots._matplotlib()
    if plt is None:
        info["error"] = err
        return info
    if lat:
        _add(info, _hist(plt, lat, out_dir, stamp), "hist", "interrupt latency histograms")
        _add(info, _cdf(plt, lat, out_dir, stamp), "cdf", "interrupt latency CDFs")
    if fp_levels:
        _add(info, _footprint(plt, fp_levels, out_dir, stamp), "footprint",
             "footprint: calibration curves with 95% CI, y = x")
    if nz and nz["lens"]:
        _add(info, _noise(plt, nz, out_dir, stamp), "noise", "noise timeline")
    return info
