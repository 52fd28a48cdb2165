"""Benchmark (not a timed unit test): the L1 read plateau in bytes per core cycle against the CPU's
load limit (harness/bmharness/analysis/limits.py), as the report states it. Prints the CPU's row,
the core clock, the plateau and the ratio, and beside them the spread over the plateau's sets and
the load reference (independent L1 loads per add-chain cycle against the CPU's scalar loads per
cycle: docs/methods/shared_core.md) with the verdict of analysis/shared_core.py: a run whose
reference dropped while the chain clock held had its core shared (a sibling thread, another
tenant), and its ratio is not the machine's. The target is a ratio within TARGET of 1 (on a Zen 5
with AVX-512: about 128 B/cycle of 2 x 64 B).

    /usr/bin/python3 tests/perf/l1_per_cycle.py [--runs N] [LOG...]

Without LOG it runs the hosted build (build/hosted/baremetric) on read kernels over L1-resident
sizes, pinned as the hosted build pins (BAREMETRIC_CPU), and runs it again while the verdict
flags the run, up to N runs in all (default 3); with LOGs (firmware serial logs or hosted
stdouts) it judges those. The last lines give every run's ratio and their spread. Exit status 0
when the median ratio of the unflagged runs is within TARGET, 1 outside it, 2 when there is
nothing to judge (no L1 read plateau, no core clock, or no row for the CPU), 3 when every run was
flagged (no steady figure: the ratios are the moment's, not the machine's).
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path[:0] = [os.path.join(ROOT, "harness")]

from bmharness import stats  # noqa: E402
from bmharness.analysis import headline, memory  # noqa: E402
from bmharness.stream import parse  # noqa: E402

TARGET = 0.05                      # |B/cycle / limit - 1|
RUNS = 3                           # runs in all at most, repeating while flagged
BIN = os.path.join(ROOT, "build", "hosted", "baremetric")
ARGS = ["probes=membw", "mem_kernels=read", "mem_min_kb=4", "mem_max_mb=1", "samples=16"]


def _g(x, fmt="%.2f"):
    return fmt % x if x is not None else "-"


def judge(log, out_dir):
    """Print one run's figures; returns (ratio or None, sets verdict or None, status 0/1/2)."""
    summary = parse.parse_log(log, out_dir)
    mem = memory.analyse(summary, out_dir)
    lv = headline.memory_levels(mem)
    l1 = (lv.get("levels") or [{}])[0]
    rd = l1.get("read")
    lim = lv.get("limits") or {}
    print("cpu row: %s" % (lim.get("cpu") or "none (limit unknown)"))
    if not rd or rd.get("bytes_per_cycle") is None:
        print("no L1 read plateau with a core clock")
        return None, None, 2
    print("L1 read plateau: %s at %d B, %.1f GB/s (CI %.1f-%.1f)" % (
        rd["curve"], rd["size_bytes"], rd["gbps"], rd["ci_lo_gbps"] or 0, rd["ci_hi_gbps"] or 0))
    print("core clock: %.3f GHz (%.3f-%.3f, %s)" % (rd["core_hz"] / 1e9, rd["core_hz_lo"] / 1e9,
                                                   rd["core_hz_hi"] / 1e9, rd["core_clock_source"]))
    sets = rd.get("sets") or {}
    print("over the plateau's %d sets: %s-%s B/cycle (%s-%s of the limit), core clock %s-%s GHz"
          % (sets.get("n", 0), _g(sets.get("bytes_per_cycle_lo"), "%.1f"),
             _g(sets.get("bytes_per_cycle_hi"), "%.1f"), _g(sets.get("fraction_lo")),
             _g(sets.get("fraction_hi")), _g((sets.get("clock_lo_hz") or 0) / 1e9 or None, "%.3f"),
             _g((sets.get("clock_hi_hz") or 0) / 1e9 or None, "%.3f")))
    if sets.get("ref_per_cycle") is not None:
        print("load reference: %.2f loads/cycle (%.2f-%.2f over the sets) of the CPU's %s" % (
            sets["ref_per_cycle"], sets["ref_lo_per_cycle"], sets["ref_hi_per_cycle"],
            _g(sets.get("ref_limit_per_cycle"), "%g")))
    else:
        print("load reference: none in these records (an older build)")
    print("verdict: %s" % ("steady" if sets.get("ok", True) else "NOT steady (%s): %s" % (
        "likely " + sets["cause"] if sets.get("cause") else "cause unknown",
        "; ".join(sets.get("flags") or []))))
    li = rd.get("limit")
    if not li:
        print("L1 read %.1f B/cycle, limit unknown" % rd["bytes_per_cycle"])
        return None, sets, 2
    ratio = li["fraction"]
    print("L1 read %.1f B/cycle = %.3f of %s (%g B/cycle); target within %.0f%%: %s" % (
        rd["bytes_per_cycle"], ratio, li["text"], li["bpc"], 100 * TARGET,
        "yes" if abs(ratio - 1) <= TARGET else "NO"))
    return ratio, sets, 0 if abs(ratio - 1) <= TARGET else 1


def summarise(results):
    """The runs' ratios, their spread and the exit status (see the top of this file)."""
    ratios = [(r, s) for r, s, _ in results if r is not None]
    if not ratios:
        return max(st for _, _, st in results) if results else 2
    steady = sorted(r for r, s in ratios if (s or {}).get("ok", True))
    print("runs: %s" % ", ".join("%.3f%s" % (r, "" if (s or {}).get("ok", True) else "*")
                                 for r, s in ratios))
    allr = sorted(r for r, _ in ratios)
    print("spread over %d run(s): %.3f-%.3f of the limit (* = flagged: not the machine's figure)"
          % (len(allr), allr[0], allr[-1]))
    if not steady:
        print("every run flagged: no steady figure")
        return 3
    med = stats.median(steady)
    print("median of the %d steady run(s): %.3f" % (len(steady), med))
    return 0 if abs(med - 1) <= TARGET else 1


def main(argv):
    args, runs = list(argv[1:]), RUNS
    if args[:1] == ["--runs"] and len(args) > 1:
        runs, args = max(1, int(args[1])), args[2:]
    results = []
    with tempfile.TemporaryDirectory(prefix="l1_per_cycle") as tmp:
        logs = args or [None] * runs
        for i, log in enumerate(logs):
            print("== run %d%s" % (i + 1, ": " + log if log else ""))
            if log is None:
                log = os.path.join(tmp, "hosted%d.log" % i)
                with open(log, "wb") as fh:
                    subprocess.run([BIN] + ARGS, stdout=fh, check=True)
            results.append(judge(log, os.path.join(tmp, "parsed%d" % i)))
            if not args and (results[-1][1] or {}).get("ok", True):
                break  # a steady run: no repeat needed
    return summarise(results)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
