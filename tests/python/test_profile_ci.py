"""Uncertainty of a profile's shares (analysis/profile.py, report/prof_report.py): every share
(per function, source line, instruction, within a function) carries its 95% Wilson score interval
(stats.wilson_ci), and a profile with fewer than profile.MIN_SAMPLES samples of an event
says so in profile.json and in the report. Profiles are synthesised without an ELF (pcs in the
image are one "not symbolised" row, pcs elsewhere "outside the image"), so no compiler is needed.
"""

import json

import pytest

from bmharness.analysis import profile
from bmharness.report import report
from bmharness import stats
from bmharness.stream import parse
from synth import Stream
from test_profile import prof_stream

BASE, SIZE = 0x7e5a0000, 0x10000
OUTSIDE_PC = 0x7ffff7a00000


def _run(tmp_path, inside, outside, name="run"):
    """A run whose profile of `spin` has `inside` samples in the image and `outside` beyond it."""
    s = Stream().begin()
    s.add("cfg", probes="spin", profile="spin")
    s.probe("spin", 0, [1000] * 8, iters=10)
    entries = [(BASE + 0x40, 0, inside), (OUTSIDE_PC, 0, outside)]
    prof_stream(s, "spin", BASE, SIZE, "00" * 20, {0: [e for e in entries if e[2]]})
    log = tmp_path / (name + ".log")
    log.write_bytes(s.end().data())
    out = tmp_path / name
    parse.parse_log(str(log), str(out))
    return out


def test_wilson_known_values():
    lo, hi = stats.wilson_ci(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    lo, hi = stats.wilson_ci(10, 100)
    assert lo == pytest.approx(0.0552, abs=1e-4) and hi == pytest.approx(0.1744, abs=1e-4)
    assert stats.wilson_ci(0, 20)[0] == 0.0 and stats.wilson_ci(0, 20)[1] > 0.1
    assert stats.wilson_ci(20, 20)[1] == 1.0 and stats.wilson_ci(20, 20)[0] < 0.9
    assert stats.wilson_ci(0, 0) is None


def test_wilson_contains_share_and_narrows():
    for n in (1, 2, 7, 30, 199, 200, 1000):
        for k in range(0, n + 1, max(1, n // 13)):
            lo, hi = stats.wilson_ci(k, n)
            assert 0.0 <= lo <= k / n <= hi <= 1.0
    widths = [hi - lo for lo, hi in (stats.wilson_ci(n // 4, n) for n in (40, 400, 4000, 40000))]
    assert widths == sorted(widths, reverse=True) and widths[-1] < widths[0] / 25


def test_profile_json_cis_and_few_samples_warning(tmp_path):
    out = _run(tmp_path, 50, 50)
    text, _ = report.write_report(str(out), plot=False)
    p = json.loads((out / "profile.json").read_text())["profiles"][0]
    assert p["totals"] == {"cycles": 100}
    for r in p["functions"]:
        assert r["share"]["cycles"] == pytest.approx(0.5)
        lo, hi = r["share_ci"]["cycles"]
        assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert p["shares_ci"]["cycles"][profile.OUTSIDE] == p["functions"][0]["share_ci"]["cycles"]
    for i in p["instructions"]:
        assert i["share_ci"]["cycles"][0] <= i["share"]["cycles"] <= i["share_ci"]["cycles"][1]
    assert p["min_samples"] == 200 and p["few_samples"] == {"cycles": 100}
    assert "fewer than 200 samples" in p["sample_warning"]
    md = (out / "report.md").read_text()
    for t in (text, md):
        assert "WARNING: fewer than 200 samples (100 cycles)" in t
        assert "50.0 [40.4-59.6]" in t and "% [95% CI]" in t


def test_enough_samples_no_warning_narrower(tmp_path):
    """199 samples warn, 200 do not; ten times the samples, about a third of the CI's width."""
    below = profile.analyse_run(str(_run(tmp_path, 100, 99, "below")))["profiles"][0]
    few = profile.analyse_run(str(_run(tmp_path, 100, 100, "few")))["profiles"][0]
    many = profile.analyse_run(str(_run(tmp_path, 1000, 1000, "many")))["profiles"][0]
    assert below["few_samples"] == {"cycles": 199} and below["sample_warning"]
    for p in (few, many):
        assert p["sample_warning"] is None and p["few_samples"] == {}
    w = [p["functions"][0]["share_ci"]["cycles"] for p in (few, many)]
    assert w[1][1] - w[1][0] < (w[0][1] - w[0][0]) / 2.5
    text, _ = report.write_report(str(tmp_path / "many"), plot=False)
    assert "WARNING: fewer than" not in text and "50.0 [47.8-52.2]" in text
