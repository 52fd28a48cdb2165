"""irq_footprint under QEMU + OVMF (TCG): the calibration, the held-out checks and the basic and
refined interrupt experiments all run and say what they are. TCG models no caches (what a lap's
timing shows is the host's emulation), so the footprint_k checks must be skips carrying the
measured per-line cost, never pass or fail, and the series stop after one batch. TCG has no PMU:
every set is timed (method=time) and names the miss-counter set it went without (ctr_skipped),
with one counter skip per counter set and reason. Asserted: structure, counts, that every
interrupt was confirmed pending and taken exactly once, the skips, the report, and the time the
probe takes with small settings."""

import os

import pytest

from bmharness.analysis import footprint, irq
from bmharness.report import report

from configs import CONFIGS, work_list  # the boot configurations (configs.py)

OPTS = CONFIGS["fpb"].options
N = OPTS["irq_fp_samples"]
HELD = work_list(OPTS["irq_fp_k"])
BEST_OF = 3            # FP_BEST_OF in bench/probes/irq/footprint_calib.h
PROBE_S = 20           # the probe's share of the boot, with these settings


def fp_sets(b, **params):
    return [s for s in b.summary["sets"] if s["name"] == "irq_footprint"
            and all(s["params"].get(k) == v for k, v in params.items())]


def test_boot_ok_and_fast(fpb):
    assert not fpb.run["timed_out"]
    assert fpb.summary["ok"], fpb.summary["validation"]["problems"]
    assert fpb.summary["end"]["status"] == "ok", fpb.summary["messages"]
    # whole boot, firmware start-up and TSC calibration included
    assert fpb.run["duration_s"] < PROBE_S + 30, fpb.run["duration_s"]


# without a PMU the demand-only events cannot be resolved: the general sets are asked for
CTR_SET = {1: "footprint_l1d_any", 2: "footprint_l2_any"}


def test_no_pmu_time_and_one_counter_skip_per_set(fpb):
    for s in fp_sets(fpb):
        p = s["params"]
        assert p["method"] == "time" and s["unit"] == "cycles" and "event" not in p, p
        assert p["prefetchers"] == "on" and p["prefetchers_changed"] == 0
        assert p["ctr_skipped"] == CTR_SET[p["level"]] and "ctr_events" not in p
    skips = [k for k in fpb.summary["skips"] if k["probe"] == "irq_footprint" and k.get("ctr_set")]
    assert sorted(k["ctr_set"] for k in skips) == sorted(CTR_SET.values()), skips
    assert all(k["reason"] for k in skips)


def test_levels_and_instruction_cache_skip(fpb):
    levels = {(s["params"]["level"], s["params"]["type"]) for s in fp_sets(fpb)}
    assert levels == {(1, "data"), (2, "unified")}
    inst = [k for k in fpb.summary["skips"] if k["probe"] == "irq_footprint" and k.get("type") == "inst"]
    assert len(inst) == 1 and "irq_fp_inst=1" in inst[0]["reason"]   # off by default


@pytest.mark.parametrize("level", (1, 2))
def test_calibration_structure_and_checks_skipped(fpb, level):
    (cold,) = fp_sets(fpb, level=level, what="cold")
    p = cold["params"]
    assert p["effect"] == 0 and p["retouch"] == "reverse" and p["method"] == "time" and p["prefetchers"] == "on"
    assert p["valid_max"] == 0 and cold["n"] == N and p["converged"] == 0   # one batch, no repetition
    grid = sorted(s["params"]["k"] for s in fp_sets(fpb, level=level, what="calib"))
    nodes = p["nodes"]
    assert grid[0] == 0 and grid[-1] > nodes and len(grid) == len(set(grid)) >= 5
    held = sorted(s["params"]["k"] for s in fp_sets(fpb, level=level, what="heldout"))
    assert held == sorted(k for k in HELD if k not in grid)
    for s in fp_sets(fpb, level=level):
        if s["params"]["what"] in ("calib", "heldout", "cold"):
            assert s["n"] == N and s["complete"], s
    # no cache model: the checks are skips with the per-line cost, never a verdict
    assert not [c for c in fpb.summary["checks"] if c["name"] == "footprint_k" and c["level"] == level]
    (sk,) = [k for k in fpb.summary["skips"] if k.get("check") == "footprint_k" and k.get("level") == level
             and k.get("type") == p["type"]]
    assert "TCG" in sk["reason"] and sk["cost_mcyc"] == p["cost_mcyc"]


@pytest.mark.parametrize("level", (1, 2))
def test_interrupt_experiments(fpb, level):
    sets = fp_sets(fpb, level=level, what="irq")
    got = {(s["params"]["experiment"], s["params"]["variant"]) for s in sets}
    assert got == {(e, v) for e in ("basic", "refined") for v in ("idle", "k0", "kn")}
    for s in sets:
        p = s["params"]
        assert s["n"] == N and p["source"] == "self_ipi" and p["best_of"] == BEST_OF
        assert p["not_pending"] == 0 and p["not_taken"] == 0   # every IPI pending, then taken once
        assert p["taken"] == (0 if p["variant"] == "idle" else N * BEST_OF)
        if p["variant"] != "idle":
            assert p["cal_status"] == "no_effect" and "k_est_milli" not in p
            assert p["vs"] == "idle"
        if p["variant"] == "kn":
            assert p["k"] > 0


def test_report_footprint_part(fpb):
    res = irq.analyse(fpb.summary, os.path.join(fpb.out_dir, "parsed"))
    fp = res["footprint"]
    assert [lv["level"] for lv in fp["levels"]] == [1, 2] and fp["irq_skip"] is None
    assert all(lv["no_effect"] and "TCG" in lv["no_effect"] for lv in fp["levels"])
    assert footprint.delivery(fp["levels"][0], "basic")["cal_status"] == "no_effect"
    text, ok = report.write_report(os.path.join(fpb.out_dir, "parsed"), plot=False)
    assert "Cache footprint of one interrupt" in text


def test_instruction_cache_level(prof_auto):
    """irq_fp_inst=1: the L1I level runs with code chains — calibration grid, held-out K, the basic
    interrupt experiment (the refined one is a skip: a code lap cannot stop where the interrupt
    arrived); TCG: no effect, so its checks are skips too; timed, ctr_skipped=footprint_l1i."""
    assert prof_auto.summary["ok"], prof_auto.summary["validation"]["problems"]
    assert prof_auto.summary["end"]["status"] == "ok", prof_auto.summary["messages"]
    sets = fp_sets(prof_auto, level=1, type="inst")
    whats = {s["params"]["what"] for s in sets}
    assert whats == {"cold", "calib", "heldout", "irq"}, whats
    (cold,) = [s for s in sets if s["params"]["what"] == "cold"]
    p = cold["params"]
    assert p["effect"] == 0 and p["method"] == "time" and p["ctr_skipped"] == "footprint_l1i"
    assert p["nodes"] * p["line"] == p["size"]
    grid = sorted(s["params"]["k"] for s in sets if s["params"]["what"] == "calib")
    assert grid[0] == 0 and grid[-1] > p["nodes"] and len(grid) >= 5
    held = sorted(s["params"]["k"] for s in sets if s["params"]["what"] == "heldout")
    assert held == sorted(k for k in HELD if k not in grid)
    irqs = [s for s in sets if s["params"]["what"] == "irq"]
    assert {(s["params"]["experiment"], s["params"]["variant"]) for s in irqs} == \
        {("basic", v) for v in ("idle", "k0", "kn")}
    for s in irqs:
        assert s["params"]["not_taken"] == 0 and s["params"]["not_pending"] == 0 and s["n"] == N
    skips = [k for k in prof_auto.summary["skips"] if k["probe"] == "irq_footprint" and k.get("type") == "inst"]
    assert sorted(k.get("experiment") or k.get("check") for k in skips) == ["footprint_k", "refined"], skips
    assert not [c for c in prof_auto.summary["checks"] if c["name"] == "footprint_k" and c["type"] == "inst"]
    # the data levels are unchanged by it
    assert {(s["params"]["level"], s["params"]["type"]) for s in fp_sets(prof_auto)} == \
        {(1, "data"), (1, "inst"), (2, "unified")}
