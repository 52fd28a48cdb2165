"""The report's Checks section: every `check` record of the run in one table (identical cleanup
checks collapsed with a count), from analysis/checks.py's tally.
"""

from ..analysis.checks import analyse

NAME = "checks"
__all__ = ("NAME", "analyse", "section")

COMMON = ("name", "probe", "status", "expected", "measured", "line", "seq", "boot")  # own columns
DETAIL_MAX = 100  # characters of the other fields shown; the probe's own section has them all


def _detail(c):
    keys = [k for k in sorted(c) if k not in COMMON]
    text = ", ".join("%s=%s" % (k, c[k]) for k in keys)
    return text if len(text) <= DETAIL_MAX else text[:DETAIL_MAX - 1] + "…"


def section(doc, t, out_dir=None, plots=None):
    """The Checks section from analyse()'s tally and rows (nothing when the run had no check)."""
    if not t["n"]:
        return
    doc.h("Checks")
    doc.p("%d check(s): %s" % (t["n"], ", ".join("%d %s" % (n, st) for st, n in sorted(t["by_status"].items()))))
    rows = []
    for c, count in t["rows"]:
        rows.append([c.get("name"), c.get("probe"), str(c.get("status")).upper(), c.get("expected"),
                     c.get("measured"), count, _detail(c)])
    doc.table(["check", "probe", "status", "expected", "measured", "times", "details"], rows)
