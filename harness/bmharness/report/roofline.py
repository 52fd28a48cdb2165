"""The report's Roofline section and figure, from analysis/roofline.py's result: per width the
GFLOP/s with its CI, FLOP per core cycle and the exactness check; per memory level the read
plateau's GB/s and its ridge; the roofline plot. Nothing here computes a ceiling.

The plot (roofline.png/.svg): log-log, x = arithmetic intensity (FLOP/byte), y = GFLOP/s; a
diagonal y = GB/s x per memory level up to its ridge with the peak, a horizontal line per width
from where it meets the fastest level's diagonal; each line has its own line style and a label at
its end, so the figure reads without colour; a flagged width (failed check) is drawn grey and
dotted and says so. Stamp and watermark as every figure (figure.save).
"""

import math
import os

from . import figure, memory, plots
from .doc import fnum
from ..analysis import archinfo, roofline
from ..analysis.memory import size_text

NAME = "roofline"
__all__ = ("NAME", "analyse", "draw", "section")
FIGURE = "roofline"
# Line styles of the memory levels' diagonals, fastest first, and of the widths' horizontals
# (the peak's solid and thickest): distinguishable in black and white.
LEVEL_STYLES = ("-", "--", "-.", ":", (0, (5, 2, 1, 2, 1, 2)))
WIDTH_STYLES = ("-", (0, (6, 2)), (0, (3, 1, 1, 1)), (0, (1, 1)), (0, (8, 2, 2, 2)),
                (0, (2, 3)))
LEVEL_COLOUR, FLAGGED_COLOUR = "#222222", "#999999"
X_MIN, X_MAX = 0.01, 100.0   # ERT's default intensity range, widened to show every ridge


def analyse(summary, out_dir=None):
    """roofline.analyse's result (the memory analysis computed there: only with flops sets)."""
    return roofline.analyse(summary, out_dir)


def _x_range(res):
    ridges = [r["flop_per_byte"] for r in res["ridges"]]
    lo = min([X_MIN] + [r / 8 for r in ridges])
    hi = max([X_MAX] + [r * 8 for r in ridges])
    return lo, hi


def _diagonals(ax, res, lo, hi):
    """One line per level, y = GB/s x, up to its ridge with the peak; the ridge marked."""
    peak = res["peak"]
    for k, b in enumerate(res["bandwidth"]):
        end = peak["gflops"] / b["gbps"] if peak else hi
        xs = [lo, end]
        ax.plot(xs, [b["gbps"] * x for x in xs], color=LEVEL_COLOUR, lw=1.4,
                ls=LEVEL_STYLES[k % len(LEVEL_STYLES)],
                label="%s %s GB/s (read)" % (b["name"], fnum(b["gbps"])))
        # on its line, halfway (log) to the ridge, along it: the angle of slope GB/s in data
        # space, turned into the log axes' at draw time (transform_rotates_text)
        mid = math.sqrt(lo * end)
        ax.text(mid, b["gbps"] * mid * 1.08, "%s %s GB/s" % (b["name"], fnum(b["gbps"])),
                fontsize=7, ha="center", va="bottom", color=LEVEL_COLOUR,
                rotation=math.degrees(math.atan(b["gbps"])), transform_rotates_text=True,
                rotation_mode="anchor")
        if peak:
            ax.plot([end], [peak["gflops"]], ls="none", marker="o", ms=5, mfc="white",
                    mec=LEVEL_COLOUR, zorder=5)
            ax.annotate("%s ridge %s" % (b["name"], fnum(end)), (end, peak["gflops"]),
                        xytext=(0, 5), textcoords="offset points", fontsize=6, rotation=90,
                        ha="center", va="bottom", color=LEVEL_COLOUR)


def _horizontals(ax, res, lo, hi, colours):
    """One line per width from where it meets the fastest level's diagonal (or the left edge)."""
    top = res["bandwidth"][0]["gbps"] if res["bandwidth"] else None
    rows = sorted((c for c in res["compute"] if c["gflops"]), key=lambda c: -c["gflops"])
    k = 0   # the trusted widths below the peak, one style and colour each
    for c in rows:
        start = max(lo, c["gflops"] / top) if top else lo
        flagged = bool(c["flag"])
        is_peak = c is res["peak"]
        # the peak solid in the first colour; a flagged width dotted grey
        if is_peak or flagged:
            style, colour = ("-", colours[0]) if is_peak else (":", FLAGGED_COLOUR)
        else:
            style = WIDTH_STYLES[1 + k % (len(WIDTH_STYLES) - 1)]
            colour = colours[1 + k % (len(colours) - 1)]
            k += 1
        text = "%s %s %s GFLOP/s%s" % (c["kernel"], c["label"], fnum(c["gflops"]),
                                       " (check FAILED)" if flagged else
                                       " (peak)" if is_peak else "")
        ax.plot([start, hi], [c["gflops"]] * 2, lw=2.2 if is_peak else 1.3, ls=style,
                color=colour, label=text)
        ax.text(hi / 1.1, c["gflops"] * 1.06, text, fontsize=7, ha="right", va="bottom",
                color=FLAGGED_COLOUR if flagged else "#000000")


def _figure(plt, res, out_dir, stamp):
    lo, hi = _x_range(res)
    fig, ax = plt.subplots(figsize=(8, 5.2))
    ax.set_xscale("log")
    ax.set_yscale("log")
    _diagonals(ax, res, lo, hi)
    _horizontals(ax, res, lo, hi, plots.WIDTH_COLOURS)
    ys = [c["gflops"] for c in res["compute"] if c["gflops"]]
    ys += [b["gbps"] * lo for b in res["bandwidth"]]
    ax.set_xlim(lo, hi)
    # room above the peak for the ridges' labels where there are some
    ax.set_ylim(min(ys) / 2, max(ys) * (12 if res["ridges"] else 2.5))
    ax.set_xlabel("arithmetic intensity (FLOP/byte, log scale)", fontsize=8)
    ax.set_ylabel("GFLOP/s (10^9 FP64 operations/s, log scale)", fontsize=8)
    ax.tick_params(labelsize=8)
    ax.grid(True, which="major", alpha=0.3)
    ax.set_title("empirical roofline, one core, FP64: " + (
        "read plateaus per level (diagonals), flops per width (horizontals)" if res["bandwidth"]
        else "flops per width; no bandwidth plateaus in this run"), fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return figure.save(plt, fig, out_dir, FIGURE, stamp)


def draw(res, out_dir, stamp=None):
    """roofline.png/.svg when there are compute ceilings: {"files": [(kind, path)], "error"}."""
    info = {"files": [], "error": None}
    if not res.get("measured") or not any(c["gflops"] for c in res["compute"]):
        return info
    plt, err = plots._matplotlib()
    if plt is None:
        info["error"] = err
        return info
    path = _figure(plt, res, out_dir, stamp)
    if path:
        info["files"].append((FIGURE, path))
    return info


def _ci(lo, hi):
    return "%s-%s" % (fnum(lo), fnum(hi)) if lo is not None and hi is not None else "-"


def _compute_table(doc, res):
    rows = []
    for c in res["compute"]:
        note = c["flag"] or ("peak" if c is res["peak"] else "")
        if not c["complete"]:
            note = ", ".join(x for x in (note, "INCOMPLETE") if x)
        rows.append([c["kernel"], c["label"], c["insn"] or "-", c["flops_per_op"],
                     c["cycles_per_op"], c["gflops"], _ci(c["ci_lo_gflops"], c["ci_hi_gflops"]),
                     c["flop_per_cycle"], c["check"], note])
    doc.table(["kernel", "width", "insn", "FLOP/op", "cycles/op", "GFLOP/s", "CI95",
               "FLOP/cycle", "check", "note"], rows)


def _bandwidth_table(doc, res):
    if not res["bandwidth"]:
        doc.p(res["no_bandwidth"])
        return
    ridge = {r["name"]: r["flop_per_byte"] for r in res["ridges"]}
    doc.table(["level", "GB/s (read)", "CI95", "curve", "size", "ridge FLOP/byte"],
              [[b["name"], b["gbps"], _ci(b["ci_lo_gbps"], b["ci_hi_gbps"]), b["curve"] or "-",
                size_text(b["size_bytes"]) if b.get("size_bytes") else "-",
                ridge.get(b["name"])] for b in res["bandwidth"]])


def section(doc, res, out_dir, plot_info=None):
    """The Roofline section (plot_info: draw()'s result, or None when nothing was drawn)."""
    doc.h("Roofline")
    if not res.get("measured"):
        doc.p(res["why"])
        return
    em = res.get("emulated")
    if em:
        doc.p("EMULATED CPU (%s, %s): these ceilings are the emulator's, not the CPU's" % (
            em["emulator"], em["evidence"]))
    peak = res["peak"]
    kernels = sorted({str(c["kernel"]) for c in res["compute"]})
    doc.p("GFLOP/s = FLOP per operation x %s / median cycles per operation / 1e9, one core, FP64 "
          "(%s); %s; FLOP/cycle over the core clock during the set; a width whose exactness "
          "check failed is shown, flagged, and never the peak. Peak: %s" % (
              "the counter rate (tsc_hz: CNTFRQ)" if res.get("arch") == archinfo.A64
              else "tsc_hz",
              "; ".join("%s: %s" % (k, roofline.KERNELS.get(k, "?")) for k in kernels),
              # the same words as the Memory section's, for the same kind of interval
              memory._ci_text([{"points": res["compute"]}]),
              "%s %s, %s GFLOP/s" % (peak["kernel"], peak["label"], fnum(peak["gflops"]))
              if peak else "none (no width passed its check)"))
    _compute_table(doc, res)
    doc.p("memory ceilings: per level the read plateau the first screen shows (best width); "
          "ridge = peak GFLOP/s / GB/s: a kernel of lower intensity streaming from that level "
          "is bound by its bandwidth")
    _bandwidth_table(doc, res)
    doc.list("skipped: %s %s: %s" % (s.get("kernel", "?"), s.get("width", "?"), s.get("reason"))
             for s in res["skips"])
    if plot_info is None:
        doc.p("roofline plot not drawn")
        return
    if plot_info.get("error"):
        doc.p("roofline plot: none: %s" % plot_info["error"])
    for _, path in plot_info.get("files", []):
        doc.img(os.path.relpath(path, out_dir), "empirical roofline (log-log)")


def write_json(out_dir, res):
    """DIR/roofline.json in ERT's layout; without flops sets none (a stale one is removed, so the
    directory does not keep a roofline this run did not measure). Returns the path or None."""
    path = os.path.join(out_dir, roofline.FILE)
    doc = roofline.ert(res)
    if doc is None:
        if os.path.exists(path):
            os.remove(path)
        return None
    roofline.write_json(path, doc)
    return path

