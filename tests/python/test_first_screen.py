"""The report's first screen (analysis/headline.py, report/headline.py): at most 25 lines of at
most 100 columns at the top of the terminal report and report.md, the EMULATED banner exactly for
QEMU TCG CPUs, plateaus that match the synthetic hierarchy, headline.json, `report --summary`,
the exit status of `report`, and no terminal report line wider than 160 columns."""

import json

import pytest

import synth
from bmharness import cli
from bmharness.analysis import headline as headline_analysis
from bmharness.report import doc as doc_mod
from bmharness.report import headline, report
from bmharness.stream import parse

GB = 1e9


def _parsed(tmp_path, stream, name="run"):
    log = tmp_path / (name + ".log")
    log.write_bytes(stream.data())
    out = tmp_path / name
    parse.parse_log(str(log), str(out))
    return out


def _with_checks(s, fail=False):
    """A memory stream with check and skip records added before its (new) end."""
    s.lines.pop()  # its end record
    s.seq -= 1
    s.add("check", name="irq_cleanup", probe="irq_latency", expected=0, measured=0, status="pass")
    s.add("check", name="irq_cleanup", probe="irq_footprint", expected=0, measured=0,
          status="pass")
    s.add("check", name="displace_vs_direct", probe="irq_displace", expected=4999911,
          measured=5348706, status="fail" if fail else "pass")
    for k in range(3):
        s.add("skip", probe="membw", reason="CPU lacks AVX-512F", set=900 + k)
    s.add("skip", probe="timer", reason="CPU lacks rdtscp")
    return s.end()


@pytest.fixture
def real_cpu(tmp_path):
    return _parsed(tmp_path, _with_checks(synth.memory_stream(hv_sig="")), "real")


@pytest.fixture
def tcg_x86(tmp_path):
    s = synth.memory_stream(hv_sig="TCGTCGTCGTCG", flat=True)
    return _parsed(tmp_path, _with_checks(s, fail=True), "tcg")


@pytest.fixture
def tcg_a64(tmp_path):
    return _parsed(tmp_path, _with_checks(synth.memory_stream(arch="aarch64", flat=True)), "a64")


def _first_screen(text):
    """The lines before the report's own title."""
    lines = text.splitlines()
    return lines[:lines.index("BAREMETRIC REPORT")]


@pytest.mark.parametrize("which", ["real_cpu", "tcg_x86", "tcg_a64"])
def test_first_screen_is_first_and_fits(which, request):
    out = request.getfixturevalue(which)
    text, _ = report.write_report(str(out), plot=False)
    first = _first_screen(text)
    assert first[0] == headline.TITLE.upper()
    assert 8 <= len([l for l in first if l.strip()]) <= headline.MAX_LINES
    assert max(len(l) for l in first) <= headline.WIDTH
    assert any(l.strip().startswith("STATUS") for l in first)
    md = (out / "report.md").read_text()
    assert md.startswith("# " + headline.TITLE)
    assert md.index("# baremetric report") > md.index("STATUS")


def test_emulated_banner_only_for_tcg(real_cpu, tcg_x86, tcg_a64):
    for out, emulated in ((real_cpu, False), (tcg_x86, True), (tcg_a64, True)):
        text, _ = report.write_summary(str(out))
        assert ("EMULATED CPU" in text) is emulated, out
        hl = json.loads((out / "headline.json").read_text())
        assert (hl["emulated"] is not None) is emulated
    assert "TCGTCGTCGTCG" in report.write_summary(str(tcg_x86))[0]
    assert "implementer 0x00" in report.write_summary(str(tcg_a64))[0]


def test_plateaus_match_the_synthetic_hierarchy(real_cpu):
    summary = json.loads((real_cpu / "summary.json").read_text())
    hl = headline_analysis.compute(summary, str(real_cpu))
    mem = hl["memory"]
    assert [lv["name"] for lv in mem["levels"]] == ["L1d", "L2", "L3"]
    assert mem["dram"]["measured"]
    hz = synth.TSC_HZ
    # the hit model mixes a level with the one below it inside its range: the plateau lies
    # between the two levels' figures, near this level's
    bpcs, lats = (1e9,) + synth.READ_BPC, (0.0,) + synth.LAT_CYCLES
    for i, lv in enumerate(mem["levels"] + [mem["dram"]], 1):
        rd = lv["read"]
        assert rd["ci_lo_gbps"] <= rd["gbps"] <= rd["ci_hi_gbps"]
        assert 0.9 * bpcs[i] * hz / GB <= rd["gbps"] < bpcs[i - 1] * hz / GB, lv["name"]
        lo, hi = lv["range_bytes"]
        assert rd["size_bytes"] > lo and (hi is None or rd["size_bytes"] <= hi)
        cycles = lv["latency"]["ns"] * hz / 1e9
        assert lats[i - 1] < cycles <= 1.1 * lats[i], lv["name"]
        assert lv["write"] is None  # the synthetic stream has read and copy kernels only
        assert lv["copy"]["gbps"] > 0
    assert [lv["knee_status"] for lv in mem["levels"]] == ["agree"] * 3
    # the levels' ranges do not overlap and grow
    ranges = [lv["range_bytes"] for lv in mem["levels"]]
    assert all(a[1] <= b[0] for a, b in zip(ranges, ranges[1:]))


def test_checks_and_skips_grouped(tcg_x86):
    summary = json.loads((tcg_x86 / "summary.json").read_text())
    hl = headline_analysis.compute(summary, str(tcg_x86))
    ch = hl["checks"]
    assert ch["n"] == 3 and ch["failed"] == 1
    assert sum(r["count"] for r in ch["rows"]) == ch["n"]
    assert ch["rows"][0]["status"] == "fail"  # failures first
    assert ch["rows"][0]["expected"] == 4999911 and ch["rows"][0]["measured"] == 5348706
    sk = hl["skips"]
    assert sk["n"] == len(summary["skips"])
    # the stream's own skip and the three added
    assert sk["reasons"][0] == {"reason": "CPU lacks AVX-512F", "count": 4, "probes": ["membw"]}
    text, ok = report.write_summary(str(tcg_x86))
    assert not ok and "FAILED: 1 check(s) failed" in text
    assert "displace_vs_direct  FAIL" in text


def test_check_rows_shrink_to_fit(real_cpu):
    """Many check groups: the screen still fits, the last row sums the rest up."""
    summary = json.loads((real_cpu / "summary.json").read_text())
    summary["checks"] = [{"name": "check_%d" % i, "probe": "p", "status": "pass", "expected": i,
                          "measured": i} for i in range(30)]
    hl = headline_analysis.compute(summary, str(real_cpu))
    text = headline.summary_text(hl, report.status_lines(summary))
    lines = text.splitlines()
    assert len(lines) <= headline.MAX_LINES and max(map(len, lines)) <= headline.WIDTH
    assert "more check group(s)" in text


def test_cli_summary_prints_only_the_first_screen(real_cpu, capsys):
    assert cli.main(["report", str(real_cpu), "--summary"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(headline.TITLE.upper()) and "BAREMETRIC REPORT" not in out
    assert len(out.splitlines()) <= headline.MAX_LINES + 1  # + the "wrote" line
    hl = json.loads((real_cpu / "headline.json").read_text())
    assert hl["format"] == headline_analysis.FORMAT and hl["status"]["ok"] is True
    assert not (real_cpu / "report.md").exists()


def test_cli_report_exit_status(tmp_path, tcg_x86, real_cpu):
    """report exits 1 on a FAILED run (a failed check) and on a truncated log, 0 when ok."""
    assert cli.main(["report", str(real_cpu), "--no-plots"]) == 0
    assert cli.main(["report", str(tcg_x86), "--no-plots"]) == 1
    assert cli.main(["report", str(tcg_x86), "--summary"]) == 1
    s = synth.full_stream()
    s.lines = s.lines[:-1]  # no end record
    cut = _parsed(tmp_path, s, "cut")
    assert cli.main(["report", str(cut), "--no-plots"]) == 1


# --- no terminal line wider than 160 columns -------------------------------------------------

def test_doc_text_wraps_and_splits_to_the_width():
    d = doc_mod.Doc()
    d.p("word " * 100)
    d.list(["item " * 80])
    d.kv([("key", "value " * 60)])
    d.table(["set", "params", "N"], [["1", "k=v " * 60, "16"], ["2", "short", "8"]])
    d.table(["source", "mode"] + ["col%d" % i for i in range(20)],
            [["lapic_oneshot", "oneshot"] + ["12345 [12000, 13000]"] * 20])
    text = d.text(doc_mod.TEXT_WIDTH)
    assert max(len(l) for l in text.splitlines()) <= doc_mod.TEXT_WIDTH
    words = sum(l.split().count("word") for l in text.splitlines())
    assert words == 100  # wrapped, nothing lost
    assert text.count("lapic_oneshot") >= 2 and "(continued:" in text  # split, key repeated
    assert text.count("12345 [12000, 13000]") == 20
    assert d.text() == doc_mod.Doc.text(d)  # unwrapped by default
    assert max(len(l) for l in d.text().splitlines()) > doc_mod.TEXT_WIDTH


def test_report_lines_within_160(tmp_path):
    """A full report with long parameter lists and reasons stays within the width."""
    s = synth.full_stream()
    s.lines.pop()
    s.seq -= 1
    s.probe("timer", 9, synth.timer_values(3, 200), method="rdtsc",
            **{"param_%d" % i: "value_%d" % i for i in range(12)})
    s.add("skip", probe="membw", reason="a long reason " * 20)
    out = _parsed(tmp_path, s.end(probes=4), "long")
    text, _ = report.write_report(str(out), plot=False)
    assert max(len(l) for l in text.splitlines()) <= doc_mod.TEXT_WIDTH
    assert max(len(l) for l in (out / "report.md").read_text().splitlines()) > doc_mod.TEXT_WIDTH


# --- QEMU's exit through isa-debug-exit -------------------------------------------------------

def test_debug_exit_code_is_said_as_the_firmware_status(real_cpu):
    from bmharness.analysis import run_verdict
    ok = {"exit_code": 1, "firmware_status": 0, "firmware_status_name": "ok", "duration_s": 3.0}
    assert run_verdict.exit_text(ok) == "firmware status ok (through the exit device)"
    assert "exit 1" not in run_verdict.exit_text(ok)
    fail = dict(ok, exit_code=3, firmware_status=1, firmware_status_name="fail")
    assert run_verdict.exit_text(fail) == "firmware status fail (through the exit device)"
    odd = dict(ok, exit_code=0, firmware_status=None, firmware_status_name="unknown")
    assert run_verdict.exit_text(odd).startswith("QEMU exit 0")
    (real_cpu / "run.json").write_text(json.dumps(dict(ok, arch="x86_64", config={})))
    text, _ = report.write_report(str(real_cpu), plot=False)
    assert "exit 1" not in text and "firmware status ok (through the exit device)" in text
    assert "QEMU 3.00 s" in "\n".join(_first_screen(text))


def test_system_named_when_smbios_gives_it(tmp_path):
    """SMBIOS System Information (plat kind=system) names the machine on its own line; without it
    (or present=0) there is no such line."""
    s = _with_checks(synth.memory_stream(hv_sig=""))
    s.lines.pop()
    s.seq -= 1
    s.add("plat", kind="system", source="smbios", present=1, manufacturer="QEMU",
          product="Standard PC (Q35 + ICH9, 2009)", version="pc-q35-7.2", serial_hash="none")
    out = _parsed(tmp_path, s.end(), "sys")
    first = _first_screen(report.write_report(str(out), plot=False)[0])
    (line,) = [l for l in first if l.strip().startswith("system")]
    assert "QEMU Standard PC (Q35 + ICH9, 2009)" in line
    assert json.loads((out / "headline.json").read_text())["machine"]["system"] == \
        "QEMU Standard PC (Q35 + ICH9, 2009)"
    plain = _parsed(tmp_path, _with_checks(synth.memory_stream(hv_sig="")), "nosys")
    first = _first_screen(report.write_report(str(plain), plot=False)[0])
    assert not [l for l in first if l.strip().startswith("system")]
