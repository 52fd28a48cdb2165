"""PMUv3 on the AArch64 build, end to end: one `-icount shift=0` boot of the USB image under
qemu-system-aarch64 -machine virt,gic-version=3 -cpu max (TCG) with probes timer, spin, pmu_check
and pmu_cost (then prof_split, profiled: aarch64/test_profile.py). QEMU emulates the PMU (PMCR_EL0.N event counters, the cycle counter, INST_RETIRED
exact under -icount), so here the counters answer:
- plat kind=pmu: present, PMUv3, N >= 1 event counters consistent with PMCR_EL0.N, the cycle
  counter, PMCEID0/1 consistent with the events offered, the EL1-only filter;
- pmu_check: the spin loop's instructions retired are exact (2 per iteration, pass, tolerance 0);
- spin: the runner's spin set carries cycles and instructions for every sample, and under icount
  (one instruction per nanosecond, the cycle counter at 1 GHz) instructions = 2 x iters + a
  bounded overhead;
- pmu_cost: the read / start_stop / start_read_stop sets exist with the group's counters;
- timer: PMCCNTR_EL0 as a read method (unit=pmu_cycles), with and without isb.
Sanity ranges and invariants only, except where -icount makes the count exact. ~15 s."""



from bmharness import stats
from conftest import raw

from configs import CONFIGS  # the boot configurations (configs.py)

OPTS = CONFIGS["a64pmu"].options
SAMPLES = OPTS["samples"]
TIMER_SAMPLES = OPTS["timer_samples"]
PMCR_N_SHIFT = 11
PMCR_N_MASK = 0x1F
EV_INST_RETIRED = 0x08
EV_CPU_CYCLES = 0x11
EV_BR_MIS_PRED, EV_BR_RETIRED, EV_BR_MIS_PRED_RETIRED = 0x10, 0x21, 0x22  # Arm ARM common events
FILTER_U = 1 << 30   # EL0 not counted
FILTER_P = 1 << 31   # EL1 not counted (must be clear)
FILTER_NSH = 1 << 27  # EL2 counted (must be clear)
SPIN_OVERHEAD_MAX = 1000  # instructions of the runner's reads around one sample


def pmceid_has(pmu, ev):
    id0, id1 = int(pmu["pmceid0"], 16), int(pmu["pmceid1"], 16)
    return bool(((id0 if ev < 32 else id1) >> (ev % 32)) & 1)


def test_boot_completes(a64pmu):
    s = a64pmu.summary
    assert a64pmu.run["exit_code"] == 0 and not a64pmu.run["timed_out"]
    assert "-icount" in a64pmu.run["command_line"]
    assert s["ok"] and s["validation"]["complete"], s["validation"]
    assert s["end"]["status"] == "ok"
    assert s["end"]["faults"] == 0 and s["faults"] == []  # discovery did not trap
    assert s["end"]["probes_run"] == len(OPTS["probes"].split(",")) and s["end"]["probes_skipped"] == 0


def test_pmu_record(a64pmu):
    pmu = a64pmu.plat("pmu")
    assert pmu["present"] == 1, pmu["reason"]
    assert pmu["pmu"] == "pmuv3" and pmu["pmuv3"].startswith("v3")
    assert pmu["vendor_version"] in (1, 4, 5, 6, 7, 8, 9)
    n = pmu["gp"]
    assert 1 <= n <= 31
    # the counter count is PMCR_EL0.N as found, and what the ID register says agrees
    assert (int(pmu["pmcr"], 16) >> PMCR_N_SHIFT) & PMCR_N_MASK == n
    ident = a64pmu.plat("aarch64_id")
    ident = ident[0] if isinstance(ident, list) else ident
    assert ident["pmu_version"] == pmu["vendor_version"]
    assert pmu["fixed"] == 1 and pmu["fixed_width"] in (32, 64)  # the cycle counter counted
    # 64-bit event counters only from PMUv3p5 (PMCR_EL0.LP), where the bit stuck
    assert pmu["gp_width"] in (32, 64) and (pmu["gp_width"] == 32 or pmu["vendor_version"] >= 6)
    assert (int(pmu["pmcr_set"], 16) >> 7) & 1 == (pmu["gp_width"] == 64)
    # the events offered follow PMCEID: under -icount INST_RETIRED is there, CPU_CYCLES always
    offered = pmu["events"].split(",")
    assert pmceid_has(pmu, EV_INST_RETIRED) and pmceid_has(pmu, EV_CPU_CYCLES)
    assert "cycles" in offered and "instructions" in offered
    assert pmu["common_events"] == bin(int(pmu["pmceid0"], 16)).count("1") + bin(int(pmu["pmceid1"], 16)).count("1")
    # branch_misses prefers the retired event (0x22) so its ratio to BR_RETIRED (0x21) is of one
    # population; the record says which pair PMCEID allowed (QEMU TCG offers none of the three)
    want = ("BR_MIS_PRED_RETIRED" if pmceid_has(pmu, EV_BR_MIS_PRED_RETIRED)
            else "BR_MIS_PRED" if pmceid_has(pmu, EV_BR_MIS_PRED) else "none")
    assert pmu["branch_misses_event"] == want
    assert pmu["branch_ratio"] == ("none" if want == "none" or not pmceid_has(pmu, EV_BR_RETIRED)
                                   else "retired" if want == "BR_MIS_PRED_RETIRED" else "mixed")
    # EL1 only: U set, P and NSH clear
    f = int(pmu["filter"], 16)
    assert f & FILTER_U and not f & FILTER_P and not f & FILTER_NSH and pmu["count_el"] == "el1"


def test_pmu_check_exact(a64pmu):
    (c,) = [c for c in a64pmu.summary["checks"] if c["probe"] == "pmu_check"]
    assert c["name"] == "instructions_retired" and c["counter"] == "pmu_event"
    assert c["loop"] == "subs_bne" and c["insns_per_iter"] == 2
    assert c["status"] == "pass"
    # -icount makes the count exact: no tolerance needed, none used
    assert c["measured"] == c["expected"] == 2 * c["iters"]
    assert c["short_measured"] == c["short_expected"] == 2 * c["short_iters"]
    assert c["tolerance"] == 0 and 0 < c["overhead"] < 200
    assert "freeze_while_smm" not in c


def test_spin_carries_counters(a64pmu):
    (s,) = a64pmu.sets("spin")
    ctr = s["counters"]
    assert ctr["set"] == "spin" and ctr["events_declared"] == ["cycles", "instructions"]
    assert ctr["refused"] == [] and ctr["passes"] == 1 and ctr["complete"]
    assert not [k for k in a64pmu.summary["skips"] if k["probe"] == "spin"]
    ev = ctr["events"]
    assert set(ev) == {"cycles", "instructions"}
    for name in ("cycles", "instructions"):
        assert len(ev[name]["values"]) == SAMPLES
    # each sample: 2 x iters instructions of the loop plus the reads' bounded overhead
    for v in ev["instructions"]["values"]:
        assert 2 * s["iters"] <= v <= 2 * s["iters"] + SPIN_OVERHEAD_MAX, (v, s["iters"])
    # the cycle counter counts (under -icount: emulated time, one instruction per ns)
    assert all(v > 0 for v in ev["cycles"]["values"])


def test_pmu_cost_sets(a64pmu):
    sets = a64pmu.sets("pmu_cost")
    ops = {x["params"]["op"] for x in sets}
    assert {"read", "start_stop", "start_read_stop"} <= ops
    (read,) = [x for x in sets if x["params"]["op"] == "read"]
    assert read["complete"] and read["counters"]["complete"]
    # one read of the group costs instructions: its delta exceeds the empty interval's
    ins = read["counters"]["events"]["instructions"]
    assert min(ins["values"]) > ins["overhead"] > 0
    for x in sets:
        if x["params"]["op"] in ("start_stop", "start_read_stop"):
            assert x["params"]["counters"] == 2 and x["complete"]
            assert all(0 <= v < read["tsc_hz"] // 1000 for v in raw(a64pmu, x))
    # the miss events QEMU does not implement are refused with PMCEID's reason, never counted
    refused = [k for k in a64pmu.summary["skips"] if k["probe"] == "pmu_cost" and k.get("event")]
    assert refused and all("PMCEID" in k["reason"] for k in refused)


def test_timer_pmccntr_methods(a64pmu):
    sets = {x["params"]["method"]: x for x in a64pmu.sets("timer")}
    assert {"pmccntr", "isb_pmccntr"} <= set(sets)
    for m in ("pmccntr", "isb_pmccntr"):
        assert sets[m]["unit"] == "pmu_cycles" and sets[m]["complete"]
    for m in ("cntvct", "isb_cntvct", "begin_end"):
        assert sets[m]["unit"] == "cycles"
    med = {m: stats.median(raw(a64pmu, sets[m])) for m in ("pmccntr", "isb_pmccntr")}
    # under -icount the cycle counter is emulated time: a read is >= 1 cycle, the isb adds to it
    assert 1 <= med["pmccntr"] <= med["isb_pmccntr"] < 1000
