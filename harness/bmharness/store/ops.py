"""The store's subcommands: add a parsed run, list machines and runs, show a machine's runs and
headline figures, compare machines or runs, export every results row as CSV.

What a run keeps: its summary.json (zlib JSON), its results.json rows (one table row each, the
whole row as JSON beside the columns one filters on), results.json's header and the headline
figures (analysis/headline.py), and the path of its parse directory. Not the raw samples: those
stay in the directory's raw/ files. `compare` reads them there while the directory exists (the
within-boot test needs them); without them a set's summary median still counts as a boot's
median, so machines with two or more runs each compare boot to boot as `compare --a/--b` does.
"""

import csv
import json
import os
import sqlite3
import time
import zlib

from . import machine, pg
from .db import StoreError
from ..analysis import compare, export
from ..stream import set_identity

SPREAD_MIN_RUNS = 2


def _now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def set_keys(summary):
    """Per set (in order, as results rows are) its identity key and occurrence, as JSON text."""
    seen, out = {}, []
    for s in summary.get("sets") or []:
        k = set_identity.key(s)
        out.append(json.dumps([list(map(list, k)), seen.get(k, 0)]))
        seen[k] = seen.get(k, 0) + 1
    return out


def _result_rows(run_id, rows, keys):
    for i, r in enumerate(rows):
        yield (run_id, i, r.get("probe"), r.get("set"), keys[i] if i < len(keys) else None,
               r.get("metric"), r.get("unit"), r.get("median"), r.get("ci95_low"),
               r.get("ci95_high"), r.get("n"), r.get("cache_level"),
               json.dumps(r, allow_nan=False))


# Welford's update in one statement: the right-hand sides see the row's old values. The columns
# are qualified and min/max written as CASE, so that SQLite and PostgreSQL read it alike.
SPREAD_UPSERT = """
INSERT INTO boot_spread (machine_id, set_key, unit, n, mean, m2, min, max)
VALUES (?, ?, ?, 1, ?, 0, ?, ?)
ON CONFLICT (machine_id, set_key, unit) DO UPDATE SET
    n = boot_spread.n + 1,
    mean = boot_spread.mean + (excluded.mean - boot_spread.mean) / (boot_spread.n + 1),
    m2 = boot_spread.m2 + (excluded.mean - boot_spread.mean)
         * ((excluded.mean - boot_spread.mean) - (excluded.mean - boot_spread.mean)
            / (boot_spread.n + 1)),
    min = CASE WHEN excluded.min < boot_spread.min THEN excluded.min ELSE boot_spread.min END,
    max = CASE WHEN excluded.max > boot_spread.max THEN excluded.max ELSE boot_spread.max END"""


def stored_run(conn, summary):
    """The run id under which this run (by its content key) is stored, or None."""
    row = conn.execute("SELECT run_id FROM runs WHERE run_key = ?",
                       (machine.run_key(summary),)).fetchone()
    return row[0] if row else None


def add(conn, summary, results, path=None, headline=None):
    """Store one parsed run, in one transaction. Returns {"run_id", "machine_id", "label",
    "added": False when the run was there already}.

    Safe with several writers at once (fleet workers, each with its own connection): the run's
    content key is UNIQUE and the insert yields to a run another writer stored first (ON
    CONFLICT DO NOTHING), so a run is stored once and its rows and spread update with it."""
    ident = machine.identity(summary)
    mid, key = machine.machine_id(ident), machine.run_key(summary)
    out = {"machine_id": mid, "label": machine.label(ident)}
    old = conn.execute("SELECT run_id, machine_id FROM runs WHERE run_key = ?", (key,)).fetchone()
    if old:
        return dict(out, run_id=old[0], machine_id=old[1], added=False)
    rows = results.get("rows") or []
    keys = set_keys(summary)
    meta = {k: v for k, v in results.items() if k != "rows"}
    src, begin = summary.get("source") or {}, summary.get("begin") or {}
    with conn:
        conn.execute("INSERT INTO machines VALUES (?, ?, ?, ?) ON CONFLICT (machine_id) "
                     "DO NOTHING", (mid, out["label"], json.dumps(ident, sort_keys=True), _now()))
        got = conn.execute(
            "INSERT INTO runs (run_key, machine_id, path, log, nonce, parsed_utc, added_utc, arch,"
            " env, build, ok, summary, results_meta, headline) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (run_key) DO NOTHING RETURNING run_id",
            (key, mid, os.path.abspath(path) if path else None, src.get("log"),
             (src.get("stick") or {}).get("nonce"), src.get("parsed_utc"), _now(),
             begin.get("arch"), begin.get("env"), begin.get("build"), int(bool(summary.get("ok"))),
             # zlib level 1: compressing the summary is the largest part of an add
             zlib.compress(json.dumps(summary, allow_nan=False).encode(), 1), json.dumps(meta),
             json.dumps(headline, default=str) if headline is not None else None)).fetchone()
        if got is not None:
            run_id = got[0]
            conn.executemany("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             _result_rows(run_id, rows, keys))
            conn.executemany(SPREAD_UPSERT, [
                (mid, keys[i], r["unit"], r["median"], r["median"], r["median"])
                for i, r in enumerate(rows) if i < len(keys) and r.get("unit")
                and isinstance(r.get("median"), (int, float))])
    if got is None:  # another writer stored this run between the look-up and the insert
        old = conn.execute("SELECT run_id, machine_id FROM runs WHERE run_key = ?",
                           (key,)).fetchone()
        return dict(out, run_id=old[0], machine_id=old[1], added=False)
    return dict(out, run_id=run_id, added=True)


# --- looking things up -------------------------------------------------------------------------

def machines(conn):
    """[{machine_id, label, identity, runs: [{run_id, run_key, added_utc, build, ok, path,
    ...}]}]."""
    out = []
    for mid, lab, ident in conn.execute(
            "SELECT machine_id, label, identity FROM machines ORDER BY added_utc, machine_id"):
        runs = [dict(zip(("run_id", "run_key", "added_utc", "parsed_utc", "build", "ok", "path",
                          "arch", "env"), r)) for r in conn.execute(
            "SELECT run_id, run_key, added_utc, parsed_utc, build, ok, path, arch, env FROM runs "
            "WHERE machine_id = ? ORDER BY run_id", (mid,))]
        out.append({"machine_id": mid, "label": lab, "identity": json.loads(ident), "runs": runs})
    return out


def resolve(conn, spec):
    """A machine (id or a prefix of 4+ digits) or a run (rN, or N when no machine id starts so)
    as (machine_id, [run ids]). Raises StoreError."""
    spec = str(spec).strip()
    if len(spec) >= 4:
        hits = [r[0] for r in conn.execute(
            "SELECT machine_id FROM machines WHERE machine_id LIKE ?", (spec.lower() + "%",))]
        if len(hits) > 1:
            raise StoreError("%s names %d machines: give more digits" % (spec, len(hits)))
        if hits:
            runs = [r[0] for r in conn.execute(
                "SELECT run_id FROM runs WHERE machine_id = ? ORDER BY run_id", (hits[0],))]
            return hits[0], runs
    num = spec[1:] if spec[:1] in ("r", "R") else spec
    if num.isdigit():
        row = conn.execute("SELECT machine_id FROM runs WHERE run_id = ?", (int(num),)).fetchone()
        if row:
            return row[0], [int(num)]
    raise StoreError("%s: no such machine or run in the store (see `store list`)" % spec)


def run_record(conn, run_id):
    """{run_id, machine_id, path, summary, headline, meta} of one stored run."""
    row = conn.execute("SELECT machine_id, path, summary, headline, results_meta FROM runs "
                       "WHERE run_id = ?", (run_id,)).fetchone()
    return {"run_id": run_id, "machine_id": row[0], "path": row[1],
            "summary": json.loads(zlib.decompress(row[2])),
            "headline": json.loads(row[3]) if row[3] else None,
            "meta": json.loads(row[4]) if row[4] else {}}


def spreads(conn, machine_id):
    """Per set (set_key) with SPREAD_MIN_RUNS+ runs: {unit, runs, mean, min, max, range_pct (max -
    min of the per-run medians, in % of their mean), cv_pct (their stddev, % of the mean)}."""
    out = {}
    for key, unit, n, mean, m2, lo, hi in conn.execute(
            "SELECT set_key, unit, n, mean, m2, min, max FROM boot_spread "
            "WHERE machine_id = ? AND n >= ?", (machine_id, SPREAD_MIN_RUNS)):
        sd = (max(m2, 0.0) / (n - 1)) ** 0.5
        out[key] = {"unit": unit, "runs": n, "mean": mean, "min": lo, "max": hi,
                    "range_pct": 100.0 * (hi - lo) / abs(mean) if mean else None,
                    "cv_pct": 100.0 * sd / abs(mean) if mean else None}
    return out


def typical_spread(conn, machine_id):
    """(the median over sets of range_pct, sets, most runs) of a machine, or None with fewer
    than SPREAD_MIN_RUNS runs: the single figure `compare --boot-spread` takes."""
    sp = sorted(v["range_pct"] for v in spreads(conn, machine_id).values()
                if v["range_pct"] is not None)
    if not sp:
        return None
    runs = max(v["runs"] for v in spreads(conn, machine_id).values())
    mid = len(sp) // 2
    med = sp[mid] if len(sp) % 2 else (sp[mid - 1] + sp[mid]) / 2.0
    return {"pct": med, "sets": len(sp), "runs": runs}


def machine_of_summary(conn, summary):
    """The stored machine id of the machine a summary was measured on, or None."""
    mid = machine.machine_id(machine.identity(summary))
    row = conn.execute("SELECT 1 FROM machines WHERE machine_id = ?", (mid,)).fetchone()
    return mid if row else None


# --- compare and export ------------------------------------------------------------------------

def compare_run(conn, run_id, tmp):
    """compare.load_run's dict for a stored run: its summary from the store, its raw files from
    its parse directory while that exists (else an empty directory: no raw samples)."""
    rec = run_record(conn, run_id)
    path = rec["path"]
    have_dir = bool(path) and os.path.isdir(os.path.join(path, "raw"))
    d = path if have_dir else os.path.join(tmp, "r%d" % run_id)
    os.makedirs(d, exist_ok=True)
    return {"path": "r%d (machine %s%s)" % (run_id, rec["machine_id"],
                                            "" if have_dir else ", no raw files"),
            "dir": d, "summary": rec["summary"], "parsed": False,
            "machine_id": rec["machine_id"]}


def compare_store(conn, spec_a, spec_b, tmp, boot_spread_pct=None, **kw):
    """compare.compare over the runs spec_a and spec_b name (machines: all their runs, each a
    boot). Without boot_spread_pct, A's (else B's) stored typical spread is used when both
    sides have one boot (with 2+ boots on a side those boots give the spread). Returns
    (runs_a, runs_b, result, spread note or None)."""
    (ma, ids_a), (mb, ids_b) = resolve(conn, spec_a), resolve(conn, spec_b)
    if set(ids_a) & set(ids_b):
        raise StoreError("A and B share run(s) %s" % ", ".join(
            "r%d" % r for r in sorted(set(ids_a) & set(ids_b))))
    runs_a = [compare_run(conn, r, tmp) for r in ids_a]
    runs_b = [compare_run(conn, r, tmp) for r in ids_b]
    note = None
    if boot_spread_pct is None and max(len(runs_a), len(runs_b)) < 2:
        for mid in (ma, mb):
            t = typical_spread(conn, mid)
            if t:
                boot_spread_pct = t["pct"]
                note = spread_note(mid, t)
                break
    res = compare.compare(runs_a, runs_b, boot_spread_pct=boot_spread_pct, **kw)
    return runs_a, runs_b, res, note


def spread_note(mid, t):
    return ("boot-to-boot spread %.2f%% from the store: machine %s, the median over %d sets of "
            "the range of its %d runs' medians" % (t["pct"], mid, t["sets"], t["runs"]))


EXPORT_COLUMNS = ("machine_id", "run_id") + tuple(export.CSV_COLUMNS)


def export_csv(conn, fh, run_ids=None):
    """Write every stored results row (or those of run_ids) as CSV: results.csv's columns after
    the machine and run ids. Returns the rows written."""
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(EXPORT_COLUMNS)
    sql = ("SELECT r.machine_id, x.run_id, x.row FROM results x JOIN runs r "
           "ON r.run_id = x.run_id %s ORDER BY x.run_id, x.seq")
    if run_ids is None:
        cur = conn.execute(sql % "")
    else:
        cur = conn.execute(sql % ("WHERE x.run_id IN (%s)" % ",".join("?" * len(run_ids))),
                           list(run_ids))
    n = 0
    for mid, rid, row in cur:
        w.writerow([mid, rid] + export.csv_row(json.loads(row)))
        n += 1
    return n


def integrity(conn):
    """sqlite's own check, for a damaged file: 'ok' or its first complaint."""
    if isinstance(conn, pg.Connection):
        return "ok"  # the server keeps its own consistency; there is no file to check
    try:
        return conn.execute("PRAGMA quick_check").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        return str(exc)
