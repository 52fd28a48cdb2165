"""The Histograms part of the report's Probes section: one PNG per probe (plots.draw) of the sets
the Probes table shows, or why there are none.
"""

import os

from . import plots

NAME = "histograms"


def analyse(summary, out_dir=None):
    """The summary itself: the histograms are drawn from its sets and their raw files."""
    return summary


def draw(summary, out_dir, stamp=None):
    """hist-<probe>.png/.svg files: {"files": [(name, path)], "notes", "error"}."""
    return plots.draw(summary, out_dir, stamp)


def section(doc, summary, out_dir, plots=None):
    """plots: draw()'s result, or None when nothing was drawn."""
    doc.h("Histograms", 3)
    if plots is None:
        doc.p("not drawn")
    elif plots.get("error"):
        doc.p("none: %s" % plots["error"])
    for name, path in (plots or {}).get("files", []):
        doc.img(os.path.relpath(path, out_dir), "histogram of %s" % name)
    doc.list((plots or {}).get("notes", []))
