"""The empirical roofline (analysis/roofline.py, report/roofline.py): roofline.json in the Empirical
Roofline Toolkit's layout, the Roofline section of report.md and report.html, and its figure.

Known answers, worked by hand from the synthetic samples: every flops set has the same 16 raw
samples (4 x 6030, 3 x 6035, 2 x 6040, 3 x 6050, 4 x 6060 cycles for 1000 operations, timer
overhead 40), so its median is 6.000 cycles per operation and the 95% CI of the median (order
statistics 4 and 13 of 16) is [5.99, 6.02]; at the synthetic 2.445 GHz counter the 256-bit fma
(96 FLOP per operation) gives 96 x 2.445 / 6 = 39.12 GFLOP/s, CI [96 x 2.445 / 6.02,
96 x 2.445 / 5.99]. The add chain (32768 cycles timed 32768 + 40 ticks) puts the core at the
counter's rate, so FLOP per core cycle is 96 / 6 = 16. The 512-bit set is faster (78.24) but its
exactness check failed: flagged, never the peak. The memory sweep's L1 reads 64 bytes per cycle
(synth.READ_BPC): 64 x 2.445 = 156.48 GB/s, so the L1 ridge is 39.12 / 156.48 = 0.25 FLOP/byte."""

import json
import os
import xml.etree.ElementTree as ET

import pytest

import synth
from bmharness.analysis import archinfo, roofline
from bmharness.report import figure, report
from bmharness.stream import parse

GHZ = synth.TSC_HZ / 1e9
SAMPLES = [6030] * 4 + [6035] * 3 + [6040] * 2 + [6050] * 3 + [6060] * 4
OVERHEAD = 40
# (width, FLOP per operation: lanes x 2 (a fused multiply-add) x 12 accumulators, check status)
WIDTHS = ((64, 24, "pass"), (128, 48, "pass"), (256, 96, "pass"), (512, 192, "fail"))
TCG = "TCGTCGTCGTCG"


def _flops_sets(widths=WIDTHS, core_clock=True, skips=()):
    """A `then` for synth.memory_stream: one flops set per width with its check, then skips."""
    def add(s, set_id):
        for width, fpo, status in widths:
            clock = dict(core_clock="add_chain", core_clock_cycles=synth.CHAIN_CYCLES,
                         core_clock_ticks_lo=synth.CHAIN_CYCLES + OVERHEAD,
                         core_clock_ticks_med=synth.CHAIN_CYCLES + OVERHEAD,
                         core_clock_ticks_hi=synth.CHAIN_CYCLES + 328 + OVERHEAD) \
                if core_clock else {}
            s.probe("flops", set_id, SAMPLES, iters=1000, overhead=OVERHEAD, kernel="fma",
                    width=width, insn="vfmadd231pd", precision="fp64", lanes=width // 64,
                    accumulators=12, flops_per_op=fpo, **clock)
            s.add("check", name="flops_exact", probe="flops", kernel="fma", width=width,
                  expected=fpo, measured=fpo if status == "pass" else fpo - 1, status=status)
            set_id += 1
        for width in skips:
            s.add("skip", probe="flops", kernel="fma", width=width, reason="CPU lacks AVX-512F")
        return set_id
    return add


def _memory(then=None, hv_sig=""):
    # powers of 2 from 4 KiB to 256 MiB, few samples: every level and DRAM, quick
    return synth.memory_stream(then=then, hv_sig=hv_sig, n=8, kernels=(("read", 256),),
                               latency=False)


def _flops_only(widths=WIDTHS, core_clock=True):
    """A boot with the flops probe alone: no bandwidth plateaus."""
    s = synth.Stream().begin()
    s.add("plat", kind="cpu", vendor="GenuineIntel", family=6, model=85, stepping=4,
          brand="Synthetic CPU", hypervisor=0, hv_sig="", logical_cpus=1)
    s.add("plat", kind="tsc", hz=synth.TSC_HZ, source="hpet", invariant=1)
    n = _flops_sets(widths, core_clock)(s, 0)
    return s.end(probes=n, skips=0)


def _report(tmp_path, stream, name="run", plot=True, html_page=False):
    log = tmp_path / (name + ".log")
    log.write_bytes(stream.data())
    out = tmp_path / name
    parse.parse_log(str(log), str(out))
    report.write_report(str(out), plot=plot, html_page=html_page)
    return out


def _load(out):
    with open(out / roofline.FILE) as fh:
        return json.load(fh)


@pytest.fixture
def roof_run(tmp_path):
    return _report(tmp_path, _memory(_flops_sets(skips=(1024,))), plot=False)


def test_ert_layout(roof_run):
    doc = _load(roof_run)
    assert set(doc) == {"empirical", "spec", "baremetric"}
    emp = doc["empirical"]
    assert set(emp) == {"metadata", "gflops", "gbytes"}
    for metric in ("gflops", "gbytes"):
        assert set(emp[metric]) == {"data", "metadata"}
        for pair in emp[metric]["data"]:
            assert len(pair) == 2 and isinstance(pair[0], str) and isinstance(pair[1], float)
        assert set(doc["spec"][metric]) == {"data"}
    assert emp["metadata"]["SOURCE"] == "baremetric" and emp["metadata"]["EMULATED"] is False
    assert doc["baremetric"]["format"] == roofline.FORMAT
    assert doc["baremetric"]["run"] == "run"


def test_compute_ceilings_known_answers(roof_run):
    doc = _load(roof_run)
    data = doc["empirical"]["gflops"]["data"]
    # the trusted ceilings, peak first; the failed 512-bit width is not an ERT ceiling
    assert [name for name, _ in data] == ["FP64 fma 256-bit GFLOPs", "FP64 fma 128-bit GFLOPs",
                                          "FP64 fma scalar GFLOPs"]
    assert [v for _, v in data] == pytest.approx([39.12, 19.56, 9.78], rel=1e-9)
    by_width = {c["width"]: c for c in doc["baremetric"]["compute"]}
    c = by_width[256]
    assert c["cycles_per_op"] == pytest.approx(6.0)
    assert [c["cycles_lo"], c["cycles_hi"]] == pytest.approx([5.99, 6.02])
    assert c["ci_lo_gflops"] == pytest.approx(96 * 2.445 / 6.02, rel=1e-9)
    assert c["ci_hi_gflops"] == pytest.approx(96 * 2.445 / 5.99, rel=1e-9)
    assert c["flop_per_cycle"] == pytest.approx(16.0, rel=1e-9)
    assert c["check"] == "pass" and c["flag"] is None and c["ci"] == "median"
    assert by_width[64]["flop_per_cycle"] == pytest.approx(4.0, rel=1e-9)
    assert doc["baremetric"]["skips"][0]["width"] == 1024


def test_failed_check_never_the_peak(roof_run):
    doc = _load(roof_run)
    bad = [c for c in doc["baremetric"]["compute"] if c["width"] == 512][0]
    assert bad["gflops"] == pytest.approx(192 * 2.445 / 6, rel=1e-9)  # the fastest set...
    assert bad["check"] == "fail" and "flops_exact failed" in bad["flag"]
    peak = doc["baremetric"]["peak"]
    assert peak["width"] == 256 and peak["gflops"] == pytest.approx(39.12, rel=1e-9)
    md = (roof_run / "report.md").read_text()
    section = md[md.index("## Roofline"):]
    assert "Peak: fma 256-bit, 39.12 GFLOP/s" in section
    assert "check flops_exact failed (expected 192, measured 191)" in section


def test_bandwidth_ceilings_and_ridges(roof_run):
    doc = _load(roof_run)
    gbytes = doc["empirical"]["gbytes"]["data"]
    assert [name for name, _ in gbytes] == ["L1", "L2", "L3", "DRAM"]
    l1 = gbytes[0][1]
    assert l1 == pytest.approx(64 * GHZ, rel=1e-2)
    # the same figure as the first screen's L1 read plateau (the headline's pick, not recomputed)
    with open(roof_run / "headline.json") as fh:
        hl = json.load(fh)
    assert l1 == hl["memory"]["levels"][0]["read"]["gbps"]
    assert gbytes[3][1] == hl["memory"]["dram"]["read"]["gbps"]
    ridges = {r["name"]: r["flop_per_byte"] for r in doc["baremetric"]["ridges"]}
    assert ridges["L1d"] == pytest.approx(39.12 / (64 * GHZ), rel=1e-2)  # 0.25
    for name, gbps in gbytes:
        key = "L1d" if name == "L1" else name
        assert ridges[key] == pytest.approx(39.12 / gbps, rel=1e-9)
    assert ridges["DRAM"] > ridges["L3"] > ridges["L2"] > ridges["L1d"]
    md = (roof_run / "report.md").read_text()
    assert "ridge FLOP/byte" in md and "0.250" in md[md.index("## Roofline"):]


def test_no_flops_sets_no_file(tmp_path):
    out = tmp_path / "none"
    out.mkdir()
    (out / roofline.FILE).write_text("{}")  # a stale one from an earlier report
    log = tmp_path / "none.log"
    log.write_bytes(_memory().data())
    parse.parse_log(str(log), str(out))
    report.write_report(str(out), plot=False)
    assert not (out / roofline.FILE).exists()
    assert (out / "vector.json").exists()
    md = (out / "report.md").read_text()
    section = md[md.index("## Roofline"):]
    assert section.split("\n\n")[1] == ("no roofline: the flops probe did not run in this boot "
                                        "(no flops sets)")


def test_every_width_skipped(tmp_path):
    out = _report(tmp_path, _memory(_flops_sets(widths=(), skips=(256, 512))), plot=False)
    assert not (out / roofline.FILE).exists()
    assert "no roofline: every flops width was skipped (CPU lacks AVX-512F)" in \
        (out / "report.md").read_text()


def test_no_bandwidth_compute_only(tmp_path):
    out = _report(tmp_path, _flops_only(core_clock=False), plot=False)
    doc = _load(out)
    assert doc["empirical"]["gbytes"]["data"] == [] and doc["baremetric"]["ridges"] == []
    assert doc["empirical"]["gflops"]["data"][0][1] == pytest.approx(39.12, rel=1e-9)
    # an older log: no core_clock fields, so no FLOP per cycle
    assert all(c["flop_per_cycle"] is None for c in doc["baremetric"]["compute"])
    assert "no bandwidth plateaus: compute ceilings only" in (out / "report.md").read_text()


def test_width_labels():
    assert roofline.width_label(64, archinfo.X86) == "scalar"
    assert roofline.width_label(512, archinfo.X86) == "512-bit"
    assert roofline.width_label(128, archinfo.A64) == "NEON 128-bit"
    assert roofline.width_label("sve", archinfo.A64, 256) == "SVE 256-bit"
    assert roofline.ert_level("L1d") == "L1" and roofline.ert_level("L2") == "L2"
    assert roofline.ert_level("DRAM") == "DRAM"


@pytest.fixture
def saved(monkeypatch):
    """{base name: figure} of every figure written."""
    out = {}
    monkeypatch.setattr(figure, "SAVE_HOOKS", [
        lambda fig, paths, n: out.__setitem__(os.path.basename(paths[0])[:-4], fig)])
    return out


def _svg_text(path):
    """Every text of an SVG file (which must parse as XML)."""
    return " ".join(t for t in ET.parse(str(path)).getroot().itertext() if t.strip())


def test_plot_written_with_labels(tmp_path, saved):
    pytest.importorskip("matplotlib")
    out = _report(tmp_path, _memory(_flops_sets(), hv_sig=TCG), name="tcg", html_page=True)
    assert (out / "roofline.png").stat().st_size > 1000
    text = _svg_text(out / "roofline.svg")
    for label in ("fma 256-bit 39.12 GFLOP/s (peak)", "fma 128-bit 19.56 GFLOP/s",
                  "fma scalar 9.780 GFLOP/s", "(check FAILED)", "L1d ridge 0.250",
                  figure.WATERMARK, "run tcg"):
        assert label in text, label
    for name in ("L1d", "L2", "L3", "DRAM"):
        assert "%s " % name in text and "GB/s" in text
    fig = saved["roofline"]
    (ax,) = fig.get_axes()
    assert ax.get_xscale() == ax.get_yscale() == "log"
    # lines distinguishable without colour: the horizontals differ in dash pattern or width,
    # and so do the diagonals (ridge markers are markers, not lines)
    lines = [ln for ln in ax.get_lines() if ln.get_linestyle() != "None"]
    flat = [ln for ln in lines if ln.get_ydata()[0] == ln.get_ydata()[-1]]
    slanted = [ln for ln in lines if ln not in flat]
    assert len(flat) == 4 and len(slanted) == 4
    for group in (flat, slanted):
        styles = {(str(ln._unscaled_dash_pattern), ln.get_linewidth()) for ln in group}
        assert len(styles) == len(group)
    legend = ax.get_legend()
    assert legend is not None
    fig.canvas.draw()
    box = legend.get_window_extent().transformed(fig.transFigure.inverted())
    assert box.x0 >= ax.get_position().x1  # legend outside the data
    doc = _load(out)
    assert doc["empirical"]["metadata"]["EMULATED"] is True
    assert doc["baremetric"]["emulated"]["emulator"] == "QEMU TCG"
    md = (out / "report.md").read_text()
    assert "EMULATED CPU (QEMU TCG" in md[md.index("## Roofline"):]
    page = (out / "report.html").read_text()
    start = page.index('id="s-roofline"')
    section = page[start:page.index("</details>", start)]
    assert "<svg" in section and "39.12" in section and "ridge FLOP/byte" in section


def test_html_section_without_plots(roof_run):
    report.write_report(str(roof_run), plot=False, html_page=True)
    page = (roof_run / "report.html").read_text()
    start = page.index('id="s-roofline"')
    section = page[start:page.index("</details>", start)]
    assert "<h2>Roofline</h2>" in section and "GFLOP/s" in section
    assert "roofline plot not drawn" in section


def test_aarch64_widths_and_counter_rate(tmp_path):
    """AArch64: scalar FMADD, NEON FMLA and SVE at vl_bits=256 timed on the generic timer (synth's
    62.5 MHz CNTFRQ): the SVE set's 96 FLOP in 6.000 ticks is 96 x 0.0625 / 6 = 1.000 GFLOP/s."""
    def add(s, set_id):
        for width, fpo, insn, extra in ((64, 24, "fmadd", {}), (128, 48, "fmla", {}),
                                        ("sve", 96, "fmla", {"vl_bits": 256})):
            s.probe("flops", set_id, SAMPLES, iters=1000, overhead=OVERHEAD, kernel="fma",
                    width=width, insn=insn, precision="fp64", lanes=fpo // 24,
                    accumulators=12, flops_per_op=fpo, **extra)
            s.add("check", name="flops_exact", probe="flops", kernel="fma", width=width,
                  expected=fpo, measured=fpo, status="pass")
            set_id += 1
        return set_id
    stream = synth.memory_stream(then=add, arch="aarch64", midr=synth.MIDR_N1, n=8,
                                 kernels=(("read", 128),), latency=False)
    out = _report(tmp_path, stream, plot=False)
    doc = _load(out)
    assert doc["empirical"]["gflops"]["data"] == [
        ["FP64 fma SVE 256-bit GFLOPs", pytest.approx(1.0, rel=1e-9)],
        ["FP64 fma NEON 128-bit GFLOPs", pytest.approx(0.5, rel=1e-9)],
        ["FP64 fma scalar GFLOPs", pytest.approx(0.25, rel=1e-9)]]
    assert doc["empirical"]["metadata"]["ARCH"] == "aarch64"
    assert doc["empirical"]["metadata"]["EMULATED"] is False
    md = (out / "report.md").read_text()
    assert "the counter rate (tsc_hz: CNTFRQ)" in md and "| fma | SVE 256-bit | fmla |" in md


def test_spec_dram_peak_and_summary_writes_it(tmp_path):
    """ERT's `spec` holds data-sheet figures: the SMBIOS DRAM peak (25600 MB/s) where there is
    one; `report --summary` writes roofline.json too."""
    log = tmp_path / "spec.log"
    log.write_bytes(synth.memory_stream(then=_flops_sets(), dram_mbps=25600, n=8,
                                        kernels=(("read", 256),), latency=False).data())
    out = tmp_path / "spec"
    parse.parse_log(str(log), str(out))
    report.write_summary(str(out))
    doc = _load(out)
    assert doc["spec"]["gbytes"]["data"] == [["DRAM", 25.6]]
    assert doc["spec"]["gflops"]["data"] == []
    assert doc["baremetric"]["peak"]["width"] == 256
