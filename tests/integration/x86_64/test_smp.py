"""Application processors under QEMU + OVMF (TCG): the firmware brings them up itself after
ExitBootServices (INIT-SIPI-SIPI), says so in `plat kind=smp`, the `smp_hello` probe runs a
function on every CPU at a common start, and `membw_mc` streams on 1..N cores at once. With one
CPU both probes are skips.

Start skews and bandwidths under TCG are host-scheduling and emulation numbers (vCPUs are host
threads, 2 host cores here): only their shape is asserted (one CPU is the earliest, all within a
second; every core count has its per-core and aggregate sets, the byte accounting adds up, the
aggregate window spans every core's own)."""

import os

import pytest

from conftest import check_membw_mc
from bmharness.analysis import multicore

# A quick single-core sweep beside the multi-core probes (idle APs must not disturb it), and
# membw_mc at its smallest per-core buffer (4 MiB): the test is about structure, not GB/s.
def assert_complete_ok(b):
    assert not b.run["timed_out"], "QEMU had to be killed"
    assert b.summary["ok"], b.summary["validation"]
    assert b.summary["end"]["status"] == "ok"
    assert b.run["exit_code"] == 1 and b.run["firmware_status"] == 0


def smp_fact(b):
    """plat kind=smp (a list while the harness does not know the kind as single)."""
    fact = b.plat("smp")
    assert fact is not None, "missing plat kind=smp"
    if isinstance(fact, list):
        assert len(fact) == 1, fact
        fact = fact[0]
    return fact


def id_list(value):
    return [int(x) for x in str(value).split(",")]


@pytest.mark.parametrize("fixture,n", [("smp2_hello", 2), ("smp4_hello", 4)])
def test_all_cpus_online_and_say_hello(request, fixture, n):
    b = request.getfixturevalue(fixture)
    assert_complete_ok(b)
    smp = smp_fact(b)
    assert smp["cpus_madt"] == n
    assert smp["cpus_online"] == n
    assert smp["failed"] == "none"
    ids = id_list(smp["apic_ids"])
    assert len(ids) == n and len(set(ids)) == n and ids[0] == smp["bsp_apic_id"]
    assert smp["lapic_mode"] == "xapic" and smp["lapic_base"] == "0xfee00000"
    lowpage = int(smp["lowpage"], 16)
    assert 0 < lowpage < 0x100000 and lowpage % 4096 == 0
    # bring-up: the one shared 10 ms INIT delay, then each AP within its 200 ms bound
    hz = b.plat("tsc")["hz"]
    assert 0.010 * hz <= smp["bringup_cycles"] < (0.010 + (n - 1) * 0.2) * hz
    assert 0 < smp["ap_max_cycles"] < 0.2 * hz

    (s,) = b.sets("smp_hello")
    assert s["n"] == n and s["received"] == n and s["complete"]
    assert id_list(s["params"]["apic_ids"]) == ids
    raw = s["stats"]["raw"]
    assert raw["min"] == 0  # the earliest CPU defines zero skew
    assert raw["max"] < hz  # and everyone started within a second
    # the BSP's probes still run and end normally next to the idle APs: the quick sweep too
    assert b.sets("spin")
    for probe in ("membw", "latency"):
        sets = b.sets(probe)
        assert sets and all(s["complete"] and s["received"] == s["n"] for s in sets), probe


def test_one_cpu_skips(smp1):
    assert_complete_ok(smp1)
    smp = smp_fact(smp1)
    assert smp["cpus_madt"] == 1 and smp["cpus_online"] == 1
    assert smp["reason"]
    for probe in ("smp_hello", "membw_mc"):
        assert not smp1.sets(probe)
        skips = [k for k in smp1.summary["skips"] if k["probe"] == probe]
        assert len(skips) == 1 and skips[0]["reason"], probe
    assert smp1.summary["end"]["skips"] >= 2


@pytest.mark.parametrize("fixture,n", [("smp2_hello", 2), ("smp4_hello", 4)])
def test_multicore_bandwidth_on_every_core_count(request, fixture, n):
    b = request.getfixturevalue(fixture)
    assert_complete_ok(b)
    check_membw_mc(b, n)
    rows = multicore.analyse(b.summary, os.path.join(b.out_dir, "parsed"))["rows"]
    assert len(rows) == 3 * n  # read, write, copy
    for r in rows:
        assert r["agg"]["gbps"] > 0 and r["missing_cores"] == 0
        assert r["scaling"] > 0


def test_fault_on_an_ap_is_reported_and_it_works_on(smp2):
    b = smp2
    assert_complete_ok(b)
    (f,) = b.summary["faults"]
    assert f["probe"] == "fault_ap_ud2" and f["name"] == "#UD" and f["vector"] == 6
    assert f["expected"] == 1 and f["action"] == "continue"
    assert any("taken on CPU 1" in m["text"] for m in b.summary["messages"])
    # the AP that faulted took the next probe's job
    (s,) = b.sets("smp_hello")
    assert s["received"] == 2
