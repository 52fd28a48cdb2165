"""On this machine's real CPU (hosted build): the core clock the membw sets carry (a chain of
dependent register adds, 1 cycle each, timed beside every set: docs/methods/core_clock.md).

There is no independent known answer for the core clock in a guest: Linux's perf sees no PMU
there, cpufreq is absent, and /proc/cpuinfo's "MHz" is the TSC's rate, not the core's. So the
checks here are the ones that hold on any Zen 3/4/5 (and any Intel core of the limits table),
with bands fixed before they were first measured:

- the clock is a plausible one: within PLAUSIBLE_HZ (every Zen 3/4/5 part's clock lies within it:
  the lowest base clocks are above 1.5 GHz, the highest boost 5.7 GHz);
- the clock beside a set is one clock: the median timing's clock within SPREAD of the slowest
  timing's in most sets (a preempted timing is an outlier, not the rule). The run is under
  SCHED_FIFO where permitted (conftest.rt_prefix), so no other task of the guest preempts a
  timing. A guest's host still does: on an Intel Xeon guest (2026-11-30) 62-89 of 120 sets were
  within 5% in four quiet plain runs, 83-104 under SCHED_FIFO, against the 90 needed; the
  timings are ~10 us each, eight a set. In a guest a shortfall is therefore an expected failure
  that names the count (as the hosted displacement and cache tests treat the host's doing); on
  bare metal it fails.

A cross-check planned with them failed and was dropped: that the spin probe's dec/jnz loop takes
0.95-1.05 core cycles per iteration by this clock. Its first run measured 1.95 (spin 1.58 TSC
ticks per iteration, add chain 3.03 GHz, TSC 2.445 GHz): on this Zen 3 guest the loop takes two
cycles, so it is no 1-cycle yardstick. That the add chain is (and the clock not half of it): a
throwaway chain of dependent imul (3 cycles each, Agner Fog's tables) took 2.98-3.06x the time
per instruction of the add chain, where adds at 2 per cycle would give 6x."""

import os
import subprocess

import pytest

from conftest import ROOT, in_guest, rt_prefix, xfail_in_guest
from bmharness import stats
from bmharness.analysis import core_clock
from bmharness.stream import parse

# Timing on this machine (the core clock's spread): run last, alone (conftest.py).
pytestmark = pytest.mark.timing

BIN = os.path.join(ROOT, "build", "hosted", "baremetric")
PLAUSIBLE_HZ = (0.8e9, 6.5e9)
SPREAD = 0.05                     # median vs slowest timing's clock, relative
QUIET_SHARE = 0.75                # of the sets whose timings agree within SPREAD


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    if not os.path.exists(BIN):
        pytest.fail("%s missing: run `make hosted` (make integration does)" % BIN)
    out = tmp_path_factory.mktemp("core_clock")
    log = out / "hosted.log"
    prefix, _why = rt_prefix()   # without the permission: a plain run (the program pins itself)
    with open(log, "wb") as fh:
        subprocess.run((prefix or []) + [BIN, "probes=membw", "samples=9", "mem_kernels=read",
                                         "mem_min_kb=16", "mem_max_mb=1"], stdout=fh, check=True, timeout=600)
    summary = parse.parse_log(str(log), str(out / "parsed"))
    assert summary["ok"], summary["validation"]
    return summary, str(out / "parsed")


def _clocks(summary, out_dir):
    sets = [s for s in summary["sets"] if s["name"] == "membw"]
    assert sets
    return [core_clock.set_clock(s, s["tsc_hz"], out_dir) for s in sets]


def test_every_membw_set_has_its_clock(run):
    summary, out_dir = run
    for s in (s for s in summary["sets"] if s["name"] == "membw"):
        p = s["params"]
        assert p["core_clock"] == "add_chain"
        assert p["core_clock_cycles"] > 0
        assert p["core_clock_ticks_lo"] <= p["core_clock_ticks_med"] <= p["core_clock_ticks_hi"]
    assert all(_clocks(summary, out_dir))


def test_clock_is_plausible_and_steady(run):
    clocks = _clocks(*run)
    med = stats.median(c["hz"] for c in clocks)
    assert PLAUSIBLE_HZ[0] <= med <= PLAUSIBLE_HZ[1], "core clock %.3f GHz" % (med / 1e9)
    quiet = [c for c in clocks if c["hz"] - c["lo_hz"] <= SPREAD * c["hz"]]
    what = "%d of %d sets with their clock's timings within %.0f%%" % (len(quiet), len(clocks), 100 * SPREAD)
    xfail_in_guest(len(quiet) < QUIET_SHARE * len(clocks),
                   "in a guest, whose host interrupts the ~10 us timings: " + what)
    assert len(quiet) >= QUIET_SHARE * len(clocks), what


# The load reference beside the chain (docs/methods/shared_core.md): independent 8-byte L1 loads.
# Known answer from the vendors' numbers, not from this VM: per core cycle no more loads than the
# CPU's limits row gives for scalar loads (its load ports), whatever the host; a shared core only
# lowers it. REF_SLACK: the chain's and the reference's own timing jitter.
REF_SLACK = 1.10
SIBLING_DROP = 0.90   # with a sibling thread reading L1 at full speed: below this of alone


def _refs(summary):
    return [core_clock.load_ref(s["params"], s.get("overhead"))
            for s in summary["sets"] if s["name"] == "membw"]


def test_load_ref_at_most_the_cpus_loads_per_cycle(run):
    from bmharness.analysis import limits, shared_core
    summary, _ = run
    refs = _refs(summary)
    assert refs and all(r and r["loads_per_cycle"] > 0 for r in refs), refs
    med = stats.median(r["loads_per_cycle"] for r in refs)
    cpu = (summary.get("platform") or {}).get("cpu") or {}
    cpu = cpu[0] if isinstance(cpu, list) else cpu
    row = limits.lookup(cpu)
    if row is None:
        pytest.skip("no limits row for this CPU: no vendor count of its loads per cycle "
                    "(measured %.2f loads per chain cycle)" % med)
    top = shared_core.scalar_loads(row)
    assert med <= REF_SLACK * top, "%.2f loads per cycle, %s's row allows %g" % (
        med, row["name"], top)


def _sibling(cpu):
    """Another logical CPU Linux lists as this one's SMT sibling, or None."""
    try:
        with open("/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list" % cpu) as fh:
            text = fh.read().strip()
    except OSError:
        return None
    ids = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        ids.update(range(int(lo), int(hi or lo) + 1))
    ids.discard(cpu)
    allowed = os.sched_getaffinity(0)
    return next((c for c in sorted(ids) if c in allowed), None)


def _ref_median(out, env):
    log = out / "ref.log"
    with open(log, "wb") as fh:
        subprocess.run([BIN, "probes=membw", "samples=9", "mem_kernels=read", "mem_min_kb=16",
                        "mem_max_mb=1"], stdout=fh, check=True, timeout=600, env=env)
    summary = parse.parse_log(str(log), str(out / "parsed"))
    return stats.median(r["loads_per_cycle"] for r in _refs(summary) if r)


def test_sibling_thread_lowers_the_load_ref(tmp_path):
    """Where Linux names an SMT sibling of the CPU the run is pinned to, on bare metal: the load
    reference alone, then with another copy of the L1 read sweep running on the sibling, must
    drop (the ports are shared between the two threads: Intel ORM, AMD SOG), while a guest's
    topology is the hypervisor's word, not the core's, so a guest skips."""
    if not os.path.exists(BIN):
        pytest.fail("%s missing: run `make hosted`" % BIN)
    if in_guest():
        pytest.skip("a guest: the sibling Linux lists need not be the same core's other thread")
    cpu = max(os.sched_getaffinity(0))
    sib = _sibling(cpu)
    if sib is None:
        pytest.skip("no SMT sibling of CPU %d visible to Linux" % cpu)
    env = dict(os.environ, BAREMETRIC_CPU=str(cpu))
    (tmp_path / "alone").mkdir()
    alone = _ref_median(tmp_path / "alone", env)
    rival = subprocess.Popen(
        ["sh", "-c", "while :; do \"$0\" probes=membw mem_kernels=read mem_min_kb=4 "
         "mem_max_mb=1 samples=64 >/dev/null 2>&1; done", BIN],
        env=dict(os.environ, BAREMETRIC_CPU=str(sib)), start_new_session=True)
    try:
        (tmp_path / "shared").mkdir()
        shared = _ref_median(tmp_path / "shared", env)
    finally:
        os.killpg(rival.pid, 15)
        rival.wait()
    assert shared < SIBLING_DROP * alone, \
        "load reference %.2f loads/cycle with a sibling reading L1, %.2f alone" % (shared, alone)
