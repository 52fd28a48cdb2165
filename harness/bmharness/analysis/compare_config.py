"""The configuration differences of `compare`: which firmware options (the `cfg` record: the
effective configuration after defaults, file and load options; summary.json's "cfg") differ
between side A and side B, and between the boots of one side.

A difference in options is often the whole explanation of a difference in numbers (other
samples=, target_ns= or mem_kernels=), so compare states them before the per-set table. An
option a boot did not record (older firmware, a cut log, no cfg record at all) is "(not
recorded)": it differs from a recorded value, since nothing says the boot used that value.
"""

NOT_RECORDED = "(not recorded)"


def boot_labels(side, n):
    """The header's names of a side's boots: A, A2, A3 ... (report/compare.py uses the same)."""
    return [side if i == 0 else "%s%d" % (side, i + 1) for i in range(n)]


def _value_text(v):
    return NOT_RECORDED if v is None else str(v)


def _cfg(run):
    cfg = run["summary"].get("cfg")
    return cfg if isinstance(cfg, dict) else None


def config_diff(runs_a, runs_b):
    """[{"option", "a", "b" (the side's distinct values as text, in boot order),
    "a_by_boot", "b_by_boot" (the value per boot, None: not recorded), "between" (A's values
    differ from B's), "within" (["A"], ["B"], both or none: the sides whose boots differ
    among themselves)}], sorted by option: every option that differs anywhere."""
    cfgs = {"a": [_cfg(r) for r in runs_a], "b": [_cfg(r) for r in runs_b]}
    options = sorted({k for side in cfgs.values() for c in side if c for k in c})
    out = []
    for opt in options:
        row = {"option": opt}
        for side, label in (("a", "A"), ("b", "B")):
            by_boot = [c.get(opt) if c else None for c in cfgs[side]]
            distinct = []
            for v in by_boot:  # in boot order, each value once
                if _value_text(v) not in distinct:
                    distinct.append(_value_text(v))
            row[side], row[side + "_by_boot"] = distinct, by_boot
        row["between"] = set(row["a"]) != set(row["b"])
        row["within"] = [label for side, label in (("a", "A"), ("b", "B"))
                         if len(row[side]) > 1]
        if row["between"] or row["within"]:
            out.append(row)
    return out


def unrecorded(runs_a, runs_b):
    """The boots (header labels) with no cfg record at all."""
    return [lab for side, runs in (("A", runs_a), ("B", runs_b))
            for lab, r in zip(boot_labels(side, len(runs)), runs) if _cfg(r) is None]


def side_text(row, side, n_boots):
    """One side's value(s) of a config_diff row for a table cell: the value when its boots
    agree, else each value with the boots that ran with it ("1 in A, A2; 2 in A3")."""
    key = side.lower()
    if len(row[key]) == 1:
        return row[key][0]
    labels = boot_labels(side, n_boots)
    return "; ".join("%s in %s" % (val, ", ".join(
        lab for lab, v in zip(labels, row[key + "_by_boot"]) if _value_text(v) == val))
        for val in row[key])


def summary_line(diff, missing, n_runs, names=6):
    """The one line the header (and the terminal) gives the configuration."""
    if len(missing) == n_runs:
        return "no run has a cfg record: the options are not known"
    if not diff:
        return "same options on both sides" + (
            " (no cfg record in %s)" % ", ".join(missing) if missing else "")
    between = [r["option"] for r in diff if r["between"]]
    parts = []
    if between:
        shown = ", ".join(between[:names]) + (
            " (+%d more)" % (len(between) - names) if len(between) > names else "")
        parts.append("%d option(s) differ between A and B: %s" % (len(between), shown))
    else:
        parts.append("no option differs between A and B")
    for side in ("A", "B"):
        within = [r["option"] for r in diff if side in r["within"]]
        if within:
            parts.append("the boots of %s differ in %s" % (side, ", ".join(within[:names])
                         + (" (+%d more)" % (len(within) - names) if len(within) > names
                            else "")))
    if missing:
        parts.append("no cfg record in %s" % ", ".join(missing))
    return "; ".join(parts)
