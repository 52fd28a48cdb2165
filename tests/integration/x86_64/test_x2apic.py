"""x2APIC mode for real: the SMP and interrupt probes on QEMU 10 (`-cpu max`, which implements
x2APIC under TCG) with option apic_mode=x2apic, and the refusal on QEMU 7.2 (no x2APIC).

OVMF hands over in xAPIC mode; with apic_mode=x2apic the BSP sets IA32_APIC_BASE.EXTD and every
AP sets its own in its start-up path. From then on every APIC access is an MSR: the APs are
started with INIT/STARTUP through the one 64-bit ICR write, woken from their halt with NMIs the
same way, and the interrupt probes use the timer (one-shot, periodic), the SELF IPI MSR, EOI and
the IRR/ISR reads of the cleanup in x2APIC encoding. One boot runs them all; it asserts the mode
was switched (not found), both CPUs came online and each read its own id through its x2APIC,
every armed interrupt was taken exactly once, every cleanup check passed and the only fault was
fault_irq's deliberate #UD. Latencies are emulation numbers: nothing is asserted about them.
QEMU fires its timers from a host thread that a loaded host can starve for tens of ms, so the
boot raises irq_timeout_ms to 2 s (as the other interrupt boots do): a late emulated timer is
then late, not lost, and every loss is a failure.

QEMU 10 comes from Debian bookworm-backports through scripts/qemu10.sh (unpacked under
build/qemu10, cached: ~13 MB on the first run, nothing after). Where the archive cannot be
reached the QEMU 10 tests are skipped with the script's reason; the QEMU 7.2 test always runs."""

import os


from conftest import check_membw_mc, check_one_shot_arms, single

from configs import CONFIGS  # the boot configurations (configs.py)

OPTS = CONFIGS["x2"].options
N_LAT = OPTS["irq_samples"]
N_DISP = OPTS["irq_disp_samples"]
WARMUP = 16
# Two irq_latency runs: one on a clean platform, one after fault_irq abandoned a periodic timer.
ONE_SHOT = [("lapic_oneshot", w) for w in ("hlt", "spin", "l1d", "l2")] + \
    [("self_ipi", w) for w in ("spin", "l1d", "l2")] + [("hpet", w) for w in ("hlt", "spin", "l1d", "l2")]
NEVER = ("lost", "early", "extra", "spurious", "unexpected")


def test_boot_ok_only_the_deliberate_fault(x2):
    assert not x2.run["timed_out"], "QEMU had to be killed"
    assert x2.run["qemu"].endswith(os.path.join("qemu10", "root", "usr", "bin", "qemu-system-x86_64"))
    assert x2.summary["ok"], x2.summary["validation"]["problems"]
    assert x2.summary["end"]["status"] == "ok", x2.summary["messages"]
    assert x2.run["firmware_status"] == 0
    assert x2.summary["end"]["unexpected_faults"] == 0
    assert [(f["probe"], f["name"], f["expected"]) for f in x2.summary["faults"]] == [("fault_irq", "#UD", 1)]


def test_bsp_switched_to_x2apic(x2):
    assert single(x2.plat("features"))["x2apic"] == 1
    apic = single(x2.plat("apic"))
    assert apic["ready"] == 1 and apic["x2apic_cpu"] == 1
    # switched by us (OVMF hands over in xAPIC mode), not found so
    assert apic["mode"] == "x2apic" and apic["lapic_mode_how"] == "switched"
    assert apic["lapic_mode_request"] == "x2apic"
    # the timer was calibrated through the current-count MSR: it counts
    assert apic["timer_hz"] > 0 and apic["lvt_now"] == "masked"
    assert apic["stale_left"] == 0
    msgs = [m["text"] for m in x2.summary["messages"] if m["text"].startswith("apic_mode=")]
    assert len(msgs) == 1 and "switched from xAPIC to x2APIC" in msgs[0]


def test_both_cpus_online_through_x2apic_init_sipi(x2):
    smp = single(x2.plat("smp"))
    assert smp["cpus_madt"] == 2 and smp["cpus_online"] == 2 and smp["failed"] == "none"
    assert smp["lapic_mode"] == "x2apic" and smp["lapic_mode_how"] == "switched"
    assert smp["how"] == "init-sipi"
    assert smp["aps_switched"] == 1  # the AP set its own EXTD
    assert str(smp["apic_ids"]) == "0,1"
    # smp_hello: each CPU read its own id from its x2APIC ID MSR and it matched the MADT's; the
    # AP, halted between jobs, was woken by NMIs sent through the x2APIC ICR
    (hello,) = x2.sets("smp_hello")
    assert hello["complete"] and str(hello["params"]["apic_ids"]) == "0,1"
    check_membw_mc(x2, 2)


def test_every_armed_interrupt_taken_exactly_once(x2):
    for src, wait in ONE_SHOT:
        sets = x2.sets("irq_latency", source=src, wait=wait)
        assert len(sets) == 2, (src, wait)
        for s in sets:
            p = s["params"]
            assert p["lapic_mode"] == "x2apic"
            assert s["n"] == N_LAT and s["complete"] and p["truncated_by_time"] == 0, (src, wait)
            check_one_shot_arms(p, N_LAT, WARMUP, (src, wait, p))
            for k in NEVER:
                assert p[k] == 0, (src, wait, k, p)
    for s in x2.sets("irq_latency", source="lapic_periodic"):
        p = s["params"]
        assert s["complete"] and N_LAT + WARMUP <= p["taken"] <= p["armed"] + 1
        assert p["unexpected"] == 0 and p["spurious"] == 0
    masked = x2.sets("irq_masked")
    assert len(masked) == 2
    for s in masked:
        assert s["params"]["taken_masked"] == 0 and s["params"]["taken_after_unmask"] == 1
    # QEMU 10 still has no TSC-deadline mode: a skip with the reason, never a fake set
    skips = [k for k in x2.summary["skips"] if k.get("source") == "lapic_tsc_deadline"]
    assert len(skips) == 2 and all("TSC_Deadline" in k["reason"] for k in skips)


def test_exceptions_and_displacement(x2):
    for kind in ("int3", "ud2"):
        (s,) = x2.sets("irq_exception", kind=kind)
        assert s["n"] == N_LAT and s["complete"]
    loaded = x2.sets("irq_displace", what="loaded")
    assert {s["params"]["handler"] for s in loaded} == {"w0", "w10000"}  # irq_disp_work
    for s in loaded:
        p = s["params"]
        assert p["taken"] > 0 and p["taken"] <= p["armed"] + 1, p
        for k in NEVER:
            assert p[k] == 0, (k, p)


def test_cleanup_checks_pass(x2):
    cleanups = [c for c in x2.summary["checks"] if c["name"] == "irq_cleanup"]
    assert {c["probe"] for c in cleanups} >= {"irq_latency", "fault_irq", "irq_exception", "irq_displace"}
    assert all(c["status"] == "pass" and c["left"] == 0 for c in cleanups), cleanups
    (faulted,) = [c for c in cleanups if c["probe"] == "fault_irq"]
    # the abandoned periodic timer was pending or in service, read from the IRR/ISR MSRs and taken
    assert faulted["delivered"] + faulted["in_service"] >= 1, faulted
    # Every check passes, except the displacement timing statistics: under plain TCG the emulated
    # delivery cost wanders with host load (as in x86_64/test_irq.py, they must only be present
    # here); x86_64/test_displace.py judges them where they are exact (-icount).
    timing = ("delivery_constant", "displace_vs_direct")
    judged = [c for c in x2.summary["checks"] if not (c.get("probe") == "irq_displace" and c["name"] in timing)]
    assert judged and all(c["status"] == "pass" for c in judged), [c for c in judged if c["status"] != "pass"]
    assert any(c["name"] == "delivery_constant" for c in x2.summary["checks"])


def test_qemu72_refuses_x2apic_without_cpuid(smp2):
    """QEMU 7.2's CPUs have no x2APIC: apic_mode=x2apic stays in xAPIC mode, says why, and the
    APs still come up (through the xAPIC ICR)."""
    b = smp2
    assert b.summary["ok"] and b.summary["end"]["status"] == "ok" and b.run["firmware_status"] == 0
    assert b.summary["cfg"]["apic_mode"] == "x2apic"
    assert single(b.plat("features"))["x2apic"] == 0
    msgs = [m for m in b.summary["messages"] if m["text"].startswith("apic_mode=x2apic")]
    assert len(msgs) == 1 and msgs[0]["level"] == "warn"
    assert "CPUID.1:ECX.x2APIC is 0" in msgs[0]["text"] and "staying in xAPIC" in msgs[0]["text"]
    apic = single(b.plat("apic"))
    assert apic["mode"] == "xapic" and apic["lapic_mode_how"] == "firmware"
    assert apic["lapic_mode_request"] == "x2apic"
    smp = single(b.plat("smp"))
    assert smp["lapic_mode"] == "xapic" and smp["lapic_mode_how"] == "firmware"
    assert smp["cpus_online"] == 2 and "aps_switched" not in smp
