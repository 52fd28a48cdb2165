"""The terminal text of `store list` and `store show`: machines with their runs, and one
machine's identity, runs with their headline figures (analysis/headline.py, computed when the
run was added) and boot-to-boot spread."""

import json

from . import machine, ops

KERNELS = ("read", "write", "copy")


def _table(header, rows):
    cells = [[("-" if c is None else str(c)) for c in r] for r in [header] + rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]


def _run_row(r):
    return ["r%d" % r["run_id"], r["added_utc"], r["build"], "ok" if r["ok"] else "NOT OK",
            r["path"]]


def list_text(conn, db_path):
    ms = ops.machines(conn)
    lines = ["store %s: %d machine(s), %d run(s)" % (db_path, len(ms),
                                                     sum(len(m["runs"]) for m in ms))]
    for m in ms:
        t = ops.typical_spread(conn, m["machine_id"])
        lines.append("")
        lines.append("machine %s  %s  %d run(s)%s" % (
            m["machine_id"], m["label"], len(m["runs"]),
            ", boot-to-boot spread %.2f%% (median over %d sets)" % (t["pct"], t["sets"])
            if t else ""))
        lines += ["  " + x for x in _table(["run", "added", "build", "status", "directory"],
                                           [_run_row(r) for r in m["runs"]])]
    return "\n".join(lines) + "\n"


def _fmt(x, digits=3):
    return None if x is None else ("%.*g" % (digits + 1, x))


def _level_cells(head, names):
    levels = {lv.get("name"): lv for lv in ((head or {}).get("memory") or {}).get("levels") or []}
    out = []
    for name in names:
        lv = levels.get(name) or {}
        bw = "/".join(_fmt((lv.get(k) or {}).get("gbps")) or "-" for k in KERNELS)
        out += [bw, _fmt((lv.get("latency") or {}).get("ns"))]
    return out


def show_text(conn, spec):
    mid, _ = ops.resolve(conn, spec)
    m = next(x for x in ops.machines(conn) if x["machine_id"] == mid)
    ident = m["identity"]
    lines = ["machine %s: %s" % (mid, m["label"])]
    for k in ("arch", "env", "cpu_vendor", "cpu_family", "cpu_model", "cpu_stepping", "cpu_brand",
              "microcode", "hypervisor", "firmware", "os", "system", "board", "serial_hash"):
        if ident.get(k) not in (None, "", []):
            lines.append("  %-12s %s" % (k, ident[k]))
    for d in ident.get("memory") or []:
        lines.append("  %-12s %s" % ("memory", d))
    miss = machine.missing(ident)
    if miss:
        lines.append("  not in its records: %s" % ", ".join(miss))
    heads = {r["run_id"]: ops.run_record(conn, r["run_id"])["headline"] for r in m["runs"]}
    names = []
    for h in heads.values():
        for lv in ((h or {}).get("memory") or {}).get("levels") or []:
            if lv.get("name") not in names:
                names.append(lv.get("name"))
    header = ["run", "added", "build", "status", "clock GHz"]
    for n in names:
        header += ["%s r/w/c GB/s" % n, "%s ns" % n]
    rows = []
    for r in m["runs"]:
        h = heads[r["run_id"]]
        hz = ((h or {}).get("clock") or {}).get("hz")
        rows.append(_run_row(r)[:4] + [_fmt(hz / 1e9 if hz else None, 5)]
                    + _level_cells(h, names))
    lines += [""] + _table(header, rows)
    lines.append("(headline figures: per level the plateau medians of read/write/copy and the "
                 "random-pattern load latency; '-' where the run has none)")
    lines += [""] + spread_lines(conn, mid)
    return "\n".join(lines) + "\n"


def spread_lines(conn, mid, top=5):
    sp = ops.spreads(conn, mid)
    t = ops.typical_spread(conn, mid)
    if not t:
        return ["boot-to-boot spread: needs %d or more runs of this machine" % ops.SPREAD_MIN_RUNS]
    out = ["boot-to-boot spread over %d runs: median %.2f%% over %d sets (range of the per-run "
           "medians, %% of their mean); `compare --store` uses it" % (t["runs"], t["pct"],
                                                                      t["sets"])]
    worst = sorted(((v["range_pct"], k, v) for k, v in sp.items() if v["range_pct"] is not None),
                   reverse=True)[:top]
    for pct, k, v in worst:
        key, occ = json.loads(k)
        name = dict(key).get("name", "?")
        params = ",".join("%s=%s" % (a, b) for a, b in key if a not in ("name", "unit"))
        out.append("  widest: %s %s%s: %.2f%% (%s..%s %s)" % (
            name, params, " #%d" % occ if occ else "", pct, _fmt(v["min"]), _fmt(v["max"]),
            v["unit"]))
    return out
