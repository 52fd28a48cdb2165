"""What `store list` and `store show` print: machines with their runs, and one machine's
identity, runs with their headline figures (analysis/headline.py, computed when the run was
added) and boot-to-boot spread. list_data and show_data gather it as plain dicts (`--json`
prints them); list_text and show_text render only those dicts, so the text and the JSON cannot
say different things."""

import json

from . import machine, ops

KERNELS = ("read", "write", "copy")
KEY_SHOWN = 12       # run key digits in the tables: enough to name a run to `store remove`
IDENT_FIELDS = ("arch", "env", "cpu_vendor", "cpu_family", "cpu_model", "cpu_stepping",
                "cpu_brand", "microcode", "hypervisor", "firmware", "os", "system", "board",
                "serial_hash")
WIDEST = 5           # the sets with the widest boot-to-boot spread shown


def _table(header, rows):
    cells = [[("-" if c is None else str(c)) for c in r] for r in [header] + rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]


def _run(r):
    """A run's fields as the JSON gives them."""
    return {"run_id": r["run_id"], "run_key": r["run_key"], "added_utc": r["added_utc"],
            "build": r["build"], "ok": bool(r["ok"]), "path": r["path"]}


def _run_cells(r):
    return ["r%d" % r["run_id"], (r["run_key"] or "")[:KEY_SHOWN] or None, r["added_utc"],
            r["build"], "ok" if r["ok"] else "NOT OK"]


# --- store list ----------------------------------------------------------------------------------

def list_data(conn, db_path):
    """{db, machines: [{machine_id, label, spread (ops.typical_spread or None), runs: [{run_id,
    run_key, added_utc, build, ok, path}]}]}."""
    return {"db": db_path, "machines": [
        {"machine_id": m["machine_id"], "label": m["label"],
         "spread": ops.typical_spread(conn, m["machine_id"]),
         "runs": [_run(r) for r in m["runs"]]} for m in ops.machines(conn)]}


def list_text(conn, db_path):
    d = list_data(conn, db_path)
    ms = d["machines"]
    lines = ["store %s: %d machine(s), %d run(s)" % (d["db"], len(ms),
                                                     sum(len(m["runs"]) for m in ms))]
    for m in ms:
        t = m["spread"]
        lines.append("")
        lines.append("machine %s  %s  %d run(s)%s" % (
            m["machine_id"], m["label"], len(m["runs"]),
            ", boot-to-boot spread %.2f%% (median over %d sets)" % (t["pct"], t["sets"])
            if t else ""))
        lines += ["  " + x for x in _table(["run", "key", "added", "build", "status", "directory"],
                                           [_run_cells(r) + [r["path"]] for r in m["runs"]])]
    return "\n".join(lines) + "\n"


# --- store show ----------------------------------------------------------------------------------

def _fmt(x, digits=3):
    return None if x is None else ("%.*g" % (digits + 1, x))


def _levels(head):
    """{level name: {read_gbps, write_gbps, copy_gbps, latency_ns}} of a run's headline."""
    out = {}
    for lv in ((head or {}).get("memory") or {}).get("levels") or []:
        fig = {"%s_gbps" % k: (lv.get(k) or {}).get("gbps") for k in KERNELS}
        fig["latency_ns"] = (lv.get("latency") or {}).get("ns")
        out[lv.get("name")] = fig
    return out


def _spread(conn, mid):
    """The machine's boot-to-boot spread: ops.typical_spread and its WIDEST sets, or None."""
    t = ops.typical_spread(conn, mid)
    if not t:
        return None
    worst = sorted(((v["range_pct"], k, v) for k, v in ops.spreads(conn, mid).items()
                    if v["range_pct"] is not None), reverse=True)[:WIDEST]
    widest = []
    for pct, k, v in worst:
        key, occ = json.loads(k)
        widest.append({"name": dict(key).get("name", "?"),
                       "params": {a: b for a, b in key if a not in ("name", "unit")},
                       "occurrence": occ, "range_pct": pct, "min": v["min"], "max": v["max"],
                       "unit": v["unit"]})
    return dict(t, widest=widest)


def show_data(conn, spec):
    """{machine_id, label, identity, missing, levels (names, in order), runs: [{run_id, run_key,
    added_utc, build, ok, path, clock_hz, levels: {name: figures}}], spread (None with fewer
    than ops.SPREAD_MIN_RUNS runs), spread_min_runs} of the machine spec names (ops.resolve)."""
    mid, _ = ops.resolve(conn, spec)
    m = next(x for x in ops.machines(conn) if x["machine_id"] == mid)
    runs, names = [], []
    for r in m["runs"]:
        head = ops.run_record(conn, r["run_id"])["headline"]
        levels = _levels(head)
        names += [n for n in levels if n not in names]
        runs.append(dict(_run(r), clock_hz=((head or {}).get("clock") or {}).get("hz"),
                         levels=levels))
    return {"machine_id": mid, "label": m["label"], "identity": m["identity"],
            "missing": machine.missing(m["identity"]), "levels": names, "runs": runs,
            "spread": _spread(conn, mid), "spread_min_runs": ops.SPREAD_MIN_RUNS}


def show_text(conn, spec):
    d = show_data(conn, spec)
    ident = d["identity"]
    lines = ["machine %s: %s" % (d["machine_id"], d["label"])]
    for k in IDENT_FIELDS:
        if ident.get(k) not in (None, "", []):
            lines.append("  %-12s %s" % (k, ident[k]))
    for dev in ident.get("memory") or []:
        lines.append("  %-12s %s" % ("memory", dev))
    if d["missing"]:
        lines.append("  not in its records: %s" % ", ".join(d["missing"]))
    header = ["run", "key", "added", "build", "status", "clock GHz"]
    for n in d["levels"]:
        header += ["%s r/w/c GB/s" % n, "%s ns" % n]
    rows = []
    for r in d["runs"]:
        hz = r["clock_hz"]
        cells = _run_cells(r) + [_fmt(hz / 1e9 if hz else None, 5)]
        for n in d["levels"]:
            lv = r["levels"].get(n) or {}
            cells += ["/".join(_fmt(lv.get("%s_gbps" % k)) or "-" for k in KERNELS),
                      _fmt(lv.get("latency_ns"))]
        rows.append(cells)
    lines += [""] + _table(header, rows)
    lines.append("(headline figures: per level the plateau medians of read/write/copy and the "
                 "random-pattern load latency; '-' where the run has none)")
    lines += [""] + spread_lines(d)
    return "\n".join(lines) + "\n"


def spread_lines(d):
    t = d["spread"]
    if not t:
        return ["boot-to-boot spread: needs %d or more runs of this machine"
                % d["spread_min_runs"]]
    out = ["boot-to-boot spread over %d runs: median %.2f%% over %d sets (range of the per-run "
           "medians, %% of their mean); `compare --store` uses it" % (t["runs"], t["pct"],
                                                                      t["sets"])]
    for w in t["widest"]:
        params = ",".join("%s=%s" % kv for kv in w["params"].items())
        out.append("  widest: %s %s%s: %.2f%% (%s..%s %s)" % (
            w["name"], params, " #%d" % w["occurrence"] if w["occurrence"] else "",
            w["range_pct"], _fmt(w["min"]), _fmt(w["max"]), w["unit"]))
    return out
