"""The other cores of the AArch64 build under qemu-system-aarch64 -machine virt,gic-version=3
-smp 2 (TCG, AAVMF): the firmware starts the second core itself after ExitBootServices through
PSCI CPU_ON (hvc at EL1, as the FADT says), says so in `plat kind=smp`, `smp_hello` runs a job on
both cores at a common start, `membw_mc` streams on 1 and 2 cores at once, and a `udf` in a job
on core 1 becomes a `fault` record on the BSP while that core takes the next job. One boot,
~10 s. The one-core case is aarch64/test_boot.py's boot (-smp 1): test_one_core_smp_fact there.

Start skews and bandwidths under TCG are host-scheduling and emulation numbers (each vCPU is a
host thread on a shared 2-core machine): only structure and sanity bounds are asserted."""

import os


from bmharness import stats
from bmharness.analysis import multicore
from conftest import check_membw_mc, raw

# fault_ap_ud2 between the two probes: the faulted core must run membw_mc's jobs afterwards.
SMP_AP_TIMEOUT_S = 0.5  # efi/aarch64/smp.h SMP_AP_TIMEOUT_US
HELLO_TIMEOUT_S = 1.0   # bench/probes/smp.c HELLO_TIMEOUT_MS
AFF3_SHIFT = 24         # the packed affinity of the interface (drivers/fw/aarch64/madt_gicc.h)


def one(b, kind):
    fact = b.plat(kind)
    assert fact is not None, "missing plat kind=%s" % kind
    if isinstance(fact, list):
        assert len(fact) == 1, fact
        fact = fact[0]
    return fact


def ids(value):
    return [int(x) for x in str(value).split(",")]


def test_boot_completes(a64smp2):
    b = a64smp2
    assert "-smp 2" in b.run["command_line"]
    assert not b.run["timed_out"], "QEMU had to be killed: no PSCI power-off"
    assert b.run["exit_code"] == 0
    assert b.summary["ok"], b.summary["validation"]
    assert b.summary["end"]["status"] == "ok"
    assert b.summary["end"]["probes_run"] == 3 and b.summary["end"]["probes_skipped"] == 0


def test_second_core_came_up_through_psci(a64smp2):
    b = a64smp2
    smp = one(b, "smp")
    psci = one(b, "psci")
    assert smp["how"] == "psci"
    assert smp["conduit"] == psci["conduit"] == "hvc"  # EL1 under QEMU: the FADT's conduit
    major, minor = (int(x) for x in str(smp["psci_version"]).split("."))
    assert (major, minor) >= (0, 2)  # CPU_ON's 64-bit function id is PSCI 0.2's
    assert smp["cpus_madt"] == 2 and smp["cpus_online"] == 2
    assert smp["failed"] == "none" and "failed_why" not in smp and "reason" not in smp
    assert smp["hotplug"] == 0 and smp["not_started"] == 0
    cpu_ids = ids(smp["apic_ids"])
    assert len(set(cpu_ids)) == 2 and cpu_ids[0] == smp["bsp_apic_id"]
    # QEMU virt's MPIDRs: Aff0 = core number, no Aff3; the BSP's matches plat kind=aarch64_id
    mpidr = int(one(b, "aarch64_id")["mpidr"], 16)
    assert cpu_ids[0] == (mpidr & 0xFFFFFF) | ((mpidr >> 32) & 0xFF) << AFF3_SHIFT
    assert sorted(cpu_ids) == [0, 1]
    # bring-up: the core was online within its bound of its CPU_ON, inside the whole bring-up
    hz = one(b, "tsc")["hz"]
    assert 0 < smp["ap_max_cycles"] <= smp["bringup_cycles"]
    assert smp["ap_max_cycles"] < SMP_AP_TIMEOUT_S * hz
    assert smp["bringup_cycles"] < 2 * SMP_AP_TIMEOUT_S * hz


def test_hello_on_both_cores(a64smp2):
    b = a64smp2
    (s,) = b.sets("smp_hello")
    assert s["n"] == s["received"] == 2 and s["complete"]
    # each core ran the job and read its own MPIDR: the ids it was started as
    assert ids(s["params"]["apic_ids"]) == ids(one(b, "smp")["apic_ids"])
    raw = s["stats"]["raw"]
    hz = one(b, "tsc")["hz"]
    assert raw["min"] == 0 and raw["max"] < HELLO_TIMEOUT_S * hz


def test_fault_on_core_1_is_reported_and_it_works_on(a64smp2):
    b = a64smp2
    (f,) = b.summary["faults"]
    assert f["probe"] == "fault_ap_ud2" and f["name"] == "UNDEF" and f["vector"] == 0x00
    assert int(f["err"], 16) >> 26 == 0x00  # ESR_EL1.EC of udf
    assert f["expected"] == 1 and f["action"] == "continue"
    assert any("taken on CPU 1" in m["text"] for m in b.summary["messages"])
    assert b.summary["end"]["faults"] == 1 and b.summary["end"]["unexpected_faults"] == 0


def test_membw_mc_sets_from_both_cores_complete(a64smp2):
    """After the fault: core 1 streams its share of every 2-core run."""
    b = a64smp2
    check_membw_mc(b, 2)
    for kernel in ("read", "write", "copy"):
        group = b.sets("membw_mc", kernel=kernel, cpus=2)
        assert sorted(str(s["params"]["cpu"]) for s in group) == ["0", "1", "all"]
        assert all(s["params"]["width"] == 128 for s in group)  # NEON: CPACR copied to core 1
    rows = multicore.analyse(b.summary, os.path.join(b.out_dir, "parsed"))["rows"]
    assert len(rows) == 3 * 2
    for r in rows:
        assert r["agg"]["gbps"] > 0 and r["missing_cores"] == 0 and r["scaling"] > 0


# Core 1's cycle counter against its own timer, relative to core 0's in the same run: both count
# the same clock under TCG, so a ratio far from 1 means core 1's PMU did not count its own window.
CORE_RATE_BAND = (0.5, 2.0)


def test_membw_mc_counters_programmed_on_each_core(a64smp2):
    """Regression: membw_mc's pass begin / end jobs program and release each core's own PMU (they
    once ran with the sample's NULL counter state: a DABT at FAR 0 on the BSP, end status=fail).
    With the PMU counting, the per-core sets of both cores carry complete `cycles` deltas counted
    on that core; without it, each carries the PMU's reason as its counter skip."""
    b = a64smp2
    assert not [f for f in b.summary["faults"] if f["probe"] == "membw_mc"], b.summary["faults"]
    assert b.summary["end"]["unexpected_faults"] == 0
    pmu = one(b, "pmu")
    ctr_skips = {k["ctr_set"]: k for k in b.summary["skips"] if k["probe"] == "membw_mc" and k.get("ctr_set")}
    samples = b.summary["cfg"]["samples"]
    for kernel in ("read", "write", "copy"):
        group = {s["params"]["cpu"]: s for s in b.sets("membw_mc", kernel=kernel, cpus=2)}
        assert sorted(str(c) for c in group) == ["0", "1", "all"]
        if not pmu["present"]:
            for cpu in (0, 1):
                s = group[cpu]
                assert "counters" not in s
                assert ctr_skips[s["params"]["ctr_skipped"]]["reason"] == pmu["reason"]
            continue
        rates = {}
        for cpu in (0, 1):
            s = group[cpu]
            ctr = s["counters"]
            assert ctr["complete"] and "cycles" in ctr["events"], (cpu, ctr)
            cyc = ctr["events"]["cycles"]
            assert cyc["received"] == samples and cyc["wraps"] == 0
            assert all(v > cyc["overhead"] for v in cyc["values"]), (cpu, cyc)
            rates[cpu] = stats.median(c / t for c, t in zip(cyc["values"], raw(b, s)))
        lo, hi = CORE_RATE_BAND
        assert lo <= rates[1] / rates[0] <= hi, (kernel, rates)
