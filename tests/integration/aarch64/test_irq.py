"""AArch64 interrupts under qemu-system-aarch64 -machine virt,gic-version=3 (TCG) with AAVMF: one
boot runs fault_irq (it faults with the periodic generic timer armed: the cleanup must stop it),
irq_latency (virtual-timer one-shot in every wait mode with the physical timer as the wfi guard,
self-SGIs, the re-armed periodic timer, the masked window) and irq_exception (brk and udf
resumed by the hooks). Structure, counts and invariants only: every armed interrupt taken exactly
once, nothing early, spurious or unexpected, every cleanup check passing. The boot runs under
`-icount shift=0`, where the counter is an instruction clock and QEMU delivers a timer interrupt at
the instruction its deadline falls on: there the one-shot's latency in the spin waits is a known
answer (the entry stamp is in the deadline's own tick, at most one tick later: a pass band fixed
before measuring). Other latencies are emulation numbers (sanity ranges only). The same boot profiles `spin` with the time-based
sampler on the virtual timer (profile_source=timer: auto would take the PMU's overflow, see
aarch64/test_profile.py): the samples, symbolised against the ELF the build keeps by the
image's build id, fall in arch_spin. ~12 s."""

import os


from bmharness.report import report
from conftest import check_one_shot_set, raw, single
from profile_checks import check_stream, prof_records, samples_by_function

from configs import CONFIGS  # the boot configurations (configs.py)

N_LAT = CONFIGS["a64irq"].options["irq_samples"]
WARMUP = 16
PROF_MIN_SAMPLES = 100
SPIN_SHARE_MIN = 0.9  # as tests/integration/x86_64/test_profile.py asks of x86 under TCG
ONE_SHOT = [("cntv_oneshot", w) for w in ("hlt", "spin", "spin_nopause", "l1d", "l2")] + \
    [("sgi_self", w) for w in ("spin", "spin_nopause", "l1d", "l2")]
GICD_CTLR_ARE_GRP1 = 0x12
INTID_CNTV, INTID_CNTP, INTID_SGI = 27, 30, 1
A64_EC_BRK, A64_EC_UNKNOWN = 0x3C, 0x00
ICOUNT_ONESHOT_MAX_TICKS = 1  # known answer under -icount shift=0 (spin waits)
MAX_SANE_TICKS = 62500000  # one second of the 62.5 MHz counter: anything beyond is broken, not slow


def test_boot_ok_and_gic_facts(a64irq):
    b = a64irq
    assert not b.run["timed_out"] and b.run["exit_code"] == 0
    assert b.summary["ok"], b.summary["validation"]["problems"]
    assert b.summary["end"]["status"] == "ok", b.summary["messages"]
    # only fault_irq's deliberate udf: the hooks resume irq_exception's brk/udf without a record
    assert [(f["probe"], f["name"], f["expected"]) for f in b.summary["faults"]] == [("fault_irq", "UNDEF", 1)]
    g = single(b.plat("gic"))
    assert g["ready"] == 1 and g["arch_rev"] == 3 and g["wait_timeouts"] == 0
    assert int(str(g["ctlr_now"]), 16) & GICD_CTLR_ARE_GRP1 == GICD_CTLR_ARE_GRP1
    assert g["bases_from"] in ("madt", "qemu_virt_default") and int(str(g["gicr"]), 16) > 0
    assert (g["intid_oneshot"], g["intid_guard"], g["intid_sgi"]) == (INTID_CNTV, INTID_CNTP, INTID_SGI)
    assert g["timer_hz"] == b.summary["sets"][0]["tsc_hz"] > 0
    assert g["stale_left"] == 0
    assert not [m for m in b.summary["messages"] if m.get("level") == "error"], b.summary["messages"]


def test_every_armed_interrupt_taken_exactly_once(a64irq):
    for src, wait in ONE_SHOT:
        s, p = check_one_shot_set(a64irq, src, wait, N_LAT, WARMUP)
        vals = raw(a64irq, s)
        assert len(vals) == N_LAT and 0 <= min(vals) and max(vals) < MAX_SANE_TICKS
        if src == "cntv_oneshot":
            # the compare value is the deadline: exact, so nothing may count as quantisation
            assert p["deadline"] == "cntv_cval" and p["delay_cycles"] > 0
            assert p["tick_cycles"] == 0 and p["early_quantised"] == 0
        else:
            assert p["deadline"] == "send_cntvct" and p["mode"] == "ipi"
        if wait == "hlt":
            # the guard is the guard vector's own timer (the EL1 physical one) and never fired
            assert p["guard"] == "cntv_oneshot" and p["guard_wakeups"] == 0


def test_oneshot_exact_under_icount(a64irq):
    """The compare value is the deadline: with an instruction clock the interrupt is taken in the
    deadline's tick (16 instructions of 1 ns each), whatever the wait touches."""
    assert "-icount" in a64irq.run["command_line"]
    for wait in ("spin", "spin_nopause", "l1d", "l2"):
        (s,) = a64irq.sets("irq_latency", source="cntv_oneshot", wait=wait)
        vals = raw(a64irq, s)
        assert len(vals) == N_LAT and max(vals) <= ICOUNT_ONESHOT_MAX_TICKS, (wait, sorted(vals)[-5:])


def test_periodic_and_masked(a64irq):
    (per,) = a64irq.sets("irq_latency", source="cntv_periodic")
    p = per["params"]
    assert per["n"] == N_LAT and per["complete"] and p["mode"] == "periodic"
    assert p["unexpected"] == 0 and p["spurious"] == 0 and p["invalid_negative"] == 0
    assert N_LAT + WARMUP <= p["taken"] <= p["armed"]
    assert p["lost"] == p["armed"] - p["taken"] and p["extra"] == 0
    assert p["uncertainty_max"] == 0  # the period start is the compare value that fired
    (m,) = a64irq.sets("irq_masked")
    q = m["params"]
    assert m["complete"] and m["n"] == 1024
    assert q["taken_masked"] == 0 and q["taken_after_unmask"] == 1
    assert q["arrived_after_deadline"] == 1 and q["lost"] == 0 and q["extra"] == 0
    assert q["masked_cycles"] > q["delay_cycles"]


def test_unavailable_sources_skipped_with_reason(a64irq):
    skips = {k.get("source"): k["reason"] for k in a64irq.summary["skips"] if k.get("probe") == "irq_latency"}
    assert set(skips) == {"tsc_deadline", "hpet"}
    assert "AArch64" in skips["tsc_deadline"] and "HPET" in skips["hpet"]
    assert not a64irq.sets("irq_latency", source="hpet")


def test_exception_round_trips(a64irq):
    for kind, ec in (("brk", A64_EC_BRK), ("udf", A64_EC_UNKNOWN)):
        (s,) = a64irq.sets("irq_exception", kind=kind)
        assert s["n"] == N_LAT and s["complete"] and s["params"]["vector"] == ec
        vals = raw(a64irq, s)
        assert min(vals) > s["overhead"] and max(vals) < MAX_SANE_TICKS


def test_cleanup_checks_pass(a64irq):
    checks = [c for c in a64irq.summary["checks"] if c["name"] == "irq_cleanup"]
    assert sorted(c["probe"] for c in checks) == ["fault_irq", "irq_exception", "irq_latency"]  # not spin
    assert all(c["status"] == "pass" and c["left"] == 0 for c in checks), checks


def test_report_has_interrupt_section(a64irq):
    text, _ = report.write_report(os.path.join(a64irq.out_dir, "parsed"), plot=False)
    for needle in ("INTERRUPTS", "Latency", "Exception round trip"):
        assert needle in text, needle


def test_spin_profiled_by_the_timer(a64irq):
    begin, ends, cost, data = prof_records(a64irq, "spin")
    check_stream(begin, ends, cost, data)
    (b,), (end,) = begin, ends
    assert b["source"] == "timer" and b["events"] == "time"
    assert "fallback" not in b  # profile_source=timer: chosen, not fallen back to
    assert int(end["samples"]) >= PROF_MIN_SAMPLES
    by = samples_by_function(b, data, image_only=True)
    assert sum(by.values()) == int(end["counted"])
    assert by.get("arch_spin", 0) >= SPIN_SHARE_MIN * sum(by.values()), by
