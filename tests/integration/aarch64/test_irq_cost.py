"""AArch64 displacement and cache footprint under qemu-system-aarch64 -machine virt,gic-version=3
(plain TCG) with AAVMF: one short boot runs irq_displace (the periodic virtual timer, handlers of
known work counted in PMU cycles) and irq_footprint (self-SGIs; miss counters where PMCEID offers
the refill events, else timed). TCG's timing is no machine's and it models no caches, so only
structure, counts, units and invariants are asserted: every interrupt accounted for (nothing lost,
early, spurious or unexpected; every SGI seen pending and taken exactly once), the records say
which unit the work and the results are in, the checks are there (displace_vs_direct per handler,
delivery_constant), the footprint's checks are skips with the reason (never a verdict on emulated
caches), and no count is claimed from a counter that cannot count. ~10 s."""

import os

import pytest

from bmharness.report import report
from conftest import check_nothing_lost, raw, single

from configs import CONFIGS, work_list  # the boot configurations (configs.py)

OPTS = CONFIGS["a64irq_cost"].options
N_DISP = OPTS["irq_disp_samples"]
WORK = work_list(OPTS["irq_disp_work"])
N_FP = OPTS["irq_fp_samples"]
HELD = work_list(OPTS["irq_fp_k"])
BOOT_S = 60            # the whole boot, firmware start-up included
SPIN_CAL_ITERS = 20000  # bench/probes/irq/displace.c: the handlers' rate is arch_spin(SPIN_CAL_ITERS)
# QEMU's cycle counter counts emulated time at 1 GHz (qemu-facts), the generic timer 62.5 MHz of
# the same clock: the ratio of the two rates of one spin is 16; a 12.5% band, fixed beforehand,
# for the medians' quantisation and load
PMU_PER_TICK = 16
PMU_PER_TICK_BAND = 0.125
BEST_OF = 3            # FP_BEST_OF in bench/probes/irq/footprint_calib.h
EV_L1D_REFILL, EV_L2D_REFILL = 0x03, 0x17
CTR_SET = {1: ("footprint_l1d_any", "l1d_misses", EV_L1D_REFILL), 2: ("footprint_l2_any", "l2_misses", EV_L2D_REFILL)}
MIDR_IMPL_SHIFT = 24


def test_boot_ok_short_and_clean(a64irq_cost):
    assert not a64irq_cost.run["timed_out"] and a64irq_cost.run["exit_code"] == 0
    assert a64irq_cost.summary["ok"], a64irq_cost.summary["validation"]["problems"]
    assert a64irq_cost.summary["end"]["status"] == "ok", a64irq_cost.summary["messages"]
    assert a64irq_cost.run["duration_s"] < BOOT_S, a64irq_cost.run["duration_s"]
    assert not a64irq_cost.summary["faults"]
    assert not [m for m in a64irq_cost.summary["messages"] if m.get("level") == "error"], a64irq_cost.summary["messages"]
    # both probes ran from their own sources: no "not ported" skip
    assert not [k for k in a64irq_cost.summary["skips"] if "not ported" in k.get("reason", "")]
    cleanups = [c for c in a64irq_cost.summary["checks"] if c["name"] == "irq_cleanup"]
    assert sorted(c["probe"] for c in cleanups) == ["irq_displace", "irq_footprint"]
    assert all(c["status"] == "pass" and c["left"] == 0 for c in cleanups), cleanups


def test_displace_units(a64irq_cost):
    """The work is in PMU cycles (QEMU's PMU counts), the results in counter ticks; the
    conversions the probe made are recomputable from the fields it gave."""
    pmu = single(a64irq_cost.plat("pmu"))
    hz = single(a64irq_cost.plat("gic"))["timer_hz"]
    sets = [s for s in a64irq_cost.sets("irq_displace") if s["params"].get("handler")]
    assert sets
    for s in sets:
        p = s["params"]
        assert s["tsc_hz"] == hz > 0
        if pmu["present"]:
            assert p["work_unit"] == "pmu_cycles" and "work_clock" not in p, p
        else:
            assert p["work_unit"] == "counter_ticks" and p["work_clock"], p
        assert p["time_unit"] == "counter_ticks"
        assert p["work_iters"] == p["work_cycles"] * SPIN_CAL_ITERS // p["spin_cal_work"]
        assert p["work_ticks"] == p["work_cycles"] * p["spin_cal_cycles"] // p["spin_cal_work"]
        # the handlers' period leaves room for the largest work, in the results' clock
        assert p["period_cycles"] > 4 * max(WORK) * p["spin_cal_cycles"] // p["spin_cal_work"]
    if pmu["present"]:
        ratio = sets[0]["params"]["spin_cal_work"] / sets[0]["params"]["spin_cal_cycles"]
        assert abs(ratio / PMU_PER_TICK - 1) <= PMU_PER_TICK_BAND, ratio


def test_displace_structure_and_tally(a64irq_cost):
    for w in WORK:
        h = "w%d" % w
        (cnt,) = a64irq_cost.sets("irq_displace", what="count", handler=h)
        (loaded,) = a64irq_cost.sets("irq_displace", what="loaded", handler=h)
        (calib,) = a64irq_cost.sets("irq_displace", what="calib", handler=h)
        (direct,) = a64irq_cost.sets("irq_displace", what="direct", handler=h)
        (excess,) = a64irq_cost.sets("irq_displace", what="irq_excess", handler=h)
        (measured,) = a64irq_cost.sets("irq_displace", what="irq_measured", handler=h)
        assert cnt["n"] == loaded["n"] == calib["n"] == N_DISP
        taken = sum(raw(a64irq_cost, cnt))
        assert direct["n"] == excess["n"] == measured["n"] == taken > 0
        p = loaded["params"]
        assert p["source"] == "cntv_periodic" and p["work_cycles"] == w
        # every interrupt accounted for: taken in its window, nothing lost, early or foreign
        assert p["taken"] == taken <= p["armed"]
        check_nothing_lost(p, p)
        # the loaded window runs the calibration window's iterations plus the interrupts
        assert loaded["iters"] == calib["iters"] > 0
        assert all(v in (0, 1) for v in raw(a64irq_cost, measured))


def test_displace_checks_present_with_units(a64irq_cost):
    checks = {c["work_cycles"]: c for c in a64irq_cost.summary["checks"]
              if c.get("probe") == "irq_displace" and c["name"] == "displace_vs_direct"}
    assert sorted(checks) == sorted(WORK)
    for w, c in checks.items():
        assert c["status"] in ("pass", "fail")           # a verdict on TCG's timing: not asserted
        assert c["work_unit"] in ("pmu_cycles", "counter_ticks") and c["time_unit"] == "counter_ticks"
        assert c["paired"] == 1 and c["interrupts"] > 0
        assert c["criterion"] == ("within_5_percent" if w >= 1000000 else "displacement_not_below_direct")
        # the handler of known work: its direct cost holds at least half its work (same clock)
        assert float(c["direct"]) >= 0.5 * c["work_ticks"], c
        assert float(c["direct_ci_low"]) <= float(c["direct"]) <= float(c["direct_ci_high"])
    (k,) = [c for c in a64irq_cost.summary["checks"] if c.get("probe") == "irq_displace" and c["name"] == "delivery_constant"]
    assert k["handlers"] == len(WORK) and k["status"] in ("pass", "fail")


def fp_sets(a64irq_cost, **params):
    return [s for s in a64irq_cost.summary["sets"] if s["name"] == "irq_footprint"
            and all(s["params"].get(k) == v for k, v in params.items())]


def refill_offered(pmu, event):
    return bool(pmu["present"]) and bool(int(str(pmu["pmceid0"]), 16) >> event & 1)


def test_footprint_counters_or_time_said(a64irq_cost):
    """Counted where PMCEID offers the level's refill event, else timed with one skip per counter
    set naming PMCEID's reason (QEMU TCG offers none)."""
    pmu = single(a64irq_cost.plat("pmu"))
    levels = {(s["params"]["level"], s["params"]["type"]) for s in fp_sets(a64irq_cost)}
    assert levels == {(1, "data"), (2, "unified")}
    for level, (ctr_set, event, number) in CTR_SET.items():
        sets = fp_sets(a64irq_cost, level=level)
        if refill_offered(pmu, number):
            assert all(s["params"]["method"] == "pmu" and s["params"]["event"] == event for s in sets)
            continue
        for s in sets:
            p = s["params"]
            assert p["method"] == "time" and s["unit"] == "cycles" and "event" not in p, p
            assert p["ctr_skipped"] == ctr_set
        if not pmu["present"]:   # one skip for the set, with discovery's reason
            why = [k for k in a64irq_cost.summary["skips"] if k["probe"] == "irq_footprint" and k.get("ctr_set") == ctr_set]
            assert len(why) == 1 and why[0]["reason"] == pmu["reason"], why
            continue
        why = [k for k in a64irq_cost.summary["skips"] if k["probe"] == "irq_footprint" and k.get("ctr_set") == ctr_set
               and k.get("event") == event]
        assert len(why) == 1 and "PMCEID" in why[0]["reason"], why


def test_footprint_checks_skipped_on_emulated_caches(a64irq_cost):
    """MIDR implementer 0x00 (QEMU's max CPU) models no caches: the footprint_k checks are skips
    with the measured per-line cost, never a verdict, and no K is read back through a curve."""
    midr = int(str(single(a64irq_cost.plat("aarch64_id"))["midr"]), 16)
    if midr >> MIDR_IMPL_SHIFT & 0xFF:
        pytest.skip("a CPU with an implementer code: its caches may be real")
    assert not [c for c in a64irq_cost.summary["checks"] if c["name"] == "footprint_k"]
    for level in CTR_SET:
        (cold,) = fp_sets(a64irq_cost, level=level, what="cold")
        assert cold["params"]["effect"] == 0 and cold["n"] == N_FP
        (sk,) = [k for k in a64irq_cost.summary["skips"] if k.get("check") == "footprint_k" and k.get("level") == level]
        assert "MIDR implementer 0x00" in sk["reason"] and sk["cost_mcyc"] == cold["params"]["cost_mcyc"]
        held = sorted(s["params"]["k"] for s in fp_sets(a64irq_cost, level=level, what="heldout"))
        grid = {s["params"]["k"] for s in fp_sets(a64irq_cost, level=level, what="calib")}
        assert held == sorted(k for k in HELD if k not in grid)
        for s in fp_sets(a64irq_cost, level=level, what="irq"):
            assert "k_est_milli" not in s["params"]
            if s["params"]["variant"] != "idle":
                assert s["params"]["cal_status"] == "no_effect"


@pytest.mark.parametrize("level", (1, 2))
def test_footprint_every_sgi_pending_and_taken_once(a64irq_cost, level):
    sets = fp_sets(a64irq_cost, level=level, what="irq")
    got = {(s["params"]["experiment"], s["params"]["variant"]) for s in sets}
    assert got == {(e, v) for e in ("basic", "refined") for v in ("idle", "k0", "kn")}
    for s in sets:
        p = s["params"]
        assert s["n"] == N_FP and p["source"] == "sgi_self" and p["best_of"] == BEST_OF
        assert p["not_pending"] == 0 and p["not_taken"] == 0, p
        assert p["taken"] == (0 if p["variant"] == "idle" else N_FP * BEST_OF)
        if p["variant"] == "kn":
            assert p["k"] > 0


def test_report_states_units(a64irq_cost):
    text, _ = report.write_report(os.path.join(a64irq_cost.out_dir, "parsed"), plot=False)
    assert "displacement vs direct" in text and "Cache footprint of one interrupt" in text
    assert "Units: work in pmu_cycles, every other column in counter_ticks" in text
