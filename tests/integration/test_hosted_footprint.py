"""The footprint method on real caches: the hosted build runs irq_footprint's calibration (direct
calls of handlers of known footprint K, no interrupt needed) on this machine's CPU and judges
held-out K values through the level's response curve. Known-answer tests: every `footprint_k`
check of L1D and L2 must be pass, saturated, below_range or imprecise (never fail; imprecise only
where the repetition hit its time bound and the CI still reaches into the band), and each level
must have at least one pass (a curve that resolves nothing proves nothing). The ±20% band is the firmware's
(FP_TOL_PCT) and is asserted here as a number, not widened.

In a guest, an L2 (or a level past it) whose held-out K inside its curve all stopped imprecise at the
repetition bound, none passing and none failing, is an expected failure naming them (judge_level).

A level is skipped only where the probe itself found no cache effect (its skip record, with the
measured per-line cost as the reason). Cache numbers are disturbed by other processes: the
program pins itself (BAREMETRIC_CPU), keeps the fastest of three rounds per repetition and
trims outliers; irq_fp_ms (FP_MS) bounds a repetition that does not reach the paper's bound.
Both runs leave the interrupt experiments out (irq_fp_irq=0): their records' structure is asserted
in test_hosted_irq.py, on a run with the self-signal."""

import os
import subprocess

import pytest

from bmharness.stream import parse
from conftest import xfail_in_guest

# Timing on this machine (cache footprints, which a busy neighbour moves): run last, alone (conftest.py).
pytestmark = pytest.mark.timing

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BIN = os.path.join(ROOT, "build", "hosted", "baremetric")
TIMEOUT_S = 600
# Per level and series, the bound of the repetition; a converged series stops earlier (~3 s a run
# here, quiet). It was 20 s while these tests ran beside the boots; now they run alone, and a series
# that has not converged in a few hundred repetitions rarely does (it ran to 20 s, 5-50 s a test,
# in make test's phase two). 8 s with a busy loop on the other CPU (2026-11-29, 6 default and 5
# OTHER_K runs): every check pass, saturated or below_range, 3.7-13.7 s a run; at 20 s the same
# load gave a 49.9 s run.
FP_MS = 8000
TOL_PCT = 20            # the published band, FP_TOL_PCT in bench/stats/footprint.h
HELD_64THS = (5, 12, 24, 72)   # the default held-out K, 64ths of the chain (bench/probes/irq/footprint_calib.c)
LEVELS = ((1, "data"), (2, "unified"))
STATUSES = {"pass", "fail", "saturated", "below_range", "imprecise"}
# Other held-out K than the default: sized for both levels of any current x86 (L1D 32-48 KiB,
# L2 0.5-2 MiB); each level judges the ones inside its curve and says saturated/below_range else.
OTHER_K = "60,240,2000,5000"


def run_hosted(tmp_path, *args):
    if not os.access(BIN, os.X_OK):
        pytest.fail("%s is missing: run `make hosted`" % BIN)
    env = dict(os.environ)
    env.setdefault("BAREMETRIC_CPU", str(os.cpu_count() - 1 if os.cpu_count() else 0))
    r = subprocess.run([BIN, "probes=irq_footprint", "irq_fp_ms=%d" % FP_MS] + list(args),
                       capture_output=True, timeout=TIMEOUT_S, env=env)
    log = tmp_path / "hosted.log"
    log.write_bytes(r.stdout)
    summary = parse.parse_log(str(log), str(tmp_path))
    assert summary["ok"], summary["validation"]["problems"]
    return r, summary


def level_sets(summary, level, ctype=None):
    return [s for s in summary["sets"] if s["name"] == "irq_footprint" and s["params"].get("level") == level
            and ctype in (None, s["params"].get("type"))]


def judge_level(summary, level, ctype, expect_k=None):
    """Assert the level's curve and checks; returns its checks, or skips with the probe's reason."""
    no_effect = [k for k in summary["skips"] if k.get("probe") == "irq_footprint"
                 and k.get("check") == "footprint_k" and k.get("level") == level and k.get("type") == ctype]
    if no_effect:
        pytest.skip("L%d: %s (cost_mcyc=%s)" % (level, no_effect[0]["reason"], no_effect[0].get("cost_mcyc")))
    sets = level_sets(summary, level, ctype)
    (cold,) = [s for s in sets if s["params"]["what"] == "cold"]
    p = cold["params"]
    assert p["type"] == ctype and p["effect"] == 1
    assert p["retouch"] == "reverse" and p["prefetchers"] == "on" and p["prefetchers_changed"] == 0
    if p["method"] == "pmu":   # misses counted: one miss is one line, a cold re-touch misses them all
        assert p["event"] and p["demand_only"] in (0, 1) and cold["unit"] == "misses"
        assert p["cold_mpl_milli"] >= 500
    else:                      # timed; the miss counter's skip names the set it went without
        assert p["method"] == "time" and p["cost_mcyc"] > 0 and cold["unit"] == "cycles"
        assert [k for k in summary["skips"] if k.get("probe") == "irq_footprint"
                and k.get("ctr_set") == p["ctr_skipped"]], p
    calib = sorted((s["params"]["k"], s["params"]["mlines"]) for s in sets if s["params"]["what"] == "calib")
    ks = [k for k, _ in calib]
    assert ks[0] == 0 and calib[0][1] == 0 and ks == sorted(set(ks)) and len(ks) >= 5
    assert ks[-1] > p["nodes"], "the grid must reach past the level's lines (saturation)"
    assert p["valid_min"] in ks[1:] and p["valid_min"] <= p["valid_max"] <= ks[-1]
    # inside the calibrated range every segment rises by the stated slope (it was chosen so)
    inside = [(k, m) for k, m in calib if p["valid_min"] <= k <= p["valid_max"]]
    assert p["min_slope_milli"] >= 100
    assert all((m1 - m0) // (k1 - k0) >= p["min_slope_milli"]
               for (k0, m0), (k1, m1) in zip(inside, inside[1:])), calib
    checks = [c for c in summary["checks"] if c["name"] == "footprint_k" and c["level"] == level
              and c["type"] == ctype]
    if expect_k is not None:
        assert sorted(c["k"] for c in checks) == sorted(expect_k)
    for c in checks:
        assert c["status"] in STATUSES and c["expected"] == c["k"] and c["tol_pct"] == TOL_PCT, c
        assert c["valid_max"] == p["valid_max"] and c["valid_min"] == p["valid_min"]
        if c["k"] > p["valid_max"]:
            assert c["status"] in ("saturated", "fail"), c
        if c["k"] < p["valid_min"]:
            assert c["status"] == "below_range" and c["measured"] == "below_range", c
        if c["status"] == "pass":
            assert abs(c["measured"] - c["k"]) * 100 <= c["k"] * TOL_PCT, c
            assert c["ci_low"] <= c["measured"] <= c["ci_high"], c
        if c["status"] in ("saturated", "below_range"):
            assert c["measured"] == c["status"], c   # never a number outside the range
        if c["status"] == "imprecise":               # only when the time bound stopped the series
            assert c["converged"] == 0, c
            if c["measured"] in ("saturated", "below_range"):
                assert "ci_low" not in c, c              # outside the range: no number, no interval
            else:
                assert c["ci_low"] <= c["k"] * (100 + TOL_PCT) / 100, c
    bad = [c for c in checks if c["status"] == "fail"]
    assert not bad, "held-out K not recovered within +-%d%% at L%d: %s; curve %s" % (TOL_PCT, level, bad, calib)
    unresolved = [c for c in checks if c["status"] == "imprecise"]
    # A guest's L2 is physically indexed over pages its host placed: its response ramps
    # unevenly and its series are noisy (test_hosted_caches.py). On an Intel guest with a 2 MiB
    # L2 a series gets ~80-100 repetitions in FP_MS, and in one make test of six (2026-11-30)
    # both held-out K inside the L2's curve stopped there imprecise: no K contradicted, none
    # resolved. An expected failure there, naming them; on bare metal a failure.
    xfail_in_guest(not any(c["status"] == "pass" for c in checks) and unresolved and level >= 2,
                   "L%d in a guest: no held-out K resolved within the repetition bound: %s; curve %s" % (
                       level, [(c["k"], c.get("ci_low"), c.get("ci_high")) for c in unresolved], calib))
    assert any(c["status"] == "pass" for c in checks), "no held-out K inside L%d's curve: %s" % (level, calib)
    return checks


def run_calibration(tmp_path, *args):
    """The calibration alone (irq_fp_irq=0): the interrupt experiments' structure is
    test_hosted_irq.py's, at the shortest bound; here their series would only run to FP_MS (a
    2 MiB L2 on an Intel guest: 16 s of a 25 s run)."""
    r, summary = run_hosted(tmp_path, "irq_fp_irq=0", *args)
    (part,) = [k for k in summary["skips"] if k.get("probe") == "irq_footprint" and k.get("part") == "interrupt"]
    assert "irq_fp_irq=0" in part["reason"], part
    assert not [s for s in summary["sets"] if s["name"] == "irq_footprint" and s["params"]["what"] == "irq"]
    return r, summary


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    subprocess.run(["make", "-C", ROOT, "hosted"], capture_output=True, timeout=TIMEOUT_S)
    return run_calibration(tmp_path_factory.mktemp("fp_default"))


@pytest.mark.parametrize("level,ctype", LEVELS)
def test_default_held_out_k_recovered(default_run, level, ctype):
    r, summary = default_run
    nodes = [s for s in level_sets(summary, level, ctype) if s["params"]["what"] == "cold"]
    expect = [nodes[0]["params"]["nodes"] * f // 64 for f in HELD_64THS] if nodes else None
    judge_level(summary, level, ctype, expect)


def test_other_held_out_k_recovered(tmp_path):
    r, summary = run_calibration(tmp_path, "irq_fp_k=" + OTHER_K)
    want = [int(k) for k in OTHER_K.split(",")]
    for level, ctype in LEVELS:
        judge_level(summary, level, ctype, want)
