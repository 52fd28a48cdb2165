"""Taking runs and machines out of the results store (`store remove`).

A run is named by `rN` or by its key (machine.run_key, the content hash `store list` shows the
first digits of) or a prefix of it; a machine only on purpose (`--machine`), so that a mistyped
run cannot take a machine's whole history with it. A name that matches nothing, or more than
one run or machine, removes nothing.

Each removal is one transaction with explicit deletes (the schema has no ON DELETE CASCADE and
its migrations stay as they shipped): the results rows, the run, and the machine's boot-to-boot
spread, which is rebuilt by replaying ops.SPREAD_UPSERT over the runs that remain in the order
they were added -- the same rows as if the removed run had never been added (Welford's update
cannot be undone for min and max). A machine left without runs is removed with its last one.
"""

import re

from . import ops
from .db import StoreError

KEY_MIN = 4     # hex digits of a run key (or machine id) prefix: fewer match too much


def find_run(conn, spec):
    """(run_id, run_key, machine_id) of the one run spec names: rN or a run key prefix of
    KEY_MIN+ hex digits. Raises StoreError (unknown, ambiguous, or a machine's name)."""
    spec = str(spec).strip()
    m = re.fullmatch(r"[rR](\d+)", spec)
    if m:
        rows = conn.execute("SELECT run_id, run_key, machine_id FROM runs WHERE run_id = ?",
                            (int(m.group(1)),)).fetchall()
    elif len(spec) >= KEY_MIN and re.fullmatch(r"[0-9a-fA-F]+", spec):
        rows = conn.execute("SELECT run_id, run_key, machine_id FROM runs WHERE run_key LIKE ? "
                            "ORDER BY run_id", (spec.lower() + "%",)).fetchall()
    else:
        raise StoreError("%s: not a run (rN, or %d+ hex digits of a run key)" % (spec, KEY_MIN))
    if len(rows) > 1:
        raise StoreError("%s: the key prefix of %d runs (%s): give more digits" % (
            spec, len(rows), ", ".join("r%d" % r[0] for r in rows)))
    if rows:
        return rows[0]
    machines = _machines_like(conn, spec)
    if machines:
        raise StoreError("%s: no such run; it names machine %s: to remove a machine with all its "
                         "runs give --machine" % (spec, machines[0]))
    raise StoreError("%s: no such run in the store (see `store list`)" % spec)


def _machines_like(conn, spec):
    if len(spec) < KEY_MIN:
        return []
    return [r[0] for r in conn.execute("SELECT machine_id FROM machines WHERE machine_id LIKE ? "
                                       "ORDER BY machine_id", (spec.lower() + "%",))]


def find_machine(conn, spec):
    """The machine id spec names: KEY_MIN+ of its first digits. Raises StoreError."""
    spec = str(spec).strip()
    hits = _machines_like(conn, spec) if re.fullmatch(r"[0-9a-fA-F]+", spec) else []
    if len(hits) > 1:
        raise StoreError("%s: the prefix of %d machines (%s): give more digits" % (
            spec, len(hits), ", ".join(hits)))
    if not hits:
        raise StoreError("%s: no such machine in the store (a machine id or %d+ of its first "
                         "digits; see `store list`)" % (spec, KEY_MIN))
    return hits[0]


def _rebuild_spread(conn, machine_id):
    """The machine's boot_spread rows from its remaining runs, as their adds made them."""
    conn.execute("DELETE FROM boot_spread WHERE machine_id = ?", (machine_id,))
    rows = conn.execute(
        "SELECT x.set_key, x.unit, x.median FROM results x JOIN runs r ON r.run_id = x.run_id "
        "WHERE r.machine_id = ? AND x.set_key IS NOT NULL AND x.unit IS NOT NULL "
        "AND x.unit != '' AND typeof(x.median) IN ('real', 'integer') "
        "ORDER BY x.run_id, x.seq", (machine_id,)).fetchall()
    conn.executemany(ops.SPREAD_UPSERT, [(machine_id, k, u, m, m, m) for k, u, m in rows])


def _delete_runs(conn, run_ids):
    marks = ",".join("?" * len(run_ids))
    conn.execute("DELETE FROM results WHERE run_id IN (%s)" % marks, run_ids)
    conn.execute("DELETE FROM runs WHERE run_id IN (%s)" % marks, run_ids)


def remove_run(conn, spec):
    """Remove the run spec names (find_run), in one transaction. Returns {run_id, run_key,
    machine_id, path, rows (results rows removed), machine_removed}."""
    run_id, key, mid = find_run(conn, spec)
    path = conn.execute("SELECT path FROM runs WHERE run_id = ?", (run_id,)).fetchone()[0]
    with conn:
        rows = conn.execute("SELECT COUNT(*) FROM results WHERE run_id = ?",
                            (run_id,)).fetchone()[0]
        _delete_runs(conn, [run_id])
        left = conn.execute("SELECT COUNT(*) FROM runs WHERE machine_id = ?",
                            (mid,)).fetchone()[0]
        if left:
            _rebuild_spread(conn, mid)
        else:
            conn.execute("DELETE FROM boot_spread WHERE machine_id = ?", (mid,))
            conn.execute("DELETE FROM machines WHERE machine_id = ?", (mid,))
    return {"run_id": run_id, "run_key": key, "machine_id": mid, "path": path, "rows": rows,
            "machine_removed": not left}


def remove_machine(conn, spec):
    """Remove the machine spec names (find_machine) with all its runs, in one transaction.
    Returns {machine_id, label, runs: [{run_id, run_key, path}], rows}."""
    mid = find_machine(conn, spec)
    label = conn.execute("SELECT label FROM machines WHERE machine_id = ?", (mid,)).fetchone()[0]
    runs = [{"run_id": r[0], "run_key": r[1], "path": r[2]} for r in conn.execute(
        "SELECT run_id, run_key, path FROM runs WHERE machine_id = ? ORDER BY run_id", (mid,))]
    ids = [r["run_id"] for r in runs]
    with conn:
        rows = conn.execute("SELECT COUNT(*) FROM results WHERE run_id IN (%s)"
                            % ",".join("?" * len(ids)), ids).fetchone()[0] if ids else 0
        if ids:
            _delete_runs(conn, ids)
        conn.execute("DELETE FROM boot_spread WHERE machine_id = ?", (mid,))
        conn.execute("DELETE FROM machines WHERE machine_id = ?", (mid,))
    return {"machine_id": mid, "label": label, "runs": runs, "rows": rows}
