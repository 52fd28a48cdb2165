#!/bin/sh
# Our hosted timer latency with a sleeping wait against cyclictest (Debian rt-tests), on the same
# CPU, in one run; prints min / median / p99 of both in µs and the ratio of the medians.
#
#   cyclictest: one thread, clock_nanosleep(TIMER_ABSTIME) to the next point of an INTERVAL_US
#     grid, latency = clock_gettime after the wake-up - that point (per-sample values with -v -N);
#   ours: irq_latency's posix_timer_oneshot/hlt set: a POSIX timer armed INTERVAL_US ahead, the
#     thread asleep in sigsuspend, latency = TSC at the signal handler's first instruction - the
#     deadline (hosted/irq_sources.c).
# Both use the kernel's hrtimers; see docs/hosted.md for what each includes.
#
# Usage: tests/perf/irq_vs_cyclictest.sh [OUT_DIR]
#   CPU=n (default: the last allowed CPU), N=samples (default 2000), INTERVAL_US (default 1000),
#   PRIO (default 80 as root, else 0): cyclictest -p PRIO, and ours under chrt -f PRIO when > 0,
#   so both wake up with the same scheduling policy. Installs rt-tests when run as root.
set -eu
cd "$(dirname "$0")/../.."
out="${1:-results/perf-irq-$(date -u +%Y%m%d-%H%M%S)}"
mkdir -p "$out"
PY=/usr/bin/python3
N="${N:-2000}"
INTERVAL_US="${INTERVAL_US:-1000}"
CPU="${CPU:-$($PY -c 'import os; print(max(os.sched_getaffinity(0)))')}"
export CPU
if [ "$(id -u)" -eq 0 ]; then PRIO="${PRIO:-80}"; else PRIO="${PRIO:-0}"; fi

if ! command -v cyclictest >/dev/null 2>&1; then
	if [ "$(id -u)" -eq 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rt-tests >/dev/null
	else
		echo "cyclictest missing: apt-get install rt-tests" >&2
		exit 1
	fi
fi
make -s hosted

# cyclictest: -m locks memory (ours does too), -N ns, -v one line per sample ("thread: loop: ns").
# It holds /dev/cpu_dma_latency at 0 while it runs; ours runs under the same constraint below.
cyclictest -t1 -p "$PRIO" -i "$INTERVAL_US" -l "$N" -a "$CPU" -m -q -N -v >"$out/cyclictest.txt" 2>&1

# Ours: the same CPU, the same sleep length and policy. irq_latency runs all its sets; each is
# capped at 1.5 x N intervals (only the periodic set, period 20 intervals, reaches the cap).
set_ms=$((N * INTERVAL_US * 3 / 2 / 1000 + 100))
chrt_cmd=""
[ "$PRIO" -gt 0 ] && chrt_cmd="chrt -f $PRIO"
$PY - "$out/hosted.log" $chrt_cmd build/hosted/baremetric probes=irq_latency irq_samples="$N" \
	irq_delay_us="$INTERVAL_US" irq_set_ms="$set_ms" smp=0 <<'PYEOF'
import os, struct, subprocess, sys
log, cmd = sys.argv[1], sys.argv[2:]
qos = None
try:  # the PM QoS request cyclictest makes, held for our run too (released when we close it)
    qos = open("/dev/cpu_dma_latency", "wb", buffering=0)
    qos.write(struct.pack("i", 0))
except OSError:
    pass
with open(log, "wb") as fh, open(log + ".stderr", "wb") as err:
    rc = subprocess.run(cmd, stdout=fh, stderr=err, env=dict(os.environ, BAREMETRIC_CPU=os.environ["CPU"])).returncode
sys.exit(rc)
PYEOF
$PY harness/baremetric parse "$out/hosted.log" --out "$out/hosted" >/dev/null

PYTHONPATH=harness $PY - "$out" "$PRIO" "$CPU" "$INTERVAL_US" <<'PYEOF'
import json, os, re, sys
out, prio, cpu, interval = sys.argv[1:5]
from bmharness.stream import parse


def q(vals, p):
    """Order statistic: the smallest value with at least p of the samples at or below it."""
    v = sorted(vals)
    return v[max(0, min(len(v) - 1, -(-len(v) * p // 100) - 1))]


cyc = [int(m.group(1)) / 1000.0 for m in re.finditer(r"^\s*0:\s*\d+:\s*(\d+)\s*$",
                                                     open(out + "/cyclictest.txt").read(), re.M)]
summary = json.load(open(out + "/hosted/summary.json"))
hz = summary["platform"]["tsc"]["hz"]
(s,) = [s for s in summary["sets"] if s["name"] == "irq_latency"
        and s["params"].get("source") == "posix_timer_oneshot" and s["params"].get("wait") == "hlt"]
ours = [c / hz * 1e6 for c in parse.read_raw(os.path.join(out, "hosted", s["raw_file"]))[1]]
if not cyc or not ours:
    sys.exit("no samples: cyclictest %d, ours %d" % (len(cyc), len(ours)))
p = s["params"]
print("CPU %s, interval %s us, priority %s (%s)" % (cpu, interval, prio,
      "SCHED_FIFO" if int(prio) else "SCHED_OTHER"))
print("%-34s %7s %9s %9s %9s" % ("", "N", "min us", "median", "p99"))
for name, v in (("cyclictest (clock_nanosleep)", cyc), ("ours (posix timer, sigsuspend)", ours)):
    print("%-34s %7d %9.2f %9.2f %9.2f" % (name, len(v), min(v), q(v, 50), q(v, 99)))
print("ratio of medians ours/cyclictest: %.3f" % (q(ours, 50) / q(cyc, 50)))
print("ours: armed %s taken %s lost %s early %s extra %s" % tuple(p.get(k) for k in
      ("armed", "taken", "lost", "early", "extra")))
PYEOF
echo "results in $out"
