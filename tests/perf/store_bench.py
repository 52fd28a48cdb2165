"""Benchmark of the results store's add (not a timed unit test): the time to add N synthetic
runs to a fresh database, and its ratio to N/10 runs (near 10 when an add costs the same
however many runs are stored). Each run is one synthetic boot (tests/python/synth.py: membw and
latency sweeps, ~60 results rows) parsed once; the N adds reuse it with its samples' statistics
perturbed, so every add is a new run of the same machine (the boot-to-boot spread is updated
each time). Parsing is not timed: only ops.add. Then the time to remove one run of the N (its
machine's spread is rebuilt from the N - 1 others: remove.py). Then a fleet query: the
runs spread over FLEET_MACHINES machines, the per-machine median of one set's medians and
the machines' run counts (what a fleet report asks the store), timed.

Both backends: SQLite, and PostgreSQL on a throwaway server (tests/python/pg_server.py; left
out with the reason when it cannot start). Issue 32 asks for N = 10000.

    /usr/bin/python3 tests/perf/store_bench.py [N] [--backend sqlite|postgresql|both]
"""

import copy
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "harness"), os.path.join(HERE, "..", "python")]

import pg_server  # noqa: E402
import synth  # noqa: E402
from bmharness.analysis import export  # noqa: E402
from bmharness.store import db, machine, ops, remove  # noqa: E402
from bmharness.stream import parse  # noqa: E402


def one_boot(tmp):
    log = os.path.join(tmp, "boot.log")
    with open(log, "wb") as fh:
        fh.write(synth.memory_stream(n=16).data())
    out = os.path.join(tmp, "boot")
    summary = parse.parse_log(log, out)
    return summary, export.write(out, summary), out


FLEET_MACHINES = 100


def variant(summary, results, i):
    """The boot as run i of machine i % FLEET_MACHINES: raw statistics and medians moved a
    little, so its key is new; the machine's board serial hash names the machine."""
    s, r = copy.deepcopy(summary), copy.deepcopy(results)
    for st in s["sets"]:
        raw = (st.get("stats") or {}).get("raw") or {}
        if isinstance(raw.get("mean"), (int, float)):
            raw["mean"] += i * 1e-3
    for row in r["rows"]:
        if isinstance(row.get("median"), (int, float)):
            row["median"] *= 1 + (i % 7) * 1e-3
    s.setdefault("platform", {})["system"] = [{"manufacturer": "Bench", "product": "Box",
                                               "serial_hash": "%016x" % (i % FLEET_MACHINES)}]
    return s, r


def add_runs(path, base, n):
    """Seconds spent in ops.add for n runs (each run is built outside the clock, one at a time:
    10,000 built in advance would take gigabytes)."""
    conn = db.connect(path)
    dt = 0.0
    for i in range(n):
        s, r = variant(base[0], base[1], i)
        t0 = time.perf_counter()
        assert ops.add(conn, s, r, base[2])["added"]
        dt += time.perf_counter() - t0
    conn.close()
    return dt


FLEET_QUERY = """
SELECT r.machine_id, COUNT(DISTINCT r.run_id), AVG(x.median), MIN(x.median), MAX(x.median)
FROM results x JOIN runs r ON r.run_id = x.run_id
WHERE x.set_key = ? GROUP BY r.machine_id ORDER BY r.machine_id"""


def fleet_query(path, base):
    """One set's medians across the fleet, per machine; (seconds, machines, runs seen)."""
    key = ops.set_keys(base[0])[0]
    conn = db.connect(path)
    t0 = time.perf_counter()
    rows = conn.execute(FLEET_QUERY, (key,)).fetchall()
    dt = time.perf_counter() - t0
    conn.close()
    return dt, len(rows), sum(r[1] for r in rows)


def remove_one(path, run_id):
    conn = db.connect(path)
    t0 = time.perf_counter()
    remove.remove_run(conn, "r%d" % run_id)
    dt = time.perf_counter() - t0
    conn.close()
    return dt


def bench(name, new_store, base, n):
    rows = len(base[1]["rows"])
    small = add_runs(new_store("small"), base, max(1, n // 10))
    full_path = new_store("full")
    full = add_runs(full_path, base, n)
    q, machines, seen = fleet_query(full_path, base)
    gone = remove_one(full_path, max(1, n // 2))
    print("[%s] store add: %d runs of %d rows each in %.2f s (%.1f ms per run, %.0f rows/s)"
          % (name, n, rows, full, 1e3 * full / n, n * rows / full))
    print("[%s] %d runs in %.2f s; ratio %d/%d runs: %.1f (10 = linear)" % (
        name, max(1, n // 10), small, n, max(1, n // 10), full / small))
    print("[%s] fleet query (one set across %d machines, %d runs): %.3f s" % (
        name, machines, seen, q))
    print("[%s] store remove: one run of %d in %.2f s (the machine's spread rebuilt from the "
          "rest)" % (name, n, gone))
    return {"backend": name, "n": n, "rows_per_run": rows, "add_s": full, "small_add_s": small,
            "fleet_query_s": q, "fleet_machines": machines, "remove_s": gone}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    backend = "both"
    for a in sys.argv[1:]:
        if a.startswith("--backend="):
            backend = a.split("=", 1)[1]
    n = int(args[0]) if args else 1000
    out = []
    with tempfile.TemporaryDirectory(prefix="store-bench-") as tmp:
        base = one_boot(tmp)
        if backend in ("sqlite", "both"):
            out.append(bench("sqlite", lambda name: os.path.join(tmp, name + ".sqlite"), base, n))
        if backend in ("postgresql", "both"):
            why = pg_server.unavailable()
            if why:
                print("[postgresql] not run: %s" % why)
            else:
                with pg_server.PgServer() as srv:
                    out.append(bench("postgresql", lambda name: srv.new_database(), base, n))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
