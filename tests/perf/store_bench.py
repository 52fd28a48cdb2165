"""Benchmark of the results store's add (not a timed unit test): the time to add N synthetic
runs to a fresh database, and its ratio to N/10 runs (near 10 when an add costs the same
however many runs are stored). Each run is one synthetic boot (tests/python/synth.py: membw and
latency sweeps, ~60 results rows) parsed once; the N adds reuse it with its samples' statistics
perturbed, so every add is a new run of the same machine (the boot-to-boot spread is updated
each time). Parsing is not timed: only ops.add. Then the time to remove one run of the N (its
machine's spread is rebuilt from the N - 1 others: remove.py).

    /usr/bin/python3 tests/perf/store_bench.py [N]     (default 1000)
"""

import copy
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", "harness"), os.path.join(HERE, "..", "python")]

import synth  # noqa: E402
from bmharness.analysis import export  # noqa: E402
from bmharness.store import db, ops, remove  # noqa: E402
from bmharness.stream import parse  # noqa: E402


def one_boot(tmp):
    log = os.path.join(tmp, "boot.log")
    with open(log, "wb") as fh:
        fh.write(synth.memory_stream(n=16).data())
    out = os.path.join(tmp, "boot")
    summary = parse.parse_log(log, out)
    return summary, export.write(out, summary), out


def variant(summary, results, i):
    """The boot as run i: raw statistics and medians moved a little, so its key is new."""
    s, r = copy.deepcopy(summary), copy.deepcopy(results)
    for st in s["sets"]:
        raw = (st.get("stats") or {}).get("raw") or {}
        if isinstance(raw.get("mean"), (int, float)):
            raw["mean"] += i * 1e-3
    for row in r["rows"]:
        if isinstance(row.get("median"), (int, float)):
            row["median"] *= 1 + (i % 7) * 1e-3
    return s, r


def add_runs(path, base, n):
    runs = [variant(base[0], base[1], i) for i in range(n)]  # built before the clock starts
    conn = db.connect(path)
    t0 = time.perf_counter()
    for s, r in runs:
        assert ops.add(conn, s, r, base[2])["added"]
    dt = time.perf_counter() - t0
    conn.close()
    return dt


def remove_one(path, run_id):
    conn = db.connect(path)
    t0 = time.perf_counter()
    remove.remove_run(conn, "r%d" % run_id)
    dt = time.perf_counter() - t0
    conn.close()
    return dt


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    with tempfile.TemporaryDirectory(prefix="store-bench-") as tmp:
        base = one_boot(tmp)
        rows = len(base[1]["rows"])
        small = add_runs(os.path.join(tmp, "small.sqlite"), base, max(1, n // 10))
        full = add_runs(os.path.join(tmp, "full.sqlite"), base, n)
        size = os.path.getsize(os.path.join(tmp, "full.sqlite"))
        gone = remove_one(os.path.join(tmp, "full.sqlite"), max(1, n // 2))
    print("store add: %d runs of %d rows each in %.2f s (%.1f ms per run, %.0f rows/s); "
          "database %.1f MB" % (n, rows, full, 1e3 * full / n, n * rows / full, size / 1e6))
    print("%d runs in %.2f s; ratio %d/%d runs: %.1f (10 = linear)" % (
        max(1, n // 10), small, n, max(1, n // 10), full / small))
    print("store remove: one run of %d in %.2f s (the machine's spread rebuilt from the rest)"
          % (n, gone))


if __name__ == "__main__":
    main()
