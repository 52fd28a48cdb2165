"""The sampling profiler in the hosted build (build/hosted/baremetric) on this machine's CPU: one
run profiling `spin` and `membw_mc`, and one of `prof_split` alone with twice the samples, at the
default period (250 µs, given explicitly so the auto period cannot stretch it), on perf's task clock here (the VM shows Linux no PMU; a machine
with one samples cycles through perf). Checks the record invariants (x86_64/test_profile's), that
the source says why it is not the PMU, that image_base/build_id map the pcs into this very
binary (build id = readelf's), the known split (recovered within 2 points: the band fixed before
measuring), spin's samples (those of the measured region) >= 95% in arch_spin, and membw_mc's worker
thread (CPU 1, where the process may use two CPUs) sampling its own bandwidth kernels. prof_split
runs 160 samples of 25 ms: this VM's speed for the same loop swings up to twofold between a run's
calibration and its samples (measured, six runs: 10.8-19.8 cycles per iteration, 1.6-3.2 s for 80
samples, 5,671-11,816 profile samples; the CI run of one submission took 4,715), so 80 could fall
short of the 5,000 samples the 2-point band needs (3 standard errors at 30%). Symbols:
`nm` of the hosted binary. The split's known answer is derived on this machine in the same run:
30% of the loop's instructions are in arch_split_a, but a time profile recovers the share of
*time*, and identical loop bodies at other addresses need not run at the same speed (a Zen 5 guest
gave 35.7%); the probe times each function's part of every sample (sets what=time_a/time_b), and the
expected share is theirs: the median over the samples of each sample's own share t_a / (t_a + t_b)
(split_time_share: not the parts' sums, which a preempted part skews, nor the parts' separate
medians, which may come from samples the VM ran at other speeds), the timer overhead taken off each
part. Run under SCHED_FIFO where permitted: preemptions by other runnable
tasks bias the task-clock split (measured: 32-34% with two busy loops beside it, 30.0 +- 0.1
under SCHED_FIFO with the same load)."""

import os
import re
import subprocess

import pytest

from bmharness import stats
from conftest import ROOT, HostedRun, rt_prefix
from profile_checks import check_region, check_stream, function_symbols, prof_records, samples_by_function

# Timing on this machine (a time profile's known split): run last, alone (conftest.py).
pytestmark = pytest.mark.timing


BIN = os.path.join(ROOT, "build", "hosted", "baremetric")
TIMEOUT_S = 300
SPLIT_BAND_PCT = 2.0
SPLIT_MIN_SAMPLES = 5000
# spin's and membw_mc's run: 16 samples of 25 ms give ~2,300 spin samples (>= 100 needed) and
# ~3,400 on the worker's CPU (>= 50); 80 took 13.2 s of the timing phase on an Intel guest, 16 3.8 s.
SAMPLES = 16
SPLIT_SAMPLES = 160
MEMBW_KERNEL_PREFIXES = ("bw_", "arch_chase")
WORKER_MIN_SAMPLES = 50
TIME_SOURCES = ("task_clock", "cputime_timer")


def hosted_profile_run(tmp_path_factory, probes, samples):
    r = subprocess.run(["make", "-C", ROOT, "hosted"], capture_output=True, text=True, timeout=TIMEOUT_S)
    if r.returncode != 0:
        pytest.fail("make hosted failed:\n%s%s" % (r.stdout[-3000:], r.stderr[-3000:]))
    out = str(tmp_path_factory.mktemp("hosted_profile"))
    args = ["probes=" + probes, "profile=" + probes, "profile_period=250000",
            "samples=%d" % samples, "target_ns=25000000", "timer_samples=64"]
    # SCHED_FIFO where permitted (not pinned: membw_mc's worker needs the second CPU): another
    # runnable task's preemptions bias the task-clock profile (conftest.rt_prefix)
    prefix, _why = rt_prefix()
    return HostedRun.start((prefix or []) + [BIN] + args, out, TIMEOUT_S)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return hosted_profile_run(tmp_path_factory, "spin,membw_mc", SAMPLES)


@pytest.fixture(scope="module")
def split_run(tmp_path_factory):
    return hosted_profile_run(tmp_path_factory, "prof_split", SPLIT_SAMPLES)


def build_id_of(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True, check=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    assert m, "no build id note in %s" % path
    return m.group(1)


def profiled(run, probe):
    assert run.rc == 0 and run.summary["ok"], (run.rc, run.stderr[-2000:], run.summary["validation"])
    begin, ends, cost, data = prof_records(run, probe)
    check_stream(begin, ends, cost, data)
    b = begin[0]
    assert b["source"] in ("perf",) + TIME_SOURCES, b
    if b["source"] != "perf":
        # Not the counter: the record says why (and the CPU-time timer its tick resolution).
        assert b.get("fallback"), b
        assert b["events"] == "time" and b["unit"] == "ns", b
    assert b["build_id"] == build_id_of(BIN)
    assert int(b["image_size"]) > 0
    return b, data


def test_split_recovered_hosted(split_run):
    run = split_run
    b, data = profiled(run, "prof_split")
    if b["source"] == "cputime_timer":
        pytest.skip("only the CPU-time timer samples here: one sample per kernel tick is too few")
    by = samples_by_function(b, data, syms=function_symbols(BIN), image_only=True)
    a, bb = by.get("arch_split_a", 0), by.get("arch_split_b", 0)
    assert a + bb >= SPLIT_MIN_SAMPLES, by
    share = 100.0 * a / (a + bb)
    expected = split_time_share(run)
    assert abs(share - expected) <= SPLIT_BAND_PCT, (share, expected, by)
    assert run.sets("prof_split") and all(s["complete"] for s in run.sets("prof_split"))


def split_time_share(run):
    """arch_split_a's share of the loop's time in %, from the probe's per-part timings of the same
    samples (overhead = one timer read pair per part, as the probe record states): the median of
    the samples' own shares, t_a / (t_a + t_b) of each sample, the two parts of a sample run back
    to back. Not the sums of the parts: a part is wall time on the cycle counter, and a part during
    which the process did not run (preempted, or the VM's vCPU descheduled) is stretched up to 7.7x
    its median, while the task clock the profile samples stops then. Four fresh-clone make tests:
    the sums gave 28.69, 32.52, 32.00 and 30.58 (two outside the band) where the profile gave
    30.20, 30.04, 29.96 and 30.00. Not the parts' separate medians either (this test's estimate
    until 2026-11-30): this VM runs the same loop up to twice as fast or as slow from one sample to
    the next, and the two medians may come from samples of other speeds. Twelve runs of this test's
    options on an Intel Xeon guest (quiet): the separate medians 28.47-30.17, the samples' own
    shares' median 29.59-30.17, the profile 29.22-31.56; a make test there failed with the
    separate medians' 29.16 against the profile's 31.55."""
    parts = {}
    for what in ("time_a", "time_b"):
        sets = run.sets("prof_split", what=what)
        assert len(sets) == 1 and sets[0]["complete"], (what, sets)
        s = sets[0]
        overhead = int(s["overhead"])
        parts[what] = [max(v - overhead, 0) for v in run.raw(s)]
    pairs = [(a, b) for a, b in zip(parts["time_a"], parts["time_b"]) if a + b > 0]
    assert len(parts["time_a"]) == len(parts["time_b"]) == len(pairs), {k: len(v) for k, v in parts.items()}
    share = stats.median([a / (a + b) for a, b in pairs])
    assert 0 < share < 1, share
    return 100.0 * share


def test_spin_profile_hosted(run):
    """The profile is of the runner's timed windows: >= 95% arch_spin (a pc outside the binary
    counts against it), the samples outside the measured region counted apart."""
    b, data = profiled(run, "spin")
    begin, ends, cost, _ = prof_records(run, "spin")
    by, _outside = check_region(begin, ends, cost, data, lambda fn: fn == "arch_spin",
                                syms=function_symbols(BIN), image_only=True)
    assert sum(by.values()) >= 100, by
    assert run.sets("spin") and all(s["complete"] for s in run.sets("spin"))


def test_worker_cpu_samples_hosted(run):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("the process may use one CPU only: no worker thread")
    b, data = profiled(run, "membw_mc")
    assert int(b["cpus"]) >= 2, b
    by = samples_by_function(b, data, syms=function_symbols(BIN), cpu=1, image_only=True)
    total = sum(by.values())
    kernels = sum(n for fn, n in by.items() if fn and fn.startswith(MEMBW_KERNEL_PREFIXES))
    assert total >= WORKER_MIN_SAMPLES, by
    assert kernels > total / 2, by
