"""AArch64 interrupts on a GICv2: qemu-system-aarch64 -machine virt,gic-version=2 -smp 2 (TCG,
AAVMF), whose MADT has a GICD entry of version 2 and GICC entries with the CPU interface's
Physical Base Address and no redistributor. One boot (config a64gicv2) runs smp_hello on both
cores, irq_latency (virtual-timer one-shot in every wait mode with the physical timer as the wfi
guard, self-SGIs through GICD_SGIR, the re-armed periodic timer, the masked window),
irq_exception, and membw_mc profiled on PMU overflow on both cores: the application processor
brings up its own banked PPI and CPU interface. The same structure as the GICv3 boots
(aarch64/test_irq.py, test_smp.py, test_profile.py): every armed interrupt taken exactly once,
nothing early, spurious or unexpected, every cleanup check passing; latencies are emulation
numbers (sanity bounds only). A second boot (a64gicv2noacpi, acpi=off) has no MADT: QEMU virt's
addresses are assumed and the GIC is told apart by GICv2's ICPIDR2 at GICD + 0xFE8 (GICv3's
GICD_PIDR2 at 0xFFE8 lies outside a GICv2's 4 KiB distributor frame and aborts). ~15 s."""

from conftest import check_one_shot_set, raw, single
from profile_checks import check_ap_pmi_profile

from configs import CONFIGS  # the boot configurations (configs.py)

N_LAT = CONFIGS["a64gicv2"].options["irq_samples"]
WARMUP = 16
ONE_SHOT = [("cntv_oneshot", w) for w in ("hlt", "spin", "spin_nopause", "l1d", "l2")] + \
    [("sgi_self", w) for w in ("spin", "spin_nopause", "l1d", "l2")]
INTID_CNTV, INTID_CNTP, INTID_SGI, INTID_PMU = 27, 30, 1, 23
GICV2_ARCH_REV = 2
QEMU_VIRT_GICD, QEMU_VIRT_GICC = 0x08000000, 0x08010000  # hw/arm/virt.c memmap (VIRT_GIC_DIST/CPU)
GICD_CTLR_ENABLE = 0x1
GICC_CTLR_ENABLE = 0x1
A64_EC_BRK, A64_EC_UNKNOWN = 0x3C, 0x00
MAX_SANE_TICKS = 62500000  # one second of the 62.5 MHz counter


def test_boot_ok_and_gicv2_facts(a64gicv2):
    b = a64gicv2
    assert "gic-version=2" in b.run["command_line"]
    assert not b.run["timed_out"] and b.run["exit_code"] == 0
    assert b.summary["ok"], b.summary["validation"]["problems"]
    assert b.summary["end"]["status"] == "ok", b.summary["messages"]
    assert not b.summary["faults"]
    g = single(b.plat("gic"))
    assert g["ready"] == 1 and g["gic_version"] == 2 and g["madt_gic_version"] == 2, g
    assert g["bases_from"] == "madt" and g["arch_rev"] == GICV2_ARCH_REV and g["gicr_ranges"] == 0
    assert int(str(g["gicd"]), 16) == QEMU_VIRT_GICD and int(str(g["gicc"]), 16) == QEMU_VIRT_GICC
    assert int(str(g["ctlr_now"]), 16) & GICD_CTLR_ENABLE
    assert int(str(g["cpu_ctlr_now"]), 16) & GICC_CTLR_ENABLE
    assert int(str(g["cpu_mask"]), 16) == 1  # CPU interface 0 on the boot CPU
    assert (g["intid_oneshot"], g["intid_guard"], g["intid_sgi"], g["intid_pmu"]) == \
        (INTID_CNTV, INTID_CNTP, INTID_SGI, INTID_PMU)
    assert g["guard_fires"] == 1 and g["stale_left"] == 0
    for k in ("gicr", "waker_found", "sre_found"):  # GICv3-only facts stay out
        assert k not in g, k
    assert not [m for m in b.summary["messages"] if m.get("level") == "error"], b.summary["messages"]


def test_hello_on_both_cores(a64gicv2):
    b = a64gicv2
    smp = single(b.plat("smp"))
    assert smp["how"] == "psci" and smp["cpus_madt"] == 2 and smp["cpus_online"] == 2
    (s,) = b.sets("smp_hello")
    assert s["n"] == s["received"] == 2 and s["complete"]
    assert sorted(int(x) for x in str(s["params"]["apic_ids"]).split(",")) == [0, 1]


def test_every_armed_interrupt_taken_exactly_once(a64gicv2):
    for src, wait in ONE_SHOT:
        s, p = check_one_shot_set(a64gicv2, src, wait, N_LAT, WARMUP)
        vals = raw(a64gicv2, s)
        assert len(vals) == N_LAT and 0 <= min(vals) and max(vals) < MAX_SANE_TICKS
        if src == "cntv_oneshot":
            assert p["deadline"] == "cntv_cval" and p["tick_cycles"] == 0 and p["early_quantised"] == 0
        else:
            assert p["deadline"] == "send_cntvct" and p["mode"] == "ipi"
        if wait == "hlt":
            assert p["guard"] == "cntv_oneshot" and p["guard_wakeups"] == 0


def test_periodic_and_masked(a64gicv2):
    (per,) = a64gicv2.sets("irq_latency", source="cntv_periodic")
    p = per["params"]
    assert per["n"] == N_LAT and per["complete"] and p["mode"] == "periodic"
    assert p["unexpected"] == 0 and p["spurious"] == 0 and p["invalid_negative"] == 0
    assert N_LAT + WARMUP <= p["taken"] <= p["armed"] and p["extra"] == 0
    (m,) = a64gicv2.sets("irq_masked")
    q = m["params"]
    assert m["complete"] and q["taken_masked"] == 0 and q["taken_after_unmask"] == 1 and q["lost"] == 0


def test_exception_round_trips(a64gicv2):
    for kind, ec in (("brk", A64_EC_BRK), ("udf", A64_EC_UNKNOWN)):
        (s,) = a64gicv2.sets("irq_exception", kind=kind)
        assert s["n"] == N_LAT and s["complete"] and s["params"]["vector"] == ec
        vals = raw(a64gicv2, s)
        assert min(vals) > s["overhead"] and max(vals) < MAX_SANE_TICKS


def test_cleanup_checks_pass(a64gicv2):
    checks = [c for c in a64gicv2.summary["checks"] if c["name"] == "irq_cleanup"]
    assert sorted(c["probe"] for c in checks) == ["irq_exception", "irq_latency"]
    assert all(c["status"] == "pass" and c["left"] == 0 for c in checks), checks


def test_pmu_overflow_sampled_on_both_cores(a64gicv2):
    check_ap_pmi_profile(a64gicv2)


def test_gicv2_without_acpi(a64gicv2noacpi):
    b = a64gicv2noacpi
    assert not b.run["timed_out"] and b.run["exit_code"] == 0
    assert b.summary["ok"], b.summary["validation"]["problems"]
    assert b.summary["end"]["status"] == "ok" and not b.summary["faults"]
    g = single(b.plat("gic"))
    assert g["ready"] == 1 and g["gic_version"] == 2 and g["bases_from"] == "qemu_virt_default", g
    assert int(str(g["gicc"]), 16) == QEMU_VIRT_GICC and g["guard_fires"] == 1
    n = CONFIGS["a64gicv2noacpi"].options["irq_samples"]
    for src, wait in ONE_SHOT:
        check_one_shot_set(b, src, wait, n, WARMUP)
