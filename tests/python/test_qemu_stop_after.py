"""run/qemu.py's stop_after: a run cut on purpose some seconds after a text reaches the serial log
(tests/integration/configs.py save_killed), sooner than its timeout. A shell stands in for QEMU:
it writes the serial log the way QEMU does (appending, a line split over two writes) and then
runs on, as a firmware stuck in a long probe would."""

import os
import time

from bmharness.run import qemu


def _fake(out, script):
    serial = os.path.join(str(out), "serial.log")
    return ["sh", "-c", script.replace("SERIAL", serial)]


def test_stopped_after_the_text(tmp_path):
    cmd = _fake(tmp_path, "printf 'one\\nskip probe=' >> SERIAL; sleep 0.7; "
                          "printf 'spin here\\n' >> SERIAL; sleep 30")
    t0 = time.monotonic()
    code, timed_out, interrupted, duration, stopped = qemu._run(
        cmd, 20, str(tmp_path), stop_after=("skip probe=spin ", 1))
    took = time.monotonic() - t0
    assert stopped and timed_out and not interrupted
    assert code is not None and code != 0  # ended by the signal, not by itself
    # the text was complete after ~0.7 s, then 1 s: well before the 20 s timeout
    assert 1.5 <= took < 10, took
    assert duration <= took


def test_timeout_when_the_text_never_comes(tmp_path):
    cmd = _fake(tmp_path, "printf 'other\\n' >> SERIAL; sleep 30")
    code, timed_out, _, _, stopped = qemu._run(cmd, 1.5, str(tmp_path),
                                               stop_after=("skip probe=spin ", 1))
    assert timed_out and not stopped


def test_a_run_that_ends_first_is_not_stopped(tmp_path):
    cmd = _fake(tmp_path, "printf 'skip probe=spin \\n' >> SERIAL; exit 3")
    code, timed_out, _, _, stopped = qemu._run(cmd, 20, str(tmp_path),
                                               stop_after=("skip probe=spin ", 5))
    assert code == 3 and not timed_out and not stopped


def test_without_stop_after_only_the_timeout(tmp_path):
    cmd = _fake(tmp_path, "printf 'skip probe=spin \\n' >> SERIAL; sleep 30")
    code, timed_out, _, _, stopped = qemu._run(cmd, 1, str(tmp_path))
    assert timed_out and not stopped
