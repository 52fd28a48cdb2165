"""A probe that faults with a timer interrupt armed must leave nothing behind for the next one.

`fault_irq` starts the periodic APIC timer (50 µs) and takes a #UD that abandons it; while the
fault is reported with interrupts masked, the timer keeps requesting its vector, so an interrupt
is pending (IRR) when the cleanup runs. Before the drain, that interrupt was delivered into the
next probe's first window (one boot in three reported `extra=1` or `early=1` on the first
`irq_latency` set). The sequence is repeated REPS times in one boot and every repetition is
asserted: the cleanup found and took the left-over interrupt (the scenario really happened), and
every `irq_latency` set after it took each armed interrupt exactly once."""


from conftest import check_nothing_lost, check_one_shot_arms

from configs import CONFIGS  # the boot configurations (configs.py)

OPTS = CONFIGS["repeat"].options
REPS = OPTS["probes"].count("fault_irq")
N_LAT = OPTS["irq_samples"]
WARMUP = 16
ONE_SHOT = [("lapic_oneshot", w) for w in ("hlt", "spin", "l1d", "l2")] + \
    [("self_ipi", w) for w in ("spin", "l1d", "l2")] + [("hpet", w) for w in ("hlt", "spin", "l1d", "l2")]


def cleanups(b, probe):
    return [c for c in b.summary["checks"] if c["name"] == "irq_cleanup" and c["probe"] == probe]


def test_boot_ok(repeat):
    assert not repeat.run["timed_out"]
    assert repeat.summary["ok"], repeat.summary["validation"]["problems"]
    assert repeat.summary["end"]["status"] == "ok", repeat.summary["messages"]
    assert [f["probe"] for f in repeat.summary["faults"]] == ["fault_irq"] * REPS
    assert all(f["expected"] == 1 for f in repeat.summary["faults"])


def test_cleanup_took_what_the_fault_left(repeat):
    faulted = cleanups(repeat, "fault_irq")
    assert len(faulted) == REPS
    for c in faulted:
        assert c["status"] == "pass" and c["left"] == 0, c
        # the periodic timer was pending (or in service) every time: the leak was really there
        assert c["delivered"] + c["in_service"] >= 1, c
    after = cleanups(repeat, "irq_latency")
    assert len(after) == REPS
    assert all(c["status"] == "pass" and c["left"] == 0 for c in after), after


def test_every_repetition_takes_each_interrupt_once(repeat):
    for src, wait in ONE_SHOT:
        sets = repeat.sets("irq_latency", source=src, wait=wait)
        assert len(sets) == REPS, (src, wait)
        for rep, s in enumerate(sets):
            p = s["params"]
            check_one_shot_arms(p, N_LAT, WARMUP, (rep, src, wait, p))
            check_nothing_lost(p, (rep, src, wait))
    masked = repeat.sets("irq_masked")
    assert len(masked) == REPS
    for s in masked:
        assert s["params"]["taken_masked"] == 0 and s["params"]["taken_after_unmask"] == 1, s["params"]
