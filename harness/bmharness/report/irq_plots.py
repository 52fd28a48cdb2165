"""Plots of the Interrupts section (matplotlib Agg, optional): latency histograms per set,
latency CDFs of all sets on one log axis, the footprint (measured vs known K) and the noise
timeline."""

import os

from . import plots
from ..stream import stats


def _save(plt, fig, info, out_dir, name, kind, caption, dpi=90):
    fig.tight_layout()
    path = os.path.join(out_dir, name)
    plots.save(fig, path, dpi)
    plt.close(fig)
    info["files"].append((kind, path, caption))


def _label(r):
    return "%s %s %s" % (r["source"], r["mode"], r["wait"])


def draw(irq, out_dir):
    """Returns {"files": [(name, path, caption)], "error": str or None}."""
    info = {"files": [], "error": None}
    lat = [r for r in irq["latency"] if r["values"]]
    if not lat and not (irq["footprint"] or {}).get("levels") and not irq["noise"]:
        return info
    plt, err = plots._matplotlib()
    if plt is None:
        info["error"] = err
        return info
    if lat:
        fig, axes = plt.subplots(len(lat), 1, figsize=(8, 2.2 * len(lat)), squeeze=False)
        for ax, r in zip(axes[:, 0], lat):
            ns = sorted(v / r["hz"] * 1e9 for v in r["values"]) if r["hz"] else sorted(r["values"])
            hi = stats.percentile(ns, 99.5)
            ax.hist([v for v in ns if v <= hi], bins=80, color="#4477aa")
            ax.set_title("%s  N=%d  (above p99.5 not shown)" % (_label(r), len(ns)), fontsize=8)
            ax.set_xlabel("latency ns" if r["hz"] else "latency cycles", fontsize=8)
            ax.tick_params(labelsize=7)
        _save(plt, fig, info, out_dir, "irq-latency-hist.png", "hist", "interrupt latency histograms", dpi=80)
        fig, ax = plt.subplots(figsize=(8, 5))
        for r in lat:
            ns = sorted(max(v, 1) / r["hz"] * 1e9 if r["hz"] else max(v, 1) for v in r["values"])
            ax.step(ns, [(i + 1) / len(ns) for i in range(len(ns))], where="post", label=_label(r), lw=1)
        ax.set_xscale("log")
        ax.set_xlabel("latency ns (log)")
        ax.set_ylabel("fraction <= x")
        ax.legend(fontsize=6)
        ax.grid(alpha=0.3)
        _save(plt, fig, info, out_dir, "irq-latency-cdf.png", "cdf", "interrupt latency CDFs")
    fp_levels = (irq["footprint"] or {}).get("levels") if isinstance(irq["footprint"], dict) else None
    if fp_levels:
        fig, ax = plt.subplots(figsize=(6, 4))
        for lv in fp_levels:
            pts = [(r["k"], r["lines"]) for r in lv["curve"] if r["lines"] is not None]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label="L%s %s curve" % (lv["level"], lv["type"]))
            held = [(r["k"], r["lines"]) for r in lv["heldout"] if r["lines"] is not None]
            if held:
                ax.plot([p[0] for p in held], [p[1] for p in held], "x", label="L%s held-out" % lv["level"])
        ax.set_xlabel("known K (lines the directly called handler touches)")
        ax.set_ylabel("measured lines (reverse re-touch)")
        ax.legend(fontsize=7)
        _save(plt, fig, info, out_dir, "irq-footprint.png", "footprint", "footprint: calibration curves")
    nz = irq["noise"]
    if nz and nz["lens"]:
        hz = nz["hz"] or 1
        fig, ax = plt.subplots(figsize=(8, 3))
        ax.vlines([s / hz for s in nz["starts"]], 0, [v / hz * 1e6 for v in nz["lens"]], lw=0.8)
        ax.set_xlabel("time in window, s")
        ax.set_ylabel("gap us")
        ax.set_title("platform noise: %d gaps" % len(nz["lens"]), fontsize=9)
        _save(plt, fig, info, out_dir, "noise-timeline.png", "noise", "noise timeline")
    return info
