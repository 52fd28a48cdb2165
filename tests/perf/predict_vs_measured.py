#!/usr/bin/python3
"""Characterisation vectors against measured time (hbench-OS ch. 4.1; docs/methods/vectors.md):
programs no one here wrote (Debian-packaged tools on fixed generated inputs) are characterised
once with cachegrind (`baremetric characterise`), each machine configuration is characterised by a
hosted baremetric run (`report` writes its vector.json), and the predicted time ratios between the
configurations are set beside the measured ones.

Configurations (the hosted build and the programs run in each, pinned to CPU 0):
  native    this machine as it is;
  corunner  with a DRAM-streaming co-runner on the other CPU (the hosted build's read kernel over
            a 256 MiB buffer, in a loop) during both the machine run and the program runs;
  qemu      under QEMU user-mode emulation (qemu-x86_64 from Debian's qemu-user, installed when
            run as root): the hosted build and the programs both emulated.
Programs: gzip -6, bzip2 -9 (compression), sort -n (coreutils), sqlite3 (an aggregate query over a
table with an index), tsort (coreutils: a hash table and linked lists over 100k edges: the
pointer-heavy one, characterised with the latency miss model).

Goal, fixed before measuring (not to be changed afterwards): for every program the predicted
ranking of the configurations is the measured one, and the predicted time ratio of each
configuration to native is within 30% of the measured ratio for at least 4 of the 5 programs.
The table is printed whatever the numbers are; exit 0 when the goal is met, 1 when not, 2 when
the benchmark could not run.

Usage: tests/perf/predict_vs_measured.py [OUT_DIR] [--reps N] [--configs native,corunner,qemu]
       [--programs gzip,bzip2,sort,sqlite,tsort]
Takes ~15-30 minutes (cachegrind runs the programs ~50x slower, QEMU ~5-30x)."""

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "harness"))
from bmharness import stats  # noqa: E402
from bmharness.analysis import app_vector, predict, vector  # noqa: E402

HARNESS = os.path.join(ROOT, "harness", "baremetric")
HOSTED = os.path.join(ROOT, "build", "hosted", "baremetric")
CPU, OTHER_CPU = "0", "1"
RATIO_BAND = 0.30          # predicted ratio within 30% of the measured one
PROGRAMS_WITHIN = 4        # ... for at least this many programs
SEED = 20261126
MACHINE_ARGS = ["probes=spin,membw,latency", "samples=8", "mem_max_mb=128",
                "mem_kernels=read,write,copy", "smp=0"]
CORUNNER_ARGS = ["probes=membw", "samples=1000000", "mem_min_kb=262144", "mem_max_mb=256",
                 "mem_kernels=read", "smp=0"]
CONFIGS = ("native", "corunner", "qemu")


def make_inputs(d):
    """Fixed inputs (seeded): a word text, a number list, a SQLite database, a graph."""
    r = random.Random(SEED)
    words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(2, 9)))
             for _ in range(5000)]
    paths = {k: os.path.join(d, k) for k in ("text.txt", "numbers.txt", "db.sqlite", "graph.txt")}
    with open(paths["text.txt"], "w") as fh:
        fh.write(" ".join(r.choice(words) for _ in range(400000)))
    with open(paths["numbers.txt"], "w") as fh:
        fh.write("\n".join(str(r.randint(0, 10 ** 9)) for _ in range(300000)) + "\n")
    sql = ["CREATE TABLE t (k INTEGER, g INTEGER, v REAL);", "BEGIN;"]
    sql += ["INSERT INTO t VALUES (%d, %d, %.3f);" % (i, r.randint(0, 999), r.random())
            for i in range(200000)]
    sql += ["COMMIT;", "CREATE INDEX tg ON t (g);"]
    if os.path.exists(paths["db.sqlite"]):
        os.remove(paths["db.sqlite"])
    subprocess.run(["sqlite3", paths["db.sqlite"]], input="\n".join(sql).encode(), check=True)
    n = 100000  # a DAG: edges from lower to higher numbers, shuffled
    edges = ["n%d n%d" % (a, a + r.randint(1, 5000)) for a in (r.randrange(n) for _ in range(n))]
    r.shuffle(edges)
    with open(paths["graph.txt"], "w") as fh:
        fh.write("\n".join(edges) + "\n")
    return paths


def programs(p):
    """{name: (argv, miss model)}: argv[0] a Debian-packaged binary."""
    return {
        "gzip": (["/usr/bin/gzip", "-6", "-c", p["text.txt"]], "bandwidth"),
        "bzip2": (["/usr/bin/bzip2", "-9", "-c", p["text.txt"]], "bandwidth"),
        "sort": (["/usr/bin/sort", "-n", "--parallel=1", "-S", "64M", p["numbers.txt"]], "bandwidth"),
        "sqlite": (["/usr/bin/sqlite3", p["db.sqlite"],
                    "SELECT g, COUNT(*), AVG(v) FROM t WHERE g < 500 GROUP BY g ORDER BY 3;"],
                   "bandwidth"),
        "tsort": (["/usr/bin/tsort", p["graph.txt"]], "latency"),
    }


def prefix(config):
    pin = ["taskset", "-c", CPU]
    return pin + (["qemu-x86_64"] if config == "qemu" else [])


class CoRunner:
    """The DRAM-streaming co-runner on the other CPU, while `with` lasts (config corunner)."""

    def __init__(self, config):
        self.on, self.p = config == "corunner", None

    def __enter__(self):
        if self.on:
            self.p = subprocess.Popen(["taskset", "-c", OTHER_CPU, HOSTED] + CORUNNER_ARGS,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      start_new_session=True)
            time.sleep(2)  # its buffer set up and streaming
        return self

    def __exit__(self, *exc):
        if self.p:
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()


def machine_vector(config, out):
    d = os.path.join(out, "machine-" + config)
    os.makedirs(d, exist_ok=True)
    log = os.path.join(d, "hosted.log")
    with CoRunner(config), open(log, "wb") as fh:
        subprocess.run(prefix(config) + [HOSTED] + MACHINE_ARGS, stdout=fh,
                       stderr=subprocess.DEVNULL, check=True, timeout=3600)
    subprocess.run([sys.executable, HARNESS, "parse", log, "--out", os.path.join(d, "parsed")],
                   stdout=subprocess.DEVNULL, check=False)
    subprocess.run([sys.executable, HARNESS, "report", os.path.join(d, "parsed"), "--summary"],
                   stdout=subprocess.DEVNULL, check=False)
    return vector.load(os.path.join(d, "parsed"))


def measure(argv, config, reps):
    """Median wall time of reps runs. The wait blocks in waitpid: subprocess.run with a timeout
    polls the child with sleeps of up to 50 ms, which quantised the first measurements here."""
    times = []
    with CoRunner(config):
        for _ in range(reps):
            t0 = time.monotonic()
            p = subprocess.Popen(prefix(config) + argv, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            _, status = os.waitpid(p.pid, 0)
            times.append(time.monotonic() - t0)
            p.returncode = os.waitstatus_to_exitcode(status)
            if p.returncode:
                raise subprocess.CalledProcessError(p.returncode, argv)
    return stats.median(times), times


def ranking(times):
    return [c for c, _ in sorted(times.items(), key=lambda kv: kv[1])]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default=os.path.join(
        ROOT, "results", "perf-predict-" + time.strftime("%Y%m%d-%H%M%S", time.gmtime())))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--programs", default="gzip,bzip2,sort,sqlite,tsort")
    args = ap.parse_args()
    configs = args.configs.split(",")
    if "native" not in configs:
        print("the ratios are to native: --configs must include it", file=sys.stderr)
        return 2
    if "qemu" in configs and not shutil.which("qemu-x86_64"):
        if os.getuid() == 0:
            subprocess.run(["apt-get", "install", "-y", "-qq", "qemu-user"],
                           env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"),
                           stdout=subprocess.DEVNULL, check=False)
        if not shutil.which("qemu-x86_64"):
            print("qemu-x86_64 missing: apt-get install qemu-user", file=sys.stderr)
            return 2
    if not os.path.exists(HOSTED) or not shutil.which("valgrind"):
        print("needs build/hosted/baremetric (make hosted) and valgrind", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    paths = make_inputs(args.out)
    progs = {k: v for k, v in programs(paths).items() if k in args.programs.split(",")}
    apps = {}
    for name, (argv, model) in progs.items():
        apps[name] = app_vector.characterise(argv, model)
        app_vector.write_json(os.path.join(args.out, "app-%s.json" % name), apps[name])
    machines = {c: machine_vector(c, args.out) for c in configs}
    rows, within, rank_ok = [], 0, 0
    for name, (argv, _) in progs.items():
        pred = {r["label"]: r for r in predict.predict(apps[name], list(machines.items()))}
        meas = {c: measure(argv, c, args.reps) for c in configs}
        p_s = {c: pred[c]["seconds"] for c in configs}
        m_s = {c: meas[c][0] for c in configs}
        ok_ratio = all(p_s[c] is not None for c in configs)
        errs = {}
        for c in configs:
            if c != "native" and ok_ratio:
                pr, mr = p_s[c] / p_s["native"], m_s[c] / m_s["native"]
                errs[c] = (pr, mr, pr / mr - 1)
        ranked = ok_ratio and ranking(p_s) == ranking(m_s)
        fits = ok_ratio and all(abs(e[2]) <= RATIO_BAND for e in errs.values())
        within += fits
        rank_ok += ranked
        rows.append({"program": name, "predicted_s": p_s, "measured_s": m_s,
                     "measured_all_s": {c: meas[c][1] for c in configs},
                     "missing": {c: pred[c]["missing"] for c in configs if pred[c]["missing"]},
                     "ratios": {c: {"predicted": e[0], "measured": e[1], "error": e[2]}
                                for c, e in errs.items()},
                     "ranking_right": ranked, "ratios_within_band": fits})
    print("%-8s %-9s %11s %11s %9s %9s %7s" % ("program", "config", "predicted", "measured",
                                              "pred x", "meas x", "error"))
    for r in rows:
        for c in configs:
            e = r["ratios"].get(c)
            print("%-8s %-9s %11s %11s %9s %9s %7s" % (
                r["program"], c, "%.4f s" % r["predicted_s"][c] if r["predicted_s"][c] else "-",
                "%.4f s" % r["measured_s"][c], "%.2f" % e["predicted"] if e else "",
                "%.2f" % e["measured"] if e else "", "%+.0f%%" % (100 * e["error"]) if e else ""))
        print("%-8s ranking %s, ratios %s" % ("", "right" if r["ranking_right"] else "WRONG",
                                              "within 30%" if r["ratios_within_band"] else "OUT"))
    full = set(configs) == set(CONFIGS) and len(rows) == len(programs(paths))
    goal = full and rank_ok == len(rows) and within >= PROGRAMS_WITHIN
    print("goal (ranking right for every program, ratios within 30%% for >= %d of 5): %s "
          "(ranking right %d/%d, ratios within %d/%d)" % (
              PROGRAMS_WITHIN, ("MET" if goal else "NOT MET") if full else
              "not judged (it needs every program and configuration)", rank_ok, len(rows),
              within, len(rows)))
    with open(os.path.join(args.out, "predict_vs_measured.json"), "w") as fh:
        json.dump({"rows": rows, "goal_met": goal if full else None, "configs": configs}, fh,
                  indent=1)
    print("wrote %s" % os.path.join(args.out, "predict_vs_measured.json"))
    return 0 if goal or not full else 1


if __name__ == "__main__":
    sys.exit(main())
