"""Every `check` record of a run in one table, and the verdict they add up to.

A probe that judges an invariant itself (instructions retired by a loop of known length, a cleanup
that left nothing behind, a footprint recovered through the calibration curve, displacement
against direct cost) emits a `check` record with `name`, `probe`, `status` and `expected` /
`measured`; the probe-specific sections explain their own checks in detail, this one lists them
all so a failure cannot hide in a section nobody reads. A check is failed when its status is
`fail`; any other status (`pass`, `saturated`, `skip`) is reported as it is and fails nothing.
The table is report/checks.py's."""

def tally(summary):
    """{"n", "failed": [checks], "by_status": {status: count}}."""
    checks = summary.get("checks") or []
    by_status = {}
    for c in checks:
        st = str(c.get("status"))
        by_status[st] = by_status.get(st, 0) + 1
    return {"n": len(checks), "failed": [c for c in checks if c.get("status") == "fail"],
            "by_status": by_status}


def grouped(checks):
    """Identical (name, probe, status) checks of the same kind collapse into one row with a count,
    so a cleanup check after every interrupt probe does not drown the table."""
    rows, index = [], {}
    for c in checks:
        key = (c.get("name"), c.get("probe"), c.get("status"))
        if c.get("name") == "irq_cleanup" and key in index:
            rows[index[key]][1] += 1
            continue
        index.setdefault(key, len(rows))
        rows.append([c, 1])
    return rows


def analyse(summary, out_dir=None):
    """tally() with the table's rows: {"n", "failed", "by_status", "rows": [[check, count]]}."""
    return dict(tally(summary), rows=grouped(summary.get("checks") or []))
