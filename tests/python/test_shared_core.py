"""A shared core under the L1 bytes per cycle (analysis/shared_core.py; docs/methods/
shared_core.md): the load reference beside the add chain (core_clock.load_ref), the verdict over the L1 plateau's
sets (spread, bimodal samples, the reference against the CPU's loads per cycle, the likely cause)
and the first screen's words for it -- on synthetic streams (synth.memory_stream's load_ref and
share: another thread taking part of the load ports during some sets, the add chain untouched)."""

import pytest

import synth
from synth import KiB, MiB
from bmharness.analysis import core_clock, headline, memory, shared_core
from bmharness.report import headline as headline_report, report
from bmharness.stream import parse

SIZES = [4 * KiB, 8 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, 1 * MiB, 4 * MiB, 128 * MiB]
L1_SETS = (0, 1, 2)        # the read curve's sets at 4, 8, 16 KiB: the L1 plateau (32 KiB L1)
SKX_LOADS = 2.0            # Skylake Server, synth's default CPU: 2 loads per cycle (limits.py)
CORE_HZ = synth.TSC_HZ     # the core at the TSC's rate: 64 B per TSC cycle = 64 B per core cycle


def parsed(tmp_path, stream):
    log = tmp_path / "run.log"
    log.write_bytes(stream.data())
    out = str(tmp_path / "run")
    summary = parse.parse_log(str(log), out)
    assert summary["ok"], summary["validation"]["problems"]
    return summary, out


def l1_read(tmp_path, **kw):
    summary, out = parsed(tmp_path, synth.memory_stream(core_hz=CORE_HZ, sizes=SIZES, n=16,
                                                        **kw))
    lv = headline.memory_levels(memory.analyse(summary, out))
    return lv, lv["levels"][0]["read"], out


def test_load_ref_is_loads_per_chain_cycle():
    f = dict(synth.core_clock_fields(CORE_HZ, synth.TSC_HZ, 40),
             **synth.load_ref_fields(3.0, CORE_HZ, synth.TSC_HZ, 40))
    ref = core_clock.load_ref(f, 40)
    assert ref["loads_per_cycle"] == pytest.approx(3.0, rel=1e-3)
    assert ref["hi"] == pytest.approx(3.0, rel=1e-3)           # the fastest timing
    assert ref["lo"] == pytest.approx(3.0 / 1.02, rel=1e-3)    # the slowest, 2% longer
    # no clock rate needed, and none from an older record or timings at the overhead
    assert core_clock.load_ref(synth.core_clock_fields(CORE_HZ, synth.TSC_HZ, 40), 40) is None
    assert core_clock.load_ref(dict(f, core_ref_ticks_lo=40), 40) is None


def test_steady_core_is_stated_plainly(tmp_path):
    lv, rd, _ = l1_read(tmp_path, load_ref=SKX_LOADS)
    sets = rd["sets"]
    assert sets["ok"] and sets["flags"] == [] and sets["cause"] is None
    assert sets["n"] == len(L1_SETS) and sets["ref_limit_per_cycle"] == SKX_LOADS
    assert sets["ref_per_cycle"] == pytest.approx(SKX_LOADS, rel=1e-3)
    assert sets["ref_fraction"] == pytest.approx(1, rel=1e-3)
    assert rd["load_ref"]["loads_per_cycle"] == pytest.approx(SKX_LOADS, rel=1e-3)
    lines = headline_report.per_cycle_lines(lv)
    assert lines[0].startswith("L1d B/cycle: read 64.0 = 1.00 of 2x32 B")  # no "?"
    assert not any("not steady" in x for x in lines)


def test_sibling_during_some_sets_names_the_shared_core(tmp_path):
    # another thread took a quarter of the ports during the 8 KiB set only: its bandwidth and its
    # reference drop 25%, the add chain holds
    lv, rd, out = l1_read(tmp_path, load_ref=SKX_LOADS, share=lambda i: 0.75 if i == 1 else 1.0)
    sets = rd["sets"]
    assert not sets["ok"] and sets["cause"] == shared_core.SHARED
    assert sets["ref_lo_per_cycle"] == pytest.approx(0.75 * SKX_LOADS, rel=1e-3)
    assert sets["ref_hi_per_cycle"] == pytest.approx(SKX_LOADS, rel=1e-3)
    assert sets["fraction_lo"] == pytest.approx(0.75, rel=0.02)
    assert sets["fraction_hi"] == pytest.approx(1.0, rel=0.02)
    assert sets["clock_hi_hz"] == pytest.approx(sets["clock_lo_hz"])
    assert any(f.startswith("0.75-1.00 of the limit over 3 sets") for f in sets["flags"])
    lines = headline_report.per_cycle_lines(lv)
    assert "= 1.00? of 2x32 B" in lines[0]     # the median set's figure, marked
    assert lines[1].startswith("L1d read not steady, likely another thread shared the core: ")
    text, _ = report.write_report(out, plot=False)
    first = text.split("\nSTATUS")[0]
    assert "L1d read not steady, likely another thread shared the core" in first


def test_sibling_through_the_whole_run_is_seen_against_the_cpus_loads(tmp_path):
    # the ports shared in every set: no spread to see, the reference low against the row's 2
    lv, rd, _ = l1_read(tmp_path, load_ref=SKX_LOADS, share=lambda i: 0.72)
    sets = rd["sets"]
    assert sets["cause"] == shared_core.SHARED and not sets["ok"]
    assert sets["ref_fraction"] == pytest.approx(0.72, rel=1e-3)
    assert sets["flags"] == ["load reference 1.44 of 2 loads/cycle"]
    assert rd["limit"]["fraction"] == pytest.approx(0.72, rel=0.02)
    assert "= 0.72? of 2x32 B" in headline_report.per_cycle_lines(lv)[0]


def test_bimodal_sets_with_a_steady_reference_name_no_cause(tmp_path):
    lv, rd, _ = l1_read(tmp_path, load_ref=SKX_LOADS, bimodal=(8 * KiB,))
    sets = rd["sets"]
    assert sets["bimodal_sets"] == 1 and sets["cause"] is None and not sets["ok"]
    assert sets["flags"][0] == "bimodal samples in 1 of 3 set(s)"
    line = headline_report.per_cycle_lines(lv)[1]
    assert line.startswith("L1d read not steady, cause unknown (the load reference held): "
                           "bimodal samples in 1 of 3 set(s)")


def test_older_records_without_a_reference(tmp_path):
    lv, rd, _ = l1_read(tmp_path, bimodal=(8 * KiB,))
    assert rd["load_ref"] is None and rd["sets"]["ref_per_cycle"] is None
    assert "cause unknown (no load reference)" in headline_report.per_cycle_lines(lv)[1]
    (tmp_path / "plain").mkdir()
    lv, rd, _ = l1_read(tmp_path / "plain")
    assert rd["sets"]["ok"]                    # nothing to flag: stated as before


def point(bpc, hz, ref, bimodal=False):
    return {"core_bpc": bpc, "core_clock": {"hz": hz}, "load_ref": {"loads_per_cycle": ref},
            "bimodal": bimodal}


def test_judge_clock_moved_and_unknown_row():
    row = {"loads": {64: (4, 8), 512: (2, 64)}}          # a Zen 5 like row: 4 scalar loads
    # the clock moved 20% between the sets, the reference with it (per chain cycle it held)
    v = shared_core.judge([point(128, 3.6e9, 4.0), point(100, 3.0e9, 3.2)], row, 128)
    assert v["cause"] == shared_core.CLOCK_MOVED
    assert "core clock 3.00-3.60 GHz over the sets" in v["flags"]
    # the clock held, the reference dropped: shared
    v = shared_core.judge([point(128, 3.6e9, 4.0), point(100, 3.61e9, 3.1)], row, 128)
    assert v["cause"] == shared_core.SHARED
    # no row: no limit to hold the reference against, its spread still seen
    v = shared_core.judge([point(128, 3.6e9, 4.0), point(127, 3.6e9, 3.98)], None, None)
    assert v["ok"] and v["ref_limit_per_cycle"] is None and v["fraction_lo"] is None
    assert shared_core.judge([], row, 128)["ok"]
    # an emulated CPU: the flags stay, no cause is named
    v = shared_core.judge([point(128, 3.6e9, 4.0), point(100, 3.61e9, 3.1)], row, 128,
                          emulated="QEMU TCG")
    assert v["cause"] is None and not v["ok"]
    assert shared_core.scalar_loads(row) == 4.0 and shared_core.scalar_loads(None) is None


def test_emulated_cpu_names_no_cause(tmp_path):
    # QEMU TCG (CPUID vendor TCGTCGTCGTCG): the reference moved, but it is the emulator's
    lv, rd, _ = l1_read(tmp_path, load_ref=SKX_LOADS, share=lambda i: 0.75 if i == 1 else 1.0,
                        hv_sig="TCGTCGTCGTCG")
    sets = rd["sets"]
    assert sets["emulated"] and sets["cause"] is None and not sets["ok"]
    assert headline_report.per_cycle_lines(lv)[1].startswith(
        "L1d read not steady, an emulator's timing: ")
