"""Boot the AArch64 USB image (`make image ARCH=aarch64`) under qemu-system-aarch64 -machine
virt,gic-version=3 -cpu max with AAVMF (TCG) and check the record stream: begin (arch=aarch64),
cfg, the platform facts, the timer probe's sets, the
runner's spin set (with its counters: the cycle counter; INST_RETIRED is a skip without -icount), the two fault test probes caught by
our EL1 vectors (a `fault` record each, and the run goes on), a skip with a reason for a probe that
cannot run here (pmu_check without -icount), end status=ok, and a PSCI power-off (QEMU exits 0,
no exit device on this machine). One boot, ~10 s. Structure and sanity ranges only: under TCG
the numbers are emulation numbers."""

import os


from bmharness import stats
from bmharness.run import qemu
from bmharness.stream import parse
from conftest import check_noise_gaps

from configs import CONFIGS  # the boot configurations (configs.py)

A64_TIMER_METHODS = ("cntvct", "isb_cntvct", "begin_end", "pmccntr", "isb_pmccntr")  # PMCCNTR: PMU cycles
# Asked for, in this order: one that runs, a fault test (udf), the runner's spin, a fault test
# (load from an unmapped address), one that cannot run here (pmu_check: no INST_RETIRED without
# -icount), one unknown name (dropped with a warning by the option parser).
PROBES_KEPT = "timer,fault_ud2,spin,fault_gp,pmu_check,latency,noise,membw"
OPTS = CONFIGS["a64"].options
MEM_MAX_MB = OPTS["mem_max_mb"]  # the latency sweep: 4 KiB .. 1 MiB, two patterns (~2 s under TCG)
UNMAPPED_VA = 0xFFFFFFFFF000  # arch/aarch64/probe_ops.S
ESR_EC_SHIFT = 26
TIMER_SAMPLES = OPTS["timer_samples"]


def test_boots_and_powers_off(a64):
    v = a64.summary["validation"]
    assert not a64.run["timed_out"], "QEMU had to be killed: no PSCI power-off"
    assert a64.run["exit_code"] == 0  # PSCI SYSTEM_OFF
    assert "isa-debug-exit" not in a64.run["command_line"]
    assert "virt,gic-version=3" in a64.run["command_line"]
    assert a64.summary["ok"], v
    assert v["complete"] and not v["truncated"]
    assert not v["corrupt"] and not v["missing"] and not v["duplicates"]
    assert a64.summary["end"]["status"] == "ok"
    assert a64.summary["end"]["records"] == a64.summary["end"]["seq"]
    assert qemu.run_failed(a64.run) == []


def test_begin_and_cfg(a64):
    begin = a64.summary["begin"]
    assert begin["arch"] == "aarch64" and begin["env"] == "uefi"
    cfg = a64.summary["cfg"]
    assert cfg["timer_samples"] == TIMER_SAMPLES
    assert cfg["shutdown"] == "auto"  # the harness asks for a power-off, not debug-exit
    # the unknown name is reported and dropped, the known ones kept in order
    assert cfg["probes"] == PROBES_KEPT
    warns = [m["text"] for m in a64.summary["messages"] if m["level"] == "warn"]
    assert any("unknown probe 'no_such_probe' in 'probes' skipped" in w for w in warns), warns


def one(p, kind):
    """The one plat record of a kind (the harness keeps kinds it has no table for as lists)."""
    fact = p[kind]
    if isinstance(fact, list):
        assert len(fact) == 1, "plat kind=%s %d times" % (kind, len(fact))
        return fact[0]
    return fact


def test_platform_facts(a64):
    p = a64.summary["platform"]
    for kind in ("firmware", "serial", "acpi", "psci", "ebs", "memmap", "alloc", "cpu", "aarch64_id",
                 "cache", "pmu", "tsc", "mmu"):
        assert kind in p, "missing plat kind=%s" % kind
    assert p["serial"]["driver"] == "pl011" and p["serial"]["source"] == "spcr"
    assert p["serial"]["base"] == "0x9000000"  # what QEMU virt's SPCR says
    assert "SPCR" in p["acpi"]["tables"].split(",") and "FACP" in p["acpi"]["tables"].split(",")
    psci = one(p, "psci")
    assert psci["compliant"] == 1 and psci["conduit"] == "hvc"  # EL1 under QEMU: hvc
    assert p["ebs"]["status"] == "ok" and 1 <= p["ebs"]["tries"] <= 8
    ident = one(p, "aarch64_id")
    assert ident["el"] in (1, 2)
    assert int(ident["midr"], 16) != 0
    assert ident["cntfrq"] > 0
    # the cycle clock of this build is the generic timer at CNTFRQ_EL0
    assert p["tsc"]["hz"] == ident["cntfrq"] and p["tsc"]["source"] == "cntfrq"
    assert 1_000_000 <= p["tsc"]["hz"] <= 10_000_000_000
    # PMUv3 under TCG (aarch64/test_pmu.py checks it in depth)
    assert p["pmu"]["present"] == 1 and p["pmu"]["gp"] >= 1
    # the translation regime the firmware left at EL1, walked for the arena's address
    mmu = one(p, "mmu")
    assert mmu["el"] == 1 and mmu["mmu"] == 1 and mmu["dcache"] == 1
    assert mmu["granule"] in ("4K", "16K", "64K") and 32 <= mmu["va_bits"] <= 52
    assert mmu["addr"] == p["alloc"]["base"]
    assert mmu["page"] in ("4K", "16K", "64K", "2M", "32M", "512M", "1G")
    assert mmu["map_bytes"] >= 4096 and mmu["level"] >= mmu["start_level"]
    assert int(mmu["attr"], 16) >> 4 != 0  # Normal memory (a Device attribute has 0 there)
    caches = p["cache"] if isinstance(p["cache"], list) else [p["cache"]]
    assert any(c["level"] == 1 and c["type"] == "data" for c in caches)
    for c in caches:
        assert c["size"] == c["line"] * c["ways"] * c["sets"], c
        assert c["line"] in (16, 32, 64, 128, 256) and c["source"] == "ccsidr"
        # QEMU TCG's CPU models give real geometries: none is taken for a hypervisor's stand-in
        assert "geometry" not in c, c


def test_timer_sets(a64):
    sets = {s["params"]["method"]: s for s in a64.sets("timer")}
    assert sorted(sets) == sorted(A64_TIMER_METHODS)
    hz = a64.summary["platform"]["tsc"]["hz"]
    for m, s in sets.items():
        assert s["n"] == TIMER_SAMPLES and s["received"] == TIMER_SAMPLES and s["complete"], m
        assert s["tsc_hz"] == hz
        values = parse.read_raw(os.path.join(a64.out_dir, "parsed", s["raw_file"]))[1]
        assert len(values) == TIMER_SAMPLES
        med = stats.median(values)
        # back-to-back reads of a counter that ticks at tsc_hz: under a millisecond apart
        assert 0 <= med < hz // 1000, (m, med)


def test_faults_are_reported_and_run_continues(a64):
    faults = {f["probe"]: f for f in a64.summary["faults"]}
    assert sorted(faults) == ["fault_gp", "fault_ud2"]
    ud, dabt = faults["fault_ud2"], faults["fault_gp"]
    for f in (ud, dabt):
        assert f["expected"] == 1 and f["action"] == "continue"
        assert int(f["err"], 16) >> ESR_EC_SHIFT == f["vector"]  # vector = ESR.EC
        assert int(f["rip"], 16) != 0
    assert ud["vector"] == 0x00 and ud["name"] == "UNDEF"
    assert dabt["vector"] == 0x25 and dabt["name"] == "DABT"
    assert int(dabt["cr2"], 16) == UNMAPPED_VA  # FAR: the address the load tried
    # the probes after each fault ran: spin's set after fault_ud2, pmu_check's skip after fault_gp
    assert a64.sets("spin") and "pmu_check" in [s["probe"] for s in a64.summary["skips"]]
    end = a64.summary["end"]
    assert end["faults"] == 2 and end["unexpected_faults"] == 0
    assert end["probes_run"] == 8


def test_spin_runs_through_the_runner(a64):
    (s,) = a64.sets("spin")
    assert s["params"]["loop"] == "subs_bne" and str(s["params"]["insns_per_iter"]) == "2"
    assert s["complete"] and s["n"] == s["received"] == a64.summary["cfg"]["samples"]
    assert s["iters"] >= 1
    values = parse.read_raw(os.path.join(a64.out_dir, "parsed", s["raw_file"]))[1]
    hz = a64.summary["platform"]["tsc"]["hz"]
    med = stats.median(values)
    assert med > s["overhead"]
    ns_per_iter = (med - s["overhead"]) * 1e9 / hz / s["iters"]
    # two instructions per iteration: between 10 GHz-class and 10 MHz-class emulation speeds
    assert 0.01 <= ns_per_iter <= 100, ns_per_iter
    # counters were asked for (pmu_events=auto): cycles counted, instructions a skip without
    # -icount (QEMU offers INST_RETIRED only then)
    assert set(s["counters"]["events"]) == {"cycles"} and s["counters"]["complete"]
    ctr = [k for k in a64.summary["skips"] if k["probe"] == "spin" and "ctr_set" in k]
    assert len(ctr) == 1 and ctr[0]["event"] == "instructions" and "-icount" in ctr[0]["reason"]
    # profile=spin: sampled (auto: PMU overflow on CPU_CYCLES; the samples themselves are checked
    # in aarch64/test_profile.py and, on the timer, aarch64/test_irq.py), so no profile skip
    prof = [k for k in a64.summary["skips"] if k["probe"] == "spin" and k.get("part") == "profile"]
    assert not prof, prof


def test_probe_that_cannot_run_skips_with_reason(a64):
    # pmu_check is ported but cannot run without -icount: no INST_RETIRED to count with
    skips = [s for s in a64.summary["skips"] if s["probe"] == "pmu_check"]
    assert len(skips) == 1 and "INST_RETIRED" in skips[0]["reason"]
    assert not a64.sets("pmu_check")
    end = a64.summary["end"]
    # every skip record is counted (pmu_check's and the counter skips); one probe ended skipped
    assert end["skips"] == len(a64.summary["skips"]) and end["probes_skipped"] == 1


def test_latency_chase_runs(a64):
    sets = a64.sets("latency")
    assert {s["params"]["pattern"] for s in sets} == {"random", "stride"}
    hz = a64.summary["platform"]["tsc"]["hz"]
    page = one(a64.summary["platform"], "mmu")["page"]
    for s in sets:
        assert s["complete"] and s["n"] == s["received"] == 8
        assert s["params"]["page"] == page  # the walk's answer for the arena
        assert 4096 <= int(s["params"]["size"]) <= MEM_MAX_MB << 20
        values = parse.read_raw(os.path.join(a64.out_dir, "parsed", s["raw_file"]))[1]
        med = stats.median(values)
        ns_per_load = max(med - s["overhead"], 0) * 1e9 / hz / s["iters"]
        assert 0.01 <= ns_per_load <= 10000, (s["params"], ns_per_load)
    # counters asked for per size class: the miss events QEMU lacks are counter skips
    ctr_skips = [k for k in a64.summary["skips"] if k["probe"] == "latency"]
    assert ctr_skips and all(k.get("ctr_set", "").startswith("latency_") for k in ctr_skips)


def test_noise_with_interrupts_masked(a64):
    """The hwlat-style spin on the generic timer with IRQ/FIQ masked (DAIF): the invariants of
    x86_64/test_irq.py's x86 check, on this build's clock."""
    p = check_noise_gaps(a64)
    assert p["smi"] == "not_intel"
    assert p["window_cycles"] == 200 * a64.summary["platform"]["tsc"]["hz"] // 1000


def test_membw_kernels_and_their_skips(a64):
    """X-register (64) and NEON (128) kernels run over the sweep; 256/512 (no fixed registers that
    wide: SVE is width=sve) and the x86 string kernels are skips with a reason, never numbers.
    The AArch64-only widths (pair, zva, sve) are aarch64/test_memory.py's."""
    sets = [s for s in a64.sets("membw") if str(s["params"]["width"]) in ("64", "128")]
    got = {(s["params"]["kernel"], str(s["params"]["width"])) for s in sets}
    assert got == {("read", "64"), ("read", "128"), ("write_nt", "64"), ("write_nt", "128")}
    hz = a64.summary["platform"]["tsc"]["hz"]
    for s in sets:
        assert s["complete"] and s["n"] == s["received"] == 8
        values = parse.read_raw(os.path.join(a64.out_dir, "parsed", s["raw_file"]))[1]
        med = stats.median(values)
        secs = max(med - s["overhead"], 1) / hz
        gbps = int(s["params"]["bytes_per_op"]) * s["iters"] / secs / 1e9
        assert 0.01 <= gbps <= 10000, (s["params"], gbps)
    skips = {(k.get("kernel"), str(k.get("width"))): k["reason"] for k in a64.summary["skips"]
             if k["probe"] == "membw" and "kernel" in k}
    for w in ("256", "512"):
        assert "width=sve" in skips[("read", w)] and "width=sve" in skips[("write_nt", w)]
    assert "rep stosb/movsb" in skips[("rep_movsb", "rep")]



def test_one_core_smp_fact(a64):
    """-smp 1 (this boot): the MADT lists one core, nothing is started, plat kind=smp says why
    (the -smp 2 boot is tests/integration/aarch64/test_smp.py)."""
    assert "-smp 1" in a64.run["command_line"]
    smp = one(a64.summary["platform"], "smp")
    assert smp["cpus_madt"] == 1 and smp["cpus_online"] == 1 and smp["failed"] == "none"
    assert smp["apic_ids"] == smp["bsp_apic_id"] == 0
    assert "how" not in smp and smp["reason"] == "the MADT lists no other enabled core"
