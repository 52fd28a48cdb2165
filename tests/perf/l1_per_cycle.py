"""Benchmark (not a timed unit test): the L1 read plateau in bytes per core cycle against the CPU's
load limit (harness/bmharness/analysis/limits.py), as the report states it. Prints the CPU's row,
the core clock, the plateau and the ratio; the target is a ratio within TARGET of 1 (on a Zen 5
with AVX-512: about 128 B/cycle of 2 x 64 B).

    /usr/bin/python3 tests/perf/l1_per_cycle.py [LOG]

Without LOG it runs the hosted build (build/hosted/baremetric) on read kernels over L1-resident
sizes, pinned as the hosted build pins (BAREMETRIC_CPU); with LOG (a firmware boot's serial log,
or a hosted run's stdout) it judges that run's sets. Exit status 0 within TARGET, 1 outside it,
2 when there is nothing to judge (no L1 read plateau, no core clock, or no row for the CPU).
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path[:0] = [os.path.join(ROOT, "harness")]

from bmharness.analysis import headline, memory  # noqa: E402
from bmharness.stream import parse  # noqa: E402

TARGET = 0.05                      # |B/cycle / limit - 1|
BIN = os.path.join(ROOT, "build", "hosted", "baremetric")
ARGS = ["probes=membw", "mem_kernels=read", "mem_min_kb=4", "mem_max_mb=1", "samples=16"]


def judge(log, out_dir):
    summary = parse.parse_log(log, out_dir)
    mem = memory.analyse(summary, out_dir)
    lv = headline.memory_levels(mem)
    l1 = (lv.get("levels") or [{}])[0]
    rd = l1.get("read")
    lim = lv.get("limits") or {}
    print("cpu row: %s" % (lim.get("cpu") or "none (limit unknown)"))
    if not rd or rd.get("bytes_per_cycle") is None:
        print("no L1 read plateau with a core clock")
        return 2
    print("L1 read plateau: %s at %d B, %.1f GB/s (CI %.1f-%.1f)" % (
        rd["curve"], rd["size_bytes"], rd["gbps"], rd["ci_lo_gbps"] or 0, rd["ci_hi_gbps"] or 0))
    print("core clock: %.3f GHz (%.3f-%.3f, %s)" % (rd["core_hz"] / 1e9, rd["core_hz_lo"] / 1e9,
                                                   rd["core_hz_hi"] / 1e9, rd["core_clock_source"]))
    li = rd.get("limit")
    if not li:
        print("L1 read %.1f B/cycle, limit unknown" % rd["bytes_per_cycle"])
        return 2
    ratio = li["fraction"]
    print("L1 read %.1f B/cycle = %.3f of %s (%g B/cycle); target within %.0f%%: %s" % (
        rd["bytes_per_cycle"], ratio, li["text"], li["bpc"], 100 * TARGET,
        "yes" if abs(ratio - 1) <= TARGET else "NO"))
    return 0 if abs(ratio - 1) <= TARGET else 1


def main(argv):
    with tempfile.TemporaryDirectory(prefix="l1_per_cycle") as tmp:
        log = argv[1] if len(argv) > 1 else os.path.join(tmp, "hosted.log")
        if len(argv) <= 1:
            with open(log, "wb") as fh:
                subprocess.run([BIN] + ARGS, stdout=fh, check=True)
        return judge(log, os.path.join(tmp, "parsed"))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
