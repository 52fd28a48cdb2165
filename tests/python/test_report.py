"""Report rendering on parsed synthetic logs (text, markdown, histogram PNGs)."""

import json

import pytest

import synth
from bmharness import cli
from bmharness.report import plots, report
from bmharness.stream import parse


@pytest.fixture
def parsed(tmp_path):
    log = tmp_path / "serial.log"
    log.write_bytes(synth.full_stream().data())
    out = tmp_path / "out"
    parse.parse_log(str(log), str(out))
    return out


def test_report_text_and_markdown(parsed):
    text, ok = report.write_report(str(parsed))
    assert ok
    md = (parsed / "report.md").read_text()
    for needle in ("AMD EPYC Processor", "TCGTCGTCGTCG", "32 KiB", "DRAM peak",
                   "no configured speed", "FACP,APIC,HPET", "hpet vs pm_timer", "rdtscp",
                   "not requested", "#UD", "no problems found", "OK: log complete"):
        assert needle in text, needle
        assert needle in md, needle
    assert "| set | probe | params |" in md
    assert "nanoseconds per operation" in text


def test_report_writes_png(parsed):
    pytest.importorskip("matplotlib")
    report.write_report(str(parsed))
    assert (parsed / "hist-timer.png").stat().st_size > 1000
    assert (parsed / "hist-spin.png").exists()
    assert "![histogram of timer](hist-timer.png)" in (parsed / "report.md").read_text()


def test_report_without_matplotlib(parsed, monkeypatch):
    monkeypatch.setattr(plots, "_matplotlib", lambda: (None, "matplotlib not importable (test)"))
    text, _ = report.write_report(str(parsed))
    assert "matplotlib not importable" in text
    assert "matplotlib not importable" in (parsed / "report.md").read_text()


def test_report_on_broken_log(tmp_path):
    s = synth.full_stream()
    lines = s.lines[:8] + s.lines[9:-1]  # a gap and no end
    log = tmp_path / "serial.log"
    log.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    parse.parse_log(str(log), str(out))
    text, ok = report.write_report(str(out), plot=False)
    assert not ok
    assert "FAILED" in text and "truncated" in text and "records 8 missing" in text


def test_report_with_failed_run(parsed):
    run = {"exit_code": 3, "firmware_status": 1, "firmware_status_name": "fail",
           "timed_out": False, "duration_s": 5.0, "command_line": "qemu-system-x86_64 ...",
           "config": {"shutdown": "debug-exit"}}
    (parsed / "run.json").write_text(json.dumps(run))
    text, ok = report.write_report(str(parsed), plot=False)
    assert not ok and "firmware exit status: fail" in text


def test_report_minimal_summary(tmp_path):
    # A log with only a begin record: every section must cope with missing data.
    s = synth.Stream().begin()
    log = tmp_path / "serial.log"
    log.write_bytes(s.data())
    parse.parse_log(str(log), str(tmp_path / "o"))
    text, ok = report.write_report(str(tmp_path / "o"))
    assert not ok and "cpu: not reported" in text and "no probe sets" in text


def test_cli_report_missing_dir(tmp_path, capsys):
    assert cli.main(["report", str(tmp_path / "none")]) == 2
    assert "summary.json" in capsys.readouterr().err
