"""AArch64 started at EL2 (qemu-system-aarch64 -machine virt,virtualization=on -cpu max, TCG,
AAVMF): the firmware hands over at EL2, as EBBR lets most servers and boards do. With el2=leave
(the default) the firmware-facing part configures EL2 for EL1 after ExitBootServices
(arch/aarch64/el2.h: HCR_EL2.RW and no traps, MDCR_EL2.HPMN = PMCR_EL0.N, CNTHCTL_EL2 giving EL1
the physical timer, ICC_SRE_EL2.Enable, VPIDR/VMPIDR as the real IDs) and continues at EL1, so
everything EL1 gives works:
- a64el2pmu (-icount shift=0): the PMU present with every event counter given to EL1, and
  pmu_check's instructions retired exact (tolerance 0), as at EL1 (aarch64/test_pmu.py);
- a64el2run (2 cores): PSCI CPU_ON starts the second core at EL2 too -- its stub applies the boot
  core's EL2 values and erets to EL1 -- so smp_hello answers on both; the interrupt probes take
  every armed interrupt exactly once through the GICv3 and the EL1 timers; membw_mc is profiled on
  PMU overflow on both cores;
- a64el2gicv2 (virt,gic-version=2, 2 cores): the same with a GICv2, whose memory-mapped CPU
  interface needs nothing from EL2 (no GIC system registers to hand over).
With el2=stay (a64el2, aarch64/test_sysregs.py for its vectors) the run stays at EL2 and the
record says so with the reason. Latencies are emulation numbers: structure and exact counts only."""

from conftest import check_one_shot_set, single
from profile_checks import check_ap_pmi_profile

from configs import CONFIGS

N_LAT = CONFIGS["a64el2run"].options["irq_samples"]
WARMUP = 16
ONE_SHOT = [("cntv_oneshot", w) for w in ("hlt", "spin", "spin_nopause", "l1d", "l2")] + \
    [("sgi_self", w) for w in ("spin", "spin_nopause", "l1d", "l2")]
HCR_RW = 1 << 31             # Arm ARM HCR_EL2.RW: EL1 is AArch64
HCR_ROUTING = 0b111 << 3     # FMO, IMO, AMO: must stay clear (interrupts are EL1's)
HCR_TGE, HCR_E2H = 1 << 27, 1 << 34
CNTHCTL_EL1PCTEN_EL1PCEN = 0b11
ICC_SRE_ENABLE = 1 << 3
MDCR_TRAPS = (1 << 5) | (1 << 6) | (1 << 8) | (1 << 9)  # TPMCR, TPM, TDE, TDA
SPIN_OVERHEAD_MAX = 1000  # instructions of the runner's reads around one sample (as aarch64/test_pmu.py)


def _left_el2(b, gicv3=True):
    e = single(b.plat("el2"))
    assert (e["entry_el"], e["el"], e["action"]) == (2, 1, "dropped"), e
    hcr = int(str(e["hcr_el2"]), 16)
    assert hcr & HCR_RW and not hcr & (HCR_ROUTING | HCR_TGE | HCR_E2H), e
    assert int(str(e["cnthctl_el2"]), 16) & CNTHCTL_EL1PCTEN_EL1PCEN == CNTHCTL_EL1PCTEN_EL1PCEN
    if gicv3:  # QEMU virt's GICv3 by system registers
        assert int(str(e["icc_sre_el2"]), 16) & ICC_SRE_ENABLE
    else:      # a GICv2: ID_AA64PFR0_EL1.GIC = 0, no system registers to hand over
        assert "icc_sre_el2" not in e, e
    assert not int(str(e["mdcr_el2"]), 16) & MDCR_TRAPS
    ident = b.plat("aarch64_id")
    ident = ident[0] if isinstance(ident, list) else ident
    assert ident["el"] == 1  # read after the drop
    return e


def _boot_ok(b):
    assert "virtualization=on" in b.run["command_line"]
    assert not b.run["timed_out"] and b.run["exit_code"] == 0
    assert b.summary["ok"], b.summary["validation"]["problems"]
    assert b.summary["end"]["status"] == "ok", b.summary["messages"]
    assert not b.summary["faults"]
    assert not [m for m in b.summary["messages"] if m.get("level") == "error"], b.summary["messages"]


def test_pmu_given_to_el1_counts_exactly(a64el2pmu):
    b = a64el2pmu
    _boot_ok(b)
    e = _left_el2(b)
    pmu = b.plat("pmu")
    assert pmu["present"] == 1 and pmu["count_el"] == "el1", pmu
    assert e["hpmn"] == pmu["gp"] >= 1  # MDCR_EL2.HPMN: every event counter is EL1's
    (k,) = [c for c in b.summary["checks"] if c["name"] == "instructions_retired"]
    assert k["status"] == "pass" and k["measured"] == k["expected"] and k["tolerance"] == 0, k
    (spin,) = b.sets("spin")
    ev = spin["counters"]["events"]
    assert spin["counters"]["refused"] == [] and set(ev) == {"cycles", "instructions"}
    for v in ev["instructions"]["values"]:  # the loop's 2 per iteration and the reads' overhead
        assert 2 * spin["iters"] <= v <= 2 * spin["iters"] + SPIN_OVERHEAD_MAX, (v, spin["iters"])


def test_second_core_started_at_el2_runs_at_el1(a64el2run):
    b = a64el2run
    _boot_ok(b)
    _left_el2(b)
    smp = single(b.plat("smp"))
    assert smp["how"] == "psci" and smp["conduit"] == "smc" and smp["cpus_online"] == 2, smp
    (s,) = b.sets("smp_hello")
    assert s["n"] == s["received"] == 2 and s["complete"]


def test_interrupts_taken_at_el1(a64el2run):
    b = a64el2run
    g = single(b.plat("gic"))
    assert g["ready"] == 1 and g["gic_version"] == 3, g
    for src, wait in ONE_SHOT:
        check_one_shot_set(b, src, wait, N_LAT, WARMUP)
    checks = [c for c in b.summary["checks"] if c["name"] == "irq_cleanup"]
    assert sorted(c["probe"] for c in checks) == ["irq_exception", "irq_latency"]
    assert all(c["status"] == "pass" and c["left"] == 0 for c in checks), checks


def test_pmu_overflow_sampled_on_both_cores(a64el2run):
    check_ap_pmi_profile(a64el2run)


def test_gicv2_after_the_drop(a64el2gicv2):
    b = a64el2gicv2
    _boot_ok(b)
    _left_el2(b, gicv3=False)
    g = single(b.plat("gic"))
    assert g["ready"] == 1 and g["gic_version"] == 2 and g["gicr_ranges"] == 0, g
    assert single(b.plat("smp"))["cpus_online"] == 2
    n = CONFIGS["a64el2gicv2"].options["irq_samples"]
    for src, wait in ONE_SHOT:
        check_one_shot_set(b, src, wait, n, WARMUP)
    (c,) = [c for c in b.summary["checks"] if c["name"] == "irq_cleanup"]
    assert c["status"] == "pass" and c["left"] == 0, c


def test_stay_keeps_el2_and_says_why(a64el2):
    e = single(a64el2.plat("el2"))
    assert (e["entry_el"], e["el"], e["action"]) == (2, 2, "kept"), e
    assert "el2=stay" in e["reason"]
    assert any("staying there" in m.get("text", "") for m in a64el2.summary["messages"])
