"""Probe `prim`'s sets into the machine vector's per-kind coefficients (analysis/prim_costs.py),
the application's per-kind uses (analysis/app_vector.py: cachegrind with its branch predictor,
strace -c, GNU time -v, start-up subtracted) and their dot product (analysis/predict.py).
Known answers worked by hand from synthetic sets: a set of median M ticks per iteration of 16
operations at 1 GHz costs M / 16 ns; a random-branch set 8 ns per iteration above the fixed one
with the assumed miss fraction 1/2 makes a miss cost 8 / 16 / 0.5 = 1 ns more than a hit; with
a PMU that counts 4 of the 16 branches missed the penalty is 8 / 16 / 0.25 = 2 ns."""

import pytest

from bmharness.analysis import app_vector, predict, prim_costs

HZ = 1_000_000_000


def _set(prim, median, ops=16, outcome="none", set_no=0, counters=None, params=None, lo=None,
         hi=None, mn=None, mx=None):
    p = {"prim": prim, "ops_per_iter": ops, "outcome": outcome}
    p.update(params or {})
    s = {"set": set_no, "name": "prim", "tsc_hz": HZ, "iters": 1000, "overhead": 0, "params": p,
         "stats": {"per_op": {"median": median, "ci95": [lo or median, hi or median],
                              "min": mn or median * 0.9, "max": mx or median * 1.1}}}
    if counters:
        s["counters"] = {"events": {k: {"values": [v * 1000] * 5, "overhead": 0}
                                    for k, v in counters.items()}}
    return s


def _summary(*sets):
    return {"sets": list(sets)}


def test_costs_per_operation_and_interval():
    c = prim_costs.coefficients(_summary(_set("int_indep", 4.0, lo=3.2, hi=4.8, mn=3.0, mx=6.0),
                                         _set("syscall", 250.0, ops=1)))
    ind = c["op_ns.int_indep"]
    assert ind["value"] == pytest.approx(0.25) and ind["lo"] == pytest.approx(0.2)
    assert ind["hi"] == pytest.approx(0.3) and ind["unit"] == "ns"
    assert c["op_ns.syscall"]["value"] == pytest.approx(250.0)


def test_ci_beyond_the_samples_is_clamped():
    """A small skewed set's CI can reach below zero: its end is the fastest sample instead."""
    c = prim_costs.coefficients(_summary(_set("call", 16.0, lo=-500.0, hi=900.0, mn=15.0,
                                              mx=20.0)))["op_ns.call"]
    assert c["lo"] == pytest.approx(15.0 / 16) and c["hi"] == pytest.approx(20.0 / 16)


def test_miss_penalty_assumed_half():
    c = prim_costs.coefficients(_summary(_set("branch", 16.0, outcome="fixed"),
                                         _set("branch_random", 24.0, outcome="random")))
    assert c["op_ns.branch"]["value"] == pytest.approx(1.0)
    assert c["op_ns.branch_miss"]["value"] == pytest.approx(1.0 + 8 / 16 / 0.5)
    assert "assumed" in c["op_ns.branch_miss"]["source"]
    assert "op_ns.branch_random" not in c  # the random set is the penalty's, not a cost


def test_miss_penalty_from_the_pmu():
    fixed = _set("indirect", 16.0, outcome="fixed", counters={"branches": 17, "branch_misses": 0})
    rnd = _set("indirect_random", 24.0, outcome="random",
               counters={"branches": 17, "branch_misses": 4})
    c = prim_costs.coefficients(_summary(fixed, rnd))
    assert c["op_ns.indirect_miss"]["value"] == pytest.approx(1.0 + 8 / 16 / 0.25)
    chk = {k["check"]: k for k in prim_costs.checks(_summary(fixed, rnd))}
    # 4 of 16 missed: outside the known answer's band, and the check says so
    assert chk["miss_fraction.indirect_random"]["status"] == "fail"
    rnd = _set("indirect_random", 24.0, outcome="random",
               counters={"branches": 17, "branch_misses": 8})
    chk = {k["check"]: k for k in prim_costs.checks(_summary(fixed, rnd))}
    assert chk["miss_fraction.indirect_random"]["status"] == "pass"


def test_emulator_without_predictor_costs_a_miss_as_a_hit():
    c = prim_costs.coefficients(_summary(_set("branch", 16.0, outcome="fixed"),
                                         _set("branch_random", 16.0, outcome="random")))
    assert c["op_ns.branch_miss"]["value"] == pytest.approx(c["op_ns.branch"]["value"])


def _dep(min_ticks_per_iter, clock_ticks):
    """An int_dep set whose core clock (32768 add-chain cycles) took clock_ticks ticks."""
    return _set("int_dep", min_ticks_per_iter * 1.2, mn=min_ticks_per_iter,
                params={"core_clock_cycles": 32768, "core_clock_ticks_lo": clock_ticks,
                        "core_clock_ticks_med": clock_ticks + 100,
                        "core_clock_ticks_hi": clock_ticks + 900, "insns_per_iter": 18},
                counters={"cycles": 17, "instructions": 18})


def test_dependent_add_known_answer_can_fail():
    # 16 adds in 8 ticks, the clock 2 cycles per tick: 1 cycle per add
    chk = {k["check"]: k for k in prim_costs.checks(_summary(_dep(8.0, 16384)))}
    assert chk["dep_add_core_cycles"]["status"] == "pass"
    assert chk["dep_add_core_cycles"]["measured"] == pytest.approx(1.0)
    assert chk["insns_per_iter.int_dep"]["status"] == "pass"
    assert chk["dep_add_pmu_cycles"]["measured"] == pytest.approx(17 / 16)
    chk = {k["check"]: k for k in prim_costs.checks(_summary(_dep(16.0, 16384)))}
    assert chk["dep_add_core_cycles"]["status"] == "fail"  # 2 cycles per add
    chk = {k["check"]: k for k in prim_costs.checks(_summary(_dep(8.0, 16384)), emulated=True)}
    assert "dep_add_pmu_cycles" not in chk  # TCG's cycle counter is emulated time


def test_wrong_instruction_count_fails():
    s = _set("load", 8.0, params={"insns_per_iter": 18}, counters={"instructions": 20})
    chk = {k["check"]: k for k in prim_costs.checks(_summary(s))}
    assert chk["insns_per_iter.load"]["status"] == "fail"


CG = """\
desc: D1 cache:         32768 B, 64 B, 8-way associative
cmd: prog
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim
summary: 1000 10 1 300 20 5 100 10 2 150 15 40 4
"""

STRACE = """\
    calls syscall
--------- ----------------
       12 read
        3 write
--------- ----------------
       15 total
"""

TIME_V = """\
\tCommand being timed: "prog"
\tMajor (requiring I/O) page faults: 1
\tMinor (reclaiming a frame) page faults: 70
\tVoluntary context switches: 3
\tInvoluntary context switches: 2
"""


def test_app_uses_per_kind():
    osc = dict(app_vector.parse_time_v(TIME_V), syscalls=app_vector.parse_strace_summary(STRACE))
    assert osc == {"page_faults": 71, "ctx_switches": 5, "syscalls": 15}
    v = app_vector.app_vector(app_vector.parse_cachegrind(CG), os_counts=osc)
    u = v["uses"]
    assert v["model"] == "prim"
    assert u["op_ns.int_indep"] == 1000 - 300 - 100 - 150 - 40
    assert (u["op_ns.load"], u["op_ns.store"]) == (300, 100)
    assert (u["op_ns.branch"], u["op_ns.branch_miss"]) == (135, 15)
    assert (u["op_ns.indirect"], u["op_ns.indirect_miss"]) == (36, 4)
    assert (u["op_ns.syscall"], u["op_ns.page_fault"], u["op_ns.ctx_switch"]) == (15, 71, 5)
    assert u["read_ns_per_byte.DRAM"] == (5 + 1) * 64 and "insn_ns" not in u


def test_startup_subtracted():
    cg = app_vector.parse_cachegrind(CG)
    prog = app_vector.app_vector(cg, os_counts={"syscalls": 15, "page_faults": 71,
                                                "ctx_switches": 5})
    empty = app_vector.app_vector(dict(cg, events=dict(cg["events"], Ir=400, Dr=100, Bc=50)),
                                  os_counts={"syscalls": 10, "page_faults": 80,
                                             "ctx_switches": 1})
    v = app_vector.subtract(prog, dict(empty, command="/bin/true"))
    assert v["events"]["Ir"] == 600 and v["events"]["Dr"] == 200 and v["events"]["Bc"] == 100
    assert v["os"] == {"syscalls": 5, "page_faults": 0, "ctx_switches": 4}  # clipped at 0
    assert v["uses"]["op_ns.int_indep"] == 600 - 200 - 0 - 100 - 0  # Dw and Bi all start-up
    assert v["startup_subtracted"] == "/bin/true"


def test_bad_os_reports():
    assert app_vector.parse_strace_summary("strace: exec: No such file") is None
    assert app_vector.parse_time_v("Command exited with non-zero status 127") is None


def test_dot_product_shares_per_kind():
    app = {"uses": {"op_ns.int_indep": 1000, "op_ns.branch_miss": 10, "op_ns.syscall": 2}}
    coefs = {k: {"value": v, "lo": v, "hi": v, "unit": "ns"} for k, v in
             (("op_ns.int_indep", 0.25), ("op_ns.branch_miss", 5.0), ("op_ns.syscall", 100.0))}
    r = predict.predict_one(app, {"coefficients": coefs})
    assert r["seconds"] == pytest.approx((250 + 50 + 200) * 1e-9)
    assert [t["name"] for t in r["terms"]] == ["op_ns.int_indep", "op_ns.syscall",
                                               "op_ns.branch_miss"]
    assert [t["share"] for t in r["terms"]] == pytest.approx([0.5, 0.4, 0.1])
    r = predict.predict_one(app, {"coefficients": {"op_ns.int_indep": coefs["op_ns.int_indep"]}})
    assert r["seconds"] is None and r["missing"] == ["op_ns.branch_miss", "op_ns.syscall"]
