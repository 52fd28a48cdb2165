"""Histogram PNGs per probe name (one subplot per parameter set), drawn with matplotlib's Agg
backend from the raw/*.txt sample files. Optional: without matplotlib the report says so."""

import os
import re

from . import parse, stats


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
    by_name = {}
    for s in summary.get("sets") or []:
        by_name.setdefault(s.get("name") or "unknown", []).append(s)
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
        fig.savefig(path, dpi=90)
        plt.close(fig)
        info["files"].append((name, path))
    return info
