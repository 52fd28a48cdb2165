"""The run on the machine's own screen, for a user without a serial cable, read back as text from
QEMU screendumps (tests/integration/screen_text.py): the progress while the probes run (probe k of
N, sets, elapsed and time left), the closing headline the firmware computes from its own sets
(counter rate, memory per cache level, interrupt latency, checks, probes, where the results went)
held for hold_s with a key powering off at once, and, with no UART and nothing saved, the warning
and a wait for a key. Structure only: under TCG the numbers are emulation numbers."""

import re
import time

from conftest import IMAGE
from screen_text import ScreenRun, screen_lines

HOLD_S = 60
PROGRESS_1 = re.compile(r"^probe (\d+) of (\d+): (\w+), set (\d+) of this probe \((\d+) in the run\)$")
PROGRESS_2 = re.compile(r"^elapsed \d+:\d\d(, time left: estimated after the first probe|"
                        r", about \d+:\d\d left \(from the probes so far\))$")
MEM_ROW = re.compile(r"^  (L[1-4] \d+[KMG]|DRAM) +(-|\d+ +\d+[KMG]) +(-|\d+\.\d +\d+[KMG])$")
END_RECORDS = re.compile(rb" end records=(\d+) status=(\w+)")
# the closing line under the summary, one of show_and_hold's (efi/x86_64/finish.c)
CLOSING = re.compile(r"^(Press a key|No keyboard controller|Run over|Powering off|Restarting|Halting)")


def wait_end(run, timeout):
    """Wait for the end record on serial; returns (records, status)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = END_RECORDS.search(run.serial())
        if m:
            return int(m.group(1)), m.group(2).decode()
        assert run.running(), "QEMU exited before the end record"
        time.sleep(0.5)
    raise AssertionError("no end record within %d s" % timeout)


def finished(run, timeout=10):
    """The closing screen's non-blank lines, once drawn to its closing line (efi/x86_64/finish.c
    draws the headline, then the details, then the closing line: a screendump can fall between)."""
    deadline = time.monotonic() + timeout
    while True:
        lines = [x for x in run.shot() if x]
        if lines and lines[0].startswith("baremetric: run finished") and CLOSING.match(lines[-1]):
            return lines
        assert run.running(), "powered off before the closing line:\n" + "\n".join(lines)
        assert time.monotonic() < deadline, "no closing summary on screen:\n" + "\n".join(lines)
        time.sleep(1)


def test_summary_on_screen_then_key_powers_off(tmp_path):
    """The hold is timed from the end record, not from QEMU's start: the boot's own length (longer
    beside other boots) is not part of it, so the test runs beside the others."""
    run = ScreenRun(tmp_path, IMAGE, {"probes": "timer", "timer_samples": 64, "hold_s": HOLD_S}).start()
    try:
        records, status = wait_end(run, 90)
        ended = time.monotonic()
        lines = finished(run)
        assert status == "ok"
        assert lines[0] == "baremetric: run finished, status ok"
        assert re.match(r"^counter: TSC at \d+\.\d{3} MHz$", lines[1]), lines[1]
        assert "memory: not measured (membw read, latency random)" in lines
        assert "interrupt latency: not measured (irq_latency)" in lines
        assert "probes: 1 ok, 0 skipped, 0 failed" in lines
        assert "results: serial 0x3f8 (I/O port) at 115200 baud" in lines
        # the details, down to the status line the firmware wrote after the end record
        assert "status: ok, %d records sent" % (records + 1) in lines
        assert lines[-1] == "Powering off in %d s (a key powers off now)." % HOLD_S
        assert run.running(), "the machine powered off before hold_s ran out"
        run.key()
        run.proc.wait(timeout=15)
    finally:
        run.close()
    assert time.monotonic() - ended < HOLD_S, "the key did not end the hold"
    assert run.proc.returncode == 1  # isa-debug-exit, status ok


def progress_seen(shots, n_probes):
    """The progress lines of every shot taken while the probes ran: (k, name, probe sets, sets)."""
    seen = []
    for lines in shots:
        lines = [x for x in lines if x]
        if not lines or not lines[0].startswith("baremetric ") or "measuring" not in lines[0]:
            continue
        m = PROGRESS_1.match(lines[1]) if len(lines) > 2 else None
        if not m:
            continue  # the first probe not started yet
        assert PROGRESS_2.match(lines[2]), lines[2]
        k, n, name, probe_sets, sets = m.groups()
        assert int(n) == n_probes and 1 <= int(k) <= n_probes
        assert int(probe_sets) <= int(sets)
        assert ("time left: estimated" in lines[2]) == (k == "1"), lines[2]
        seen.append((int(k), name, int(probe_sets), int(sets)))
    return seen


def test_progress_then_headline(tmp_path):
    probes = ["timer", "latency", "membw"]
    # long enough that screendumps (a few per second under load) catch each probe's progress
    run = ScreenRun(tmp_path, IMAGE, {"probes": ",".join(probes), "mem_max_mb": 8, "samples": 128,
                                      "mem_kernels": "read", "timer_samples": 64, "hold_s": HOLD_S}).start()
    dumps = []
    try:
        while not END_RECORDS.search(run.serial()):
            assert run.running() and time.monotonic() - run.started < 240, "no end record"
            dumps.append(run.dump())
        records, status = wait_end(run, 10)
        lines = finished(run)
        run.key()
        run.proc.wait(timeout=15)
    finally:
        run.close()
    seen = progress_seen([screen_lines(d) for d in dumps], len(probes))
    assert len(seen) >= 3, "too few progress screens: %r" % seen
    assert seen == sorted(seen, key=lambda s: (s[0], s[3])), "the progress went backwards: %r" % seen
    assert all(probes[k - 1] == name for k, name, _, _ in seen)
    assert max(k for k, _, _, _ in seen) >= 2  # seen after the first probe, with an estimate
    assert status == "ok" and lines[0] == "baremetric: run finished, status ok"
    mem = lines.index("memory     read MB/s  at     load ns  at")
    rows = lines[mem + 1:lines.index("interrupt latency: not measured (irq_latency)")]
    assert rows and all(MEM_ROW.match(r) for r in rows), rows
    assert rows[0].startswith("  L1 ") and rows[-1].startswith("  DRAM")
    # 4 MiB reaches some cache level's band: both a bandwidth and a latency there
    assert any(not re.search(r" - ", r + " ") for r in rows), rows
    assert re.match(r"^checks: \d+ passed, 0 failed", [x for x in lines if x.startswith("checks:")][0])
    assert "probes: 3 ok, 0 skipped, 0 failed" in lines
    assert "status: ok, %d records sent" % (records + 1) in lines


def test_only_copy_waits_for_a_key(tmp_path):
    """No UART at the serial port and nothing saved (save=off: the boot stick would hold a copy):
    the screen says it holds the only copy and waits for a key (default options: no hold_s),
    then powers off."""
    run = ScreenRun(tmp_path, IMAGE, {"probes": "timer", "timer_samples": 64, "serial": "io:0x2e8",
                                      "save": "off"}).start()
    try:
        lines = finished(run, 90)
        assert lines[0] == "baremetric: run finished, status ok"
        assert "results: NOT SAVED: no serial port answered and nothing was written" in lines
        assert lines[-2:] == ["No serial port answered and nothing was saved: this screen is the only copy.",
                              "Press a key to power off (an hour without one powers off)."]
        time.sleep(3)
        assert run.running(), "the machine did not wait for a key"
        run.key()
        run.proc.wait(timeout=15)
    finally:
        run.close()
    assert run.proc.returncode == 1  # isa-debug-exit, status ok
    assert b"@BM " not in run.serial()
