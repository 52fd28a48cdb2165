#!/usr/bin/python3
"""Where the test suite's time goes: the 20 slowest tests and the total.

  tests/perf/suite_time.py run [-- CMD ...]    run CMD (default: make test) with every pytest in it
                                              printing all durations; then the table below
  tests/perf/suite_time.py log FILE            read a saved output with pytest --durations sections
                                              (make test's log run with PYTEST_ADDOPTS=--durations=0)
  tests/perf/suite_time.py junit FILE [...]    read pytest --junitxml files

A test's time is its setup, call and teardown added up; a test whose setup waits for a shared
boot (tests/integration/boot_pool.py) carries that wait, so the boots are listed apart too, from
the pool's boot_pool_times.txt (run: found under the run's pytest base folder; --boots FILE
otherwise). Options: --top N (20), --boots FILE; run --keep keeps pytest's base folder, which is
removed otherwise (every boot's copy of the stick: about 11 GB a make test)."""

import argparse
import collections
import glob
import os
import re
import subprocess
import shutil
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET

TOP = 20
# a --durations line: "12.34s call     tests/x.py::test_y[param]"
DURATION = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)s (setup|call|teardown)\s+(\S.*?)\s*$")
SUMMARY = re.compile(r"^=*\s*(\d+ (?:passed|failed|error).*?) in ([0-9.]+)s")
POOL_HEAD = "boot_pool_times.txt"
SAMPLE_S = 5
PART_LOGS = os.path.join("build", "test")  # make test's side-by-side parts (Makefile `test`)


def from_log(text):
    """({test: {phase: seconds}}, [(summary, seconds)] of every pytest run) from --durations output."""
    tests = collections.defaultdict(dict)
    runs = []
    for line in text.splitlines():
        m = DURATION.match(line)
        if m:
            secs, phase, node = float(m.group(1)), m.group(2), m.group(3)
            tests[node][phase] = tests[node].get(phase, 0.0) + secs
            continue
        m = SUMMARY.match(line.strip())
        if m:
            runs.append((m.group(1), float(m.group(2))))
    return tests, runs


def from_junit(paths):
    tests = collections.defaultdict(dict)
    runs = []
    for path in paths:
        root = ET.parse(path).getroot()
        suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
        for suite in suites:
            runs.append(("%s tests" % suite.get("tests"), float(suite.get("time", 0))))
            for case in suite.iter("testcase"):
                node = "%s::%s" % (case.get("classname", "").replace(".", "/") + ".py", case.get("name"))
                tests[node]["total"] = tests[node].get("total", 0.0) + float(case.get("time", 0))
    return tests, runs


def read_boots(path):
    """(head line, [(seconds, name)]) of a boot_pool_times.txt."""
    with open(path) as fh:
        lines = fh.read().splitlines()
    rows = []
    for line in lines[1:]:
        parts = line.split()
        if len(parts) >= 2:
            rows.append((float(parts[1]), parts[0]))
    return (lines[0] if lines else ""), rows


def report(tests, runs, top, wall=None, boots=None, out=sys.stdout):
    totals = sorted(((sum(p.values()), node) for node, p in tests.items()), reverse=True)
    by_phase = collections.Counter()
    for p in tests.values():
        by_phase.update(p)
    if wall is not None:
        out.write("wall: %.1f s (%.1f min) for the whole command\n" % (wall, wall / 60))
    for summary, secs in runs:
        out.write("pytest: %s in %.1f s\n" % (summary, secs))
    out.write("tests: %d, their times added up: %.1f s (%s)\n" % (
        len(totals), sum(t for t, _ in totals),
        ", ".join("%s %.1f" % (k, v) for k, v in sorted(by_phase.items()))))
    out.write("%d slowest tests (setup + call + teardown, seconds):\n" % min(top, len(totals)))
    for secs, node in totals[:top]:
        out.write("%8.2f  %s\n" % (secs, node))
    if boots:
        head, rows = boots
        out.write("boots: %s\n" % head)
        for secs, name in sorted(rows, reverse=True)[:top]:
            out.write("%8.1f  %s\n" % (secs, name))


def find_boots(folder):
    for dirpath, _dirs, files in os.walk(folder):
        if POOL_HEAD in files:
            return os.path.join(dirpath, POOL_HEAD)
    return None


def _cpu_ticks():
    """(busy, total) jiffies of all CPUs from /proc/stat's first line (idle and iowait idle)."""
    with open("/proc/stat") as fh:
        vals = [int(v) for v in fh.readline().split()[1:]]
    idle = vals[3] + (vals[4] if len(vals) > 4 else 0)
    return sum(vals) - idle, sum(vals)


def sample_cpus(stop, out, period=SAMPLE_S):
    """Append (seconds since start, busy CPUs over the last period) to out until stop is set."""
    t0, (b0, a0) = time.monotonic(), _cpu_ticks()
    ncpu = os.cpu_count() or 1
    while not stop.wait(period):
        b1, a1 = _cpu_ticks()
        if a1 > a0:
            out.append((time.monotonic() - t0, ncpu * (b1 - b0) / (a1 - a0)))
        b0, a0 = b1, a1


def cpu_profile(samples, out=sys.stdout, width=60):
    """Busy CPUs per minute of the run, and the mean: where the machine was not kept busy."""
    if not samples:
        return
    per = collections.defaultdict(list)
    for t, busy in samples:
        per[int(t // width)].append(busy)
    out.write("busy CPUs per minute (of %d): %s; mean %.2f\n" % (
        os.cpu_count() or 1, " ".join("%.1f" % (sum(v) / len(v)) for _, v in sorted(per.items())),
        sum(b for _, b in samples) / len(samples)))


def run(cmd, top, boots_path, keep=False):
    """Run cmd with every pytest printing all durations into one base folder; report."""
    work = tempfile.mkdtemp(prefix="suite_time.")
    env = dict(os.environ)
    env["PYTEST_ADDOPTS"] = (env.get("PYTEST_ADDOPTS", "") + " --durations=0 --basetemp=%s"
                             % os.path.join(work, "pytest")).strip()
    log = os.path.join(work, "output.log")
    started = time.time()  # the parts' logs written since (their mtimes are wall-clock)
    t0 = time.monotonic()
    samples, stop = [], threading.Event()
    sampler = threading.Thread(target=sample_cpus, args=(stop, samples), daemon=True)
    sampler.start()
    with open(log, "w") as fh:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
        for line in proc.stdout:
            fh.write(line)
            sys.stdout.write(line) if not DURATION.match(line) else None
        rc = proc.wait()
    wall = time.monotonic() - t0
    stop.set()
    sampler.join()
    with open(log) as fh:
        text = fh.read()
    # make test runs the C unit and Python tests side by side (scripts/run_parts.sh), each part's
    # output in a log of its own: those this run wrote, not an earlier run's
    parts = glob.glob(os.path.join(PART_LOGS, "*.log"))
    for part in sorted(p for p in parts if os.path.getmtime(p) >= started):
        with open(part, errors="replace") as fh:
            text += "\n" + fh.read()
    tests, runs = from_log(text)
    boots_path = boots_path or find_boots(work)
    boots = read_boots(boots_path) if boots_path else None
    if not keep:
        # pytest's base folder holds every boot's own copy of the stick image (64 MiB, and the
        # AArch64 variable store as much again): 11 GB a make test; five runs filled the disk
        shutil.rmtree(os.path.join(work, "pytest"), ignore_errors=True)
    sys.stdout.write("\n== suite_time: %s (exit %d; output in %s%s)\n" % (
        " ".join(cmd), rc, log, "" if keep else "; pytest's folders removed, --keep keeps them"))
    report(tests, runs, top, wall, boots)
    cpu_profile(samples)
    return rc


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--top", type=int, default=TOP)
    ap.add_argument("--boots", help="a boot_pool_times.txt to list the boots of")
    sub = ap.add_subparsers(dest="mode", required=True)
    r = sub.add_parser("run", help="run a command (default: make test) and time it")
    r.add_argument("cmd", nargs="*", default=["make", "test"])
    r.add_argument("--keep", action="store_true",
                   help="keep pytest's base folder (a failed session's boot images: GBs)")
    lg = sub.add_parser("log", help="read the output of pytest --durations runs")
    lg.add_argument("file")
    ju = sub.add_parser("junit", help="read pytest --junitxml files")
    ju.add_argument("files", nargs="+")
    a = ap.parse_args(argv)
    if a.top < 1:
        ap.error("--top must be at least 1")
    boots = read_boots(a.boots) if a.boots else None
    if a.mode == "run":
        return run(a.cmd, a.top, a.boots, a.keep)
    try:
        if a.mode == "log":
            with open(a.file, errors="replace") as fh:
                tests, runs = from_log(fh.read())
        else:
            tests, runs = from_junit(a.files)
    except (OSError, ET.ParseError) as e:
        sys.stderr.write("suite_time: %s\n" % e)
        return 2
    if not tests:
        sys.stderr.write("suite_time: no test durations found (pytest --durations=0 or --junitxml output?)\n")
        return 1
    report(tests, runs, a.top, boots=boots)
    return 0


if __name__ == "__main__":
    sys.exit(main())
