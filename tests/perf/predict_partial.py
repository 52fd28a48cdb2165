#!/usr/bin/python3
"""predict_vs_measured.py's method, one program at a time, for a machine too loaded to run it whole
before a deadline: the three configurations' machine vectors first (the same hosted runs), then
per program, as soon as its application vector exists in APP_DIR (written there by a running or
finished predict_vs_measured.py: `app-<name>.json`, start-up already taken off), the same five
measurements per configuration and the same judgement, the results file rewritten after each
program. Nothing of the method or the goal differs; only the order, so that a run cut short has
whole programs. The goal is judged only when all seven are there.

Usage: tests/perf/predict_partial.py OUT_DIR APP_DIR[,APP_DIR...] [--until HH:MM] [--reps N]"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import predict_vs_measured as pvm  # noqa: E402
from bmharness.analysis import app_vector  # noqa: E402


def _find_app(dirs, name):
    for d in dirs:
        p = os.path.join(d, "app-%s.json" % name)
        if os.path.exists(p):
            return app_vector.load(p), p
    return None, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("app_dirs")
    ap.add_argument("--until", default=None, help="UTC HH:MM: start no program after it")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    dirs = args.app_dirs.split(",")
    os.makedirs(args.out, exist_ok=True)
    paths = {k: os.path.join(dirs[0], k) for k in ("text.txt", "numbers.txt", "db.sqlite",
                                                   "graph.txt", "tree")}
    progs = pvm.programs(paths)
    started = {"utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "loadavg": pvm.loadavg()}
    machines = {c: pvm.machine_vector(c, args.out) for c in pvm.CONFIGS}
    meas = {"_empty": {c: pvm.measure(pvm.EMPTY, c, args.reps) for c in pvm.CONFIGS}}
    apps, sources, done = {}, {}, []
    while len(done) < len(progs):
        if args.until and time.strftime("%H:%M", time.gmtime()) >= args.until:
            break
        ready = [n for n in progs if n not in done and _find_app(dirs, n)[0]]
        if not ready:
            time.sleep(20)
            continue
        name = ready[0]
        apps[name], sources[name] = _find_app(dirs, name)
        meas[name] = {c: pvm.measure(progs[name][0], c, args.reps) for c in pvm.CONFIGS}
        done.append(name)
        rows = pvm.judge({n: progs[n] for n in done}, apps, machines, meas, list(pvm.CONFIGS))
        within = {c: sum(1 for r in rows if r["ratios"].get(c, {}).get("within"))
                  for c in pvm.CONFIGS if c != "native"}
        full = len(rows) == len(pvm.PROGRAM_NAMES)
        goal = (full and all(r["ranking_right"] for r in rows)
                and all(w >= pvm.PROGRAMS_WITHIN for w in within.values())) if full else None
        with open(os.path.join(args.out, "predict_vs_measured.json"), "w") as fh:
            json.dump({"started": started, "finished_loadavg": pvm.loadavg(), "rows": rows,
                       "goal_met": goal, "configs": list(pvm.CONFIGS), "ratios_within": within,
                       "ranking_right": sum(r["ranking_right"] for r in rows),
                       "absolute_native": pvm.absolute(rows), "app_vectors": sources,
                       "machines": {c: {"coefficients": m["coefficients"], "run": m["run"],
                                        "checks": m["checks"]} for c, m in machines.items()},
                       "empty_program": meas["_empty"]}, fh, indent=1)
        pvm.print_table(rows[-1:], list(pvm.CONFIGS), {})
        sys.stdout.flush()
    print("programs done: %s" % ", ".join(done))
    return 0


if __name__ == "__main__":
    sys.exit(main())
