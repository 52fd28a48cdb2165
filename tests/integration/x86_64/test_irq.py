"""Interrupt probes under QEMU + OVMF (TCG): one boot runs them all (with 2 CPUs, so the
application processors' start-up keeps working next to the interrupt set-up), and one hosted run
shows the noise probe running in user space (the `-icount` displacement boot is in
x86_64/test_displace.py).

Latencies, costs and footprints under TCG are emulation numbers: only structure, counts and
invariants are asserted (every armed interrupt taken exactly once, nothing early, nothing
spurious; sample counts as configured; displacement and direct estimates both present). The
exact displacement checks are in x86_64/test_displace.py (-icount) and test_hosted_displace.py."""

import os
import subprocess

import pytest

from conftest import ROOT, check_noise_gaps, check_one_shot_set, raw, single
from bmharness.analysis import irq
from bmharness.report import report
from bmharness.stream import parse

from configs import CONFIGS  # the boot configurations (configs.py)

OPTS = CONFIGS["irqb"].options
N_LAT = OPTS["irq_samples"]
N_DISP = OPTS["irq_disp_samples"]
N_FP = OPTS["irq_fp_samples"]
ONE_SHOT = [("lapic_oneshot", w) for w in ("hlt", "spin", "spin_nopause", "l1d", "l2")] + \
    [("self_ipi", w) for w in ("spin", "spin_nopause", "l1d", "l2")] + \
    [("hpet", w) for w in ("hlt", "spin", "spin_nopause", "l1d", "l2")]
WARMUP = 16
HOSTED_BIN = os.path.join(ROOT, "build", "hosted", "baremetric")


def assert_ok(b):
    assert not b.run["timed_out"], "QEMU had to be killed"
    assert b.summary["ok"], b.summary["validation"]["problems"]
    assert b.summary["end"]["status"] == "ok", b.summary["messages"]
    assert b.run["firmware_status"] == 0
    # only fault_irq's deliberate #UD: the hooks resume the exception probe's int3/ud2
    assert [(f["probe"], f["name"], f["expected"]) for f in b.summary["faults"]] == \
        ([("fault_irq", "#UD", 1)] if "fault_irq" in b.summary["cfg"]["probes"] else [])


def test_boot_ok_and_platform_facts(irqb):
    assert_ok(irqb)
    apic = single(irqb.plat("apic"))
    assert apic["ready"] == 1 and apic["mode"] == "xapic" and apic["x2apic_cpu"] == 0
    assert apic["tsc_deadline"] == 0
    assert apic["timer_hz"] > 0 and len(str(apic["timer_hz_windows"]).split(",")) == 3
    assert apic["lvt_now"] == "masked" and apic["lvt_lint0_found"] == "0x700"  # OVMF: ExtINT
    io = single(irqb.plat("ioapic"))
    assert io["count"] >= 1 and io["inputs_now"] == "masked"
    assert single(irqb.plat("pic"))["now"] == "masked"
    hp = single(irqb.plat("hpet_irq"))
    assert hp["usable"] == 1 and hp["delivery"] == "ioapic" and hp["trigger"] == "edge"
    smp = single(irqb.plat("smp"))
    assert smp["cpus_online"] == 2, "the AP start-up must keep working"
    assert len(irqb.sets("smp_hello")) == 1


def test_every_armed_interrupt_taken_exactly_once(irqb):
    for src, wait in ONE_SHOT:
        s, p = check_one_shot_set(irqb, src, wait, N_LAT, WARMUP)
        assert p["lapic_mode"] == "xapic"
        vals = raw(irqb, s)
        assert len(vals) == N_LAT and min(vals) >= 0
        if src != "self_ipi":
            # never early: the deadline is the earliest due time, and nothing arrives before it
            assert p["delay_cycles"] > 0
        if wait == "hlt":
            assert p["guard"] in ("hpet", "lapic_oneshot") and p["guard_wakeups"] == 0


def test_hpet_and_periodic_paths(irqb):
    hp = irqb.sets("irq_latency", source="hpet")
    assert {s["params"]["wait"] for s in hp} == {"hlt", "spin", "spin_nopause", "l1d", "l2"}
    assert all(s["params"]["gsi"] == single(irqb.plat("hpet_irq"))["gsi"] for s in hp)
    (per,) = irqb.sets("irq_latency", source="lapic_periodic")
    p = per["params"]
    assert per["n"] == N_LAT and per["complete"]
    assert p["unexpected"] == 0 and p["spurious"] == 0
    assert N_LAT + WARMUP <= p["taken"] <= p["armed"]   # never more than the periods elapsed
    assert p["lost"] == p["armed"] - p["taken"] and p["extra"] == 0


def test_tsc_deadline_skipped_with_reason(irqb):
    skips = [k for k in irqb.summary["skips"] if k.get("source") == "lapic_tsc_deadline"]
    assert len(skips) == 1 and "TSC_Deadline" in skips[0]["reason"]
    assert not irqb.sets("irq_latency", source="lapic_tsc_deadline")


def test_masked_probe_loses_nothing(irqb):
    """An interrupt due while a probe runs masked is delivered once, after the unmask, and the
    masked probe's samples are complete."""
    (s,) = irqb.sets("irq_masked")
    p = s["params"]
    assert s["complete"] and s["received"] == s["n"] == 1024
    assert p["taken_masked"] == 0 and p["taken_after_unmask"] == 1
    assert p["arrived_after_deadline"] == 1 and p["lost"] == 0 and p["extra"] == 0
    assert p["masked_cycles"] > p["delay_cycles"]     # the deadline passed while masked
    vals = raw(irqb, s)
    assert len(vals) == 1024 and min(vals) > 0


def test_exception_round_trips(irqb):
    for kind in ("int3", "ud2"):
        (s,) = irqb.sets("irq_exception", kind=kind)
        assert s["n"] == N_LAT and s["complete"]
        assert min(raw(irqb, s)) > s["overhead"]


def test_displacement_and_direct_both_present(irqb):
    """Structure only under TCG (its timing is no machine's): per handler of the default work
    list, the window sets, one direct cost and one chunk excess per interrupt taken, and the
    check records (their status is asserted where the effect is real: -icount in
    x86_64/test_displace.py, hosted in test_hosted_displace.py)."""
    res = irq.analyse(irqb.summary, os.path.join(irqb.out_dir, "parsed"))
    work = [int(w) for w in str(irqb.summary["cfg"]["irq_disp_work"]).split(",")]
    rows = {r["work"]: r for r in res["displace"]}
    assert sorted(rows) == sorted(work)
    for w, r in rows.items():
        h = "w%d" % w
        (cnt,) = irqb.sets("irq_displace", what="count", handler=h)
        (direct,) = irqb.sets("irq_displace", what="direct", handler=h)
        (excess,) = irqb.sets("irq_displace", what="irq_excess", handler=h)
        assert cnt["n"] == N_DISP and r["windows"] == N_DISP
        assert direct["n"] == excess["n"] == sum(raw(irqb, cnt)) == r["interrupts"] > 0
        assert r["paired"] and r["win_displacement"] is not None and r["direct"] > 0
    checks = [c for c in irqb.summary["checks"] if c.get("probe") == "irq_displace"]
    assert sorted(c["work_cycles"] for c in checks if c["name"] == "displace_vs_direct") == sorted(work)
    assert [c["name"] for c in checks].count("delivery_constant") == 1


def test_noise(irqb):
    p = check_noise_gaps(irqb)
    assert p.get("smi") in ("not_intel", "unreadable") or "smi_count" in p


def test_report_has_interrupt_section(irqb, tmp_path):
    text, _ = report.write_report(os.path.join(irqb.out_dir, "parsed"), plot=True)
    for needle in ("INTERRUPTS", "Latency", "Exception round trip", "displacement vs direct",
                   "Cache footprint", "Platform noise"):
        assert needle in text, needle
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    for name in ("irq-latency-hist.png", "irq-latency-cdf.png", "noise-timeline.png"):
        assert os.path.getsize(os.path.join(irqb.out_dir, "parsed", name)) > 1000


def test_hosted_noise_says_not_masked(tmp_path):
    """Hosted, interrupts cannot be masked (signals stand in for the interrupt probes' sources:
    tests/integration/test_hosted_irq.py): the noise probe says its gaps include them."""
    if not os.access(HOSTED_BIN, os.X_OK):
        pytest.fail("%s missing: run `make hosted`" % HOSTED_BIN)
    r = subprocess.run([HOSTED_BIN, "probes=noise", "noise_ms=200"], capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    log = tmp_path / "hosted.log"
    log.write_bytes(r.stdout)
    summary = parse.parse_log(str(log), str(tmp_path))
    assert summary["ok"], summary["validation"]["problems"]
    noise = [s for s in summary["sets"] if s["name"] == "noise"]
    assert len(noise) == 3 and noise[0]["params"]["irq_masked"] == 0 and "irq_note" in noise[0]["params"]
