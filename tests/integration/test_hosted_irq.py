"""The interrupt probes in the hosted build (build/hosted/baremetric), on this machine's CPU: signals
stand in for interrupts (hosted/irq_signal.c, hosted/irq_sources.c) — a POSIX timer on
CLOCK_MONOTONIC for the one-shot and periodic timer, tgkill of our own thread for the self-IPI,
sigsuspend for hlt, SIGTRAP/SIGILL for int3/ud2.

What the kernel guarantees is asserted exactly: a one-shot hrtimer never fires before its
CLOCK_MONOTONIC expiry and fires once, a tgkill'd signal is delivered once, a blocked signal
waits for the unblock — so every armed one-shot and self-signal is taken exactly once, none
early, none extra. A periodic POSIX timer does not queue expiries missed while the thread was
not running (the kernel counts them as overruns), so there taken <= periods elapsed is all that
holds on a shared machine. Latencies are checked for sign and a wide sanity band only. The
displacement and footprint methods are judged in their own tests; here only their structure, and
their checks may fail without failing this test (METHOD_CHECKS)."""

import os
import subprocess

import pytest

from bmharness.analysis import irq
from bmharness.stats import median
from conftest import HostedRun, check_nothing_lost, check_one_shot_arms

# Timing on this machine (signal latencies against a sanity band): run last, alone (conftest.py).
pytestmark = pytest.mark.timing

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BIN = os.path.join(ROOT, "build", "hosted", "baremetric")
TIMEOUT_S = 120
N_LAT, WARMUP, N_DISP, N_FP = 200, 16, 4, 8
# The footprint's structure only (its known answers: test_hosted_footprint.py): a series' first batch
# runs whole whatever the bound (configs.py _FP_MS), so the shortest bound; it was 5 s, and in make
# test's phase two the L2 series ran to it (this test 20.6 s there, 9.5 s on a quiet machine).
FP_MS = 1
PROBES = ("irq_latency", "irq_exception", "irq_displace", "irq_footprint")
ONESHOT, PERIODIC, SELF = "posix_timer_oneshot", "posix_timer_periodic", "tgkill_self"
ONE_SHOT_SETS = [(ONESHOT, w) for w in ("hlt", "spin", "l1d", "l2")] + [(SELF, w) for w in ("spin", "l1d", "l2")]
# Sanity band for a median latency, fixed before measuring: a signal cannot be delivered in less
# than 100 ns (at least one kernel entry and exit), and one that takes 5 ms is not working.
MEDIAN_NS_BAND = (100, 5e6)
MELTDOWN = "/sys/devices/system/cpu/vulnerabilities/meltdown"
# The displacement and footprint methods' own checks are judged in test_hosted_displace.py (under
# SCHED_FIFO, handlers sized for this VM) and test_hosted_footprint.py (its repetition bound).
# Here the process runs under the normal scheduler with the firmware's default handlers and FP_MS
# as the bound, where another runnable task preempting us at the timer signal is counted as delivery and
# the footprint's repetition may stop before it converges: with three busy loops beside the run,
# 9.8 M cycles of "delivery" for a 4 M-cycle handler, and an L2 footprint of 313 lines for 480 (not
# converged). Those checks then fail, and with them the run's status; any other failed check
# fails this test.
METHOD_CHECKS = {("irq_displace", "displace_vs_direct"), ("irq_displace", "delivery_constant"),
                 ("irq_footprint", "footprint_k")}
# Of those, the ones whose failure fails their probe and so the run (exit 1): the footprint's (a
# held-out footprint not recovered, bench/probes/irq/footprint.c). A failed displacement check is a
# finding about the machine, its probe still ok (bench/probes/irq/displace.c), so the run is too.
RUN_FAILING_CHECKS = {("irq_footprint", "footprint_k")}


@pytest.fixture(scope="module")
def hrun(tmp_path_factory):
    try:
        subprocess.run(["make", "-C", ROOT, "hosted"], capture_output=True, timeout=300, check=True)
    except (FileNotFoundError, subprocess.CalledProcessError) as e:
        pytest.fail("make hosted failed: %s" % e)
    out = str(tmp_path_factory.mktemp("hostedirq"))
    args = ["probes=" + ",".join(PROBES), "irq_samples=%d" % N_LAT, "irq_set_ms=20000", "irq_timeout_ms=2000",
            "irq_disp_samples=%d" % N_DISP, "irq_fp_samples=%d" % N_FP, "irq_fp_ms=%d" % FP_MS, "smp=0",
            "tsc_cal_windows=1", "tsc_cal_ms=50"]
    return HostedRun.start([BIN] + args, out, TIMEOUT_S)


def test_run_ok_and_facts(hrun):
    failed = [c for c in hrun.summary["checks"] if c["status"] == "fail"]
    others = [c for c in failed if (c.get("probe"), c["name"]) not in METHOD_CHECKS]
    assert not others, others
    fails_run = [c for c in failed if (c.get("probe"), c["name"]) in RUN_FAILING_CHECKS]
    assert hrun.rc == (1 if fails_run else 0), (failed, hrun.stderr[-2000:])
    assert hrun.summary["ok"], hrun.summary["validation"]["problems"]
    assert hrun.summary["end"]["status"] == ("fail" if fails_run else "ok") and hrun.summary["end"]["faults"] == 0
    f = hrun.plat("irq_hosted")
    assert f["ready"] == 1
    sigs = [f["sig_measure"], f["sig_guard"], f["sig_ipi"]]
    assert len(set(sigs)) == 3 and all(s >= 32 for s in sigs)   # real-time signals, one per vector
    assert f["hlt"] == "sigsuspend" and f["timer_clock"] == "CLOCK_MONOTONIC"
    assert f["clock_res_ns"] > 0 and f["stale_left"] == 0
    if os.path.exists(MELTDOWN):
        text = open(MELTDOWN).read().strip()
        assert f["meltdown"] == text and f["pti"] == int("PTI" in text)


def test_one_shot_and_self_signal_taken_exactly_once(hrun):
    hz = hrun.summary["platform"]["tsc"]["hz"]
    for src, wait in ONE_SHOT_SETS:
        (s,) = hrun.sets("irq_latency", source=src, wait=wait)
        p = s["params"]
        assert p["truncated_by_time"] == 0, (src, wait)
        assert s["n"] == N_LAT and s["complete"], (src, wait)
        check_one_shot_arms(p, N_LAT, WARMUP, (src, wait, p))
        check_nothing_lost(p, (src, wait))
        assert "lapic_mode" not in p   # no local APIC of ours hosted
        assert p["deadline"] == ("monotonic_abs_ratio" if src == ONESHOT else "send_tsc")
        vals = hrun.raw(s)
        assert len(vals) == N_LAT and min(vals) > 0
        lo, hi = MEDIAN_NS_BAND
        assert lo <= median(vals) / hz * 1e9 <= hi, (src, wait, median(vals))
        if wait == "hlt":
            assert p["guard"] == ONESHOT and p["guard_wakeups"] == 0


def test_periodic_timer(hrun):
    (s,) = hrun.sets("irq_latency", source=PERIODIC)
    p = s["params"]
    assert s["n"] == N_LAT and s["complete"] and p["deadline"] == "monotonic_grid"
    assert p["unexpected"] == 0 and p["spurious"] == 0 and p["extra"] == 0
    # missed expiries are counted by the kernel, not queued: never more than the periods elapsed
    assert N_LAT + WARMUP <= p["taken"] <= p["armed"] + 1
    delay = hrun.sets("irq_latency", source=ONESHOT, wait="spin")[0]["params"]["delay_cycles"]
    assert abs(p["period_cycles"] - 20 * delay) <= 0.001 * 20 * delay   # whole ns of 20 delays
    assert min(hrun.raw(s)) > 0


def test_unavailable_sources_skip_with_reason(hrun):
    skips = [k for k in hrun.summary["skips"] if k["probe"] == "irq_latency"]
    assert {k["source"] for k in skips} == {"tsc_deadline", "hpet"}
    assert len(skips) == 2, "one skip per source, not one per wait mode: %r" % skips
    assert all("hosted build" in k["reason"] for k in skips)
    names = {s["params"]["source"] for s in hrun.sets("irq_latency")}
    assert names == {ONESHOT, SELF, PERIODIC}


def test_masked_signal_waits_for_the_unmask(hrun):
    (s,) = hrun.sets("irq_masked")
    p = s["params"]
    assert p["source"] == ONESHOT and s["complete"]
    assert p["taken_masked"] == 0 and p["taken_after_unmask"] == 1
    assert p["arrived_after_deadline"] == 1 and p["lost"] == 0 and p["extra"] == 0
    assert p["masked_cycles"] > p["delay_cycles"]


def test_exceptions_resume(hrun):
    for kind in ("int3", "ud2"):
        (s,) = hrun.sets("irq_exception", kind=kind)
        assert s["n"] == N_LAT and s["complete"]
        assert min(hrun.raw(s)) > s["overhead"]
    assert hrun.summary["faults"] == []


def test_displacement_with_the_periodic_timer(hrun):
    sets = hrun.sets("irq_displace")
    assert sets and all(s["params"]["source"] == PERIODIC for s in sets)
    res = irq.analyse(hrun.summary, os.path.join(hrun.out_dir, "parsed"))
    rows = {r["handler"]: r for r in res["displace"]}
    assert rows
    for h in rows:
        (cnt,) = hrun.sets("irq_displace", what="count", handler=h)
        (direct,) = hrun.sets("irq_displace", what="direct", handler=h)
        (loaded,) = hrun.sets("irq_displace", what="loaded", handler=h)
        assert cnt["n"] == N_DISP
        assert direct["n"] == sum(hrun.raw(cnt)) > 0   # one direct sample per signal taken
        lp = loaded["params"]
        assert lp["unexpected"] == 0 and lp["spurious"] == 0 and lp["taken"] <= lp["armed"]
        assert min(hrun.raw(direct)) > 0


def test_footprint_with_the_self_signal(hrun):
    """The interrupt part (test_hosted_footprint.py: the calibration and its known answers): every
    interrupt set of both experiments and three variants, each sent interrupt taken, and every set
    with a handler carrying its raw and calibrated numbers with the curve's range."""
    fps = hrun.sets("irq_footprint", what="irq")
    assert fps
    assert all(s["params"]["source"] == SELF for s in fps)
    for s in fps:
        p = s["params"]
        assert p["not_taken"] == 0 and p["taken"] == (0 if p["variant"] == "idle" else s["n"] * p["best_of"]), p
        assert p["experiment"] in ("basic", "refined") and p["variant"] in ("idle", "k0", "kn")
        if p["variant"] != "idle":
            assert p["cal_status"] in ("ok", "saturated", "below_range", "negative", "no_effect")
            assert "mlines" in p and "ci_mlines" in p and "valid_max" in p
            if p["cal_status"] == "ok":
                assert p["k_ci_low_milli"] <= p["k_est_milli"] <= p["k_ci_high_milli"]
    levels = {s["params"]["level"] for s in fps}
    for level in levels:
        assert sorted((s["params"]["experiment"], s["params"]["variant"]) for s in fps
                      if s["params"]["level"] == level) == sorted(
            (e, v) for e in ("basic", "refined") for v in ("idle", "k0", "kn")), level


def test_cleanup_checks_pass(hrun):
    checks = [c for c in hrun.summary["checks"] if c["name"] == "irq_cleanup"]
    assert sorted(c["probe"] for c in checks) == sorted(PROBES)
    for c in checks:
        assert c["status"] == "pass" and c["left"] == 0 and c["in_service"] == 0, c
