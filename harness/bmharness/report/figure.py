"""What every figure of the report has in common: the stamp (the machine and the run, and an
EMULATED watermark when the CPU is an emulator, from analysis/headline.py's test), the check that
a figure shows data before it is written (an empty figure is not written at all), and the files:
each figure as PNG and SVG side by side (the SVG keeps its text as text, so it can be searched and
edited for a paper; svg_compact.py then cuts its bytes, not its content).
"""

import itertools
import os

from . import svg_compact
from ..analysis import archinfo, headline

WATERMARK = "EMULATED"
GUIDE = "guide"   # gid prefix of reference lines (y = x ...): drawn, but not data
_guides = itertools.count(1)


def guide():
    """A gid for a reference line: GUIDE plus a number, since the SVG writes a gid as an element
    id, which must be unique in a page that inlines several figures."""
    return "%s-%d" % (GUIDE, next(_guides))
DPI = 90
FOOTER_IN = 0.16  # height of a footer line, inches (6-point text)
# Tests register a callable here; it gets (fig, [paths], data artists) for every figure written.
SAVE_HOOKS = []


def stamp(summary, run=None, out_dir=None):
    """{"machine", "run", "emulated"} for the figures' footer: the CPU and where it ran, the run's
    directory, build and date; emulated the watermark's word when the CPU is emulated, else None."""
    m = headline.machine(summary)
    cores = "%s core%s" % (m["cores_online"], "" if m["cores_online"] == 1 else "s") \
        if m.get("cores_online") else None
    where = m.get("os") or (" ".join(x for x in ("UEFI", m.get("uefi") or "") if x) +
                            (" (%s)" % m["firmware"] if m.get("firmware") else ""))
    machine = ", ".join(str(x) for x in (m.get("cpu") or m.get("vendor") or "CPU ?", cores,
                                         m.get("arch"), m.get("env"), where) if x)
    when = (run or {}).get("started_utc") or m.get("parsed_utc")
    name = os.path.basename(os.path.normpath(out_dir)) if out_dir else None
    run_text = ", ".join(str(x) for x in (
        "run %s" % name if name else None, "build %s" % m["build"] if m.get("build") else None,
        "QEMU" if run else None, when) if x)
    return {"machine": machine, "run": run_text,
            "emulated": WATERMARK if archinfo.emulated_cpu(summary) else None}


def data_artists(fig):
    """How many artists of the figure's axes carry data: lines with points, collections with
    paths or offsets (error bars, vlines, scatter), bar and histogram patches with an area. The
    axes' own frame, grid, reference lines (gid GUIDE) and the stamp's text do not count."""
    n = 0
    for ax in fig.get_axes():
        for ln in ax.get_lines():
            xs = ln.get_xdata()
            n += 1 if len(xs) and not (ln.get_gid() or "").startswith(GUIDE) else 0
        for c in ax.collections:
            n += 1 if len(c.get_paths()) or len(c.get_offsets()) else 0
        for p in ax.patches:
            ext = p.get_window_extent() if hasattr(p, "get_window_extent") else None
            n += 1 if ext is not None and ext.width * ext.height > 0 else 0
    return n


def _stamp(fig, st):
    """Footer line with the machine and the run; the watermark across the figure and a line
    saying what it means. Returns the height the footer takes (figure fraction)."""
    if not st:
        return 0.0
    line = FOOTER_IN / fig.get_figheight()
    fig.text(0.005, 0.003, "%s  |  %s" % (st["machine"], st["run"]), fontsize=6,
             color="#555555", ha="left", va="bottom")
    if not st.get("emulated"):
        return line
    fig.text(0.5, 0.5, st["emulated"], fontsize=64, color="#cc3311", alpha=0.13,
             ha="center", va="center", rotation=25, weight="bold", zorder=0)
    fig.text(0.005, line, "%s CPU: the emulator's numbers, not a CPU's" % st["emulated"],
             fontsize=6, color="#cc3311", ha="left", va="bottom")
    return 2 * line


def save(plt, fig, out_dir, base, st, dpi=DPI):
    """Stamp the figure and write base.png and base.svg, or nothing when it has no data. Returns
    the PNG's path, or None when nothing was written. The figure is closed either way."""
    try:
        n = data_artists(fig)
        if not n:
            return None
        bottom = _stamp(fig, st)
        fig.tight_layout(rect=(0, bottom, 1, 1))  # room for the footer
        paths = [os.path.join(out_dir, base + ext) for ext in (".png", ".svg")]
        # bbox "tight" keeps a legend placed outside the axes inside the file
        fig.savefig(paths[0], dpi=dpi, bbox_inches="tight")
        # SVG text stays text; its font list is the font matplotlib ships and draws with, not
        # rcParams' ten names on every text element
        with plt.rc_context({"svg.fonttype": "none", "font.sans-serif": svg_compact.FONTS}):
            fig.savefig(paths[1], dpi=dpi, bbox_inches="tight")
        with open(paths[1], encoding="utf-8") as fh:
            svg = svg_compact.compact(fh.read())
        with open(paths[1], "w", encoding="utf-8") as fh:
            fh.write(svg)
        for hook in SAVE_HOOKS:
            hook(fig, paths, n)
        return paths[0]
    finally:
        plt.close(fig)
