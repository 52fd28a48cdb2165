"""`capture` (harness/bmharness/stream/capture.py): a command's output as the stream (the way a
BMC's Serial-over-LAN is read), the status and silence lines, the stop at the `end` record, and
no run folder when nothing could be read. No serial hardware: the sources are shell commands
writing a synthetic stream (tests/python/synth.py), quickly or slowly."""

import io
import os
import shlex
import sys
import time

import pytest

import synth
from bmharness import cli
from bmharness.stream import capture

PY = shlex.quote(sys.executable)


def slow_writer(tmp_path, data, per_line_s=0.01, after_s=60.0):
    """A shell command printing `data` line by line, then staying alive `after_s` seconds."""
    log = tmp_path / "stream.log"
    log.write_bytes(data)
    script = tmp_path / "writer.py"
    script.write_text(
        "import sys, time\n"
        "for line in open(%r, 'rb'):\n"
        "    sys.stdout.buffer.write(line); sys.stdout.flush(); time.sleep(%r)\n"
        "time.sleep(%r)\n" % (str(log), per_line_s, after_s))
    return "%s %s" % (PY, shlex.quote(str(script)))


def test_command_output_is_the_stream(tmp_path):
    data = b"firmware noise\r\n" + synth.full_stream().data()
    src = tmp_path / "in.log"
    src.write_bytes(data)
    out = tmp_path / "run"
    res = capture.capture(None, str(out), command="cat %s" % shlex.quote(str(src)), grace=0.05, timeout=20)
    assert res["end_seen"] and res["bytes"] == len(data) and res["records"] > 10
    assert (out / "serial.log").read_bytes() == data
    assert (out / "capture.json").exists()


def test_end_record_stops_a_command_that_keeps_running(tmp_path):
    """The writer sleeps a minute after the end record: capture ends a grace period after `end`
    and terminates it."""
    cmd = slow_writer(tmp_path, synth.full_stream().data(), per_line_s=0.002, after_s=60)
    t0 = time.monotonic()
    res = capture.capture(None, str(tmp_path / "run"), command=cmd, grace=0.1, timeout=30)
    assert res["end_seen"] and not res["timed_out"] and not res["source_ended"]
    assert time.monotonic() - t0 < 15


def test_status_lines_show_bytes_records_and_probe(tmp_path):
    data = synth.full_stream().data()
    cmd = slow_writer(tmp_path, data, per_line_s=0.02, after_s=0)
    err = io.StringIO()
    res = capture.capture(None, str(tmp_path / "run"), command=cmd, grace=0.05, timeout=30,
                          status_stream=err, status_interval=0.05)
    lines = [l for l in err.getvalue().splitlines() if l.startswith("capture: ")]
    assert len(lines) >= 3, err.getvalue()
    assert "%d bytes, %d records" % (len(data), res["records"]) in lines[-1]
    assert any("probe timer" in l or "probe spin" in l for l in lines), lines
    assert "last record" in lines[-1]
    assert "\r" not in err.getvalue()  # not a terminal: plain lines


def test_status_line_is_rewritten_on_a_terminal():
    t = [100.0]
    err = io.StringIO()
    st = capture.Status(err, tty=True, interval=1.0, silence_s=30, clock=lambda: t[0])
    t[0] += 1.0
    st.tick()
    st.saw(40, [{"type": "probe", "fields": {"name": "membw"}}])
    t[0] += 1.5
    st.tick()
    st.finish()
    text = err.getvalue()
    assert text.count("\r") == 3 and text.endswith("\n") and text.count("\n") == 1
    assert "probe membw, last record 2 s ago" in text or "probe membw, last record 1 s ago" in text


def test_silence_warning_once_per_period():
    t = [0.0]
    err = io.StringIO()
    st = capture.Status(err, tty=False, interval=1000, silence_s=30, clock=lambda: t[0])
    for now in (10, 29, 30, 31, 59, 60, 61, 89):
        t[0] = now
        st.tick()
    warnings = [l for l in err.getvalue().splitlines() if "warning" in l]
    assert len(warnings) == 2 and "no record for 30 s" in warnings[0] and "none yet" in warnings[0]
    st.saw(10, [{"type": "msg", "fields": {}}])  # a record resets the count
    t[0] = 100
    st.tick()
    t[0] = 119.9
    st.tick()
    t[0] = 120
    st.tick()
    warnings = [l for l in err.getvalue().splitlines() if "warning" in l]
    assert len(warnings) == 3 and "no record for 20 s" not in warnings[2]


def test_silence_warning_with_a_short_threshold(tmp_path):
    """A source that sends noise but no record: warnings at each threshold, the data kept."""
    script = tmp_path / "noise.py"
    script.write_text("import sys, time\nsys.stdout.write('booting...\\n'); sys.stdout.flush()\n"
                      "time.sleep(30)\n")
    err = io.StringIO()
    res = capture.capture(None, str(tmp_path / "run"), command="%s %s" % (PY, script), timeout=1.0,
                          status_stream=err, status_interval=10, silence_s=0.3)
    warnings = [l for l in err.getvalue().splitlines() if "warning: no record" in l]
    assert 2 <= len(warnings) <= 4, err.getvalue()
    assert res["timed_out"] and res["records"] == 0
    assert (tmp_path / "run" / "serial.log").read_bytes() == b"booting...\n"


def test_missing_port_exit_2_and_no_folder(tmp_path, capsys):
    out = tmp_path / "c"
    rc = cli.main(["capture", "--port", "/dev/does-not-exist", "--out", str(out)])
    assert rc == 2 and "does not exist" in capsys.readouterr().err
    assert not out.exists()
    rc = cli.main(["capture", "--port", "/dev/does-not-exist", "--results", str(tmp_path / "results")])
    assert rc == 2 and not (tmp_path / "results").exists()


def test_command_without_output_exit_2_and_no_folder(tmp_path, capsys):
    out = tmp_path / "c"
    rc = cli.main(["capture", "--command", "echo no such bmc >&2; exit 3", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and "exit status 3" in err and "before any output" in err
    assert not out.exists()


def test_silent_source_writes_no_folder(tmp_path, capsys):
    out = tmp_path / "c"
    rc = cli.main(["capture", "--command", "sleep 5", "--out", str(out), "--timeout", "0.5"])
    assert rc == 1 and "no run folder written" in capsys.readouterr().out
    assert not out.exists()


def test_cli_capture_command_parses_and_reports(tmp_path, capsys):
    src = tmp_path / "in.log"
    src.write_bytes(synth.full_stream().data())
    out = tmp_path / "run"
    rc = cli.main(["capture", "--command", "cat %s" % shlex.quote(str(src)), "--out", str(out),
                   "--no-plots"])
    cap = capsys.readouterr()
    assert rc in (0, 1), cap.err
    assert "end record seen" in cap.out and "capture: " in cap.err
    assert os.path.exists(out / "summary.json") and os.path.exists(out / "serial.log")


def test_cli_needs_one_source(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["capture", "--port", "/dev/ttyS0", "--command", "cat x"])
    assert e.value.code == 2
    with pytest.raises(SystemExit):
        cli.main(["capture"])
