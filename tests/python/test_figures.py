"""The report's figures (report/figure.py, plots.py, irq_plots.py): every figure written has data
(figure.SAVE_HOOKS counts its data artists), comes as a PNG and an SVG, carries the machine and
the run, and the EMULATED watermark exactly when the CPU is emulated (QEMU TCG's CPUID vendor); a
set with nothing to plot writes no file; the bandwidth figure has a panel per kernel family with
its legend outside the axes; the interrupt CDFs differ in line style and marker, not only colour;
the footprint has CI bars and the y = x line. Streams are synth.py's."""

import os

import pytest

import synth
from bmharness.report import figure, irq_plots, report
from bmharness.stream import parse
from test_irq import _irq_stream

pytest.importorskip("matplotlib")

TCG = "TCGTCGTCGTCG"
KERNELS = (("read", 64), ("read", 256), ("write", 256), ("write_nt", 256), ("copy", 256))


@pytest.fixture
def saved(monkeypatch):
    """{base name: (figure, data artists)} of every figure written."""
    out = {}
    monkeypatch.setattr(figure, "SAVE_HOOKS", [
        lambda fig, paths, n: out.__setitem__(os.path.basename(paths[0])[:-4], (fig, n))])
    return out


def _report(tmp_path, stream, name):
    log = tmp_path / (name + ".log")
    log.write_bytes(stream.data() if hasattr(stream, "data") else stream.encode("latin-1"))
    out = tmp_path / name
    parse.parse_log(str(log), str(out))
    report.write_report(str(out))
    return out


def _memory(hv_sig):
    # powers of 2 only, few samples: enough for every figure, quick to draw
    return synth.memory_stream(hv_sig=hv_sig, kernels=KERNELS, n=8,
                               sizes=[1 << e for e in range(12, 27)])


def _check_files(out, saved):
    """Every figure a PNG + SVG pair, neither empty, each with data; no stray image file."""
    pngs = sorted(f[:-4] for f in os.listdir(out) if f.endswith(".png"))
    svgs = sorted(f[:-4] for f in os.listdir(out) if f.endswith(".svg"))
    assert pngs and pngs == svgs == sorted(saved)
    for base in pngs:
        assert (out / (base + ".png")).stat().st_size > 1000
        assert "<svg" in (out / (base + ".svg")).read_text()
        assert saved[base][1] > 0, base
    return pngs


def test_tcg_watermark_in_every_figure(tmp_path, saved):
    out = _report(tmp_path, _memory(TCG), "tcg")
    names = _check_files(out, saved)
    assert {"bandwidth", "latency"} <= set(names)
    for base in names:
        svg = (out / (base + ".svg")).read_text()
        assert figure.WATERMARK in svg and "Synthetic CPU" in svg and "run tcg" in svg, base


def test_real_cpu_no_watermark_bandwidth_panels(tmp_path, saved):
    out = _report(tmp_path, _memory(""), "real")
    for base in _check_files(out, saved):
        svg = (out / (base + ".svg")).read_text()
        assert figure.WATERMARK not in svg and "Synthetic CPU" in svg, base
    fig, _ = saved["bandwidth"]
    axes = fig.get_axes()
    assert [ax.get_title() for ax in axes] == ["read", "write", "copy"]
    # width as colour: read/64 and read/256 differ; write/256 and write_nt/256 share a colour
    # and differ in line style
    colours = {c.get_label(): (c.lines[0].get_color(), c.lines[0].get_linestyle())
               for ax in axes for c in ax.containers}
    assert colours["read/64"][0] != colours["read/256"][0]
    assert colours["write/256"][0] == colours["write_nt/256"][0]
    assert colours["write/256"][1] != colours["write_nt/256"][1]
    (legend,) = fig.legends
    right = max(ax.get_position().x1 for ax in axes)
    fig.canvas.draw()
    box = legend.get_window_extent().transformed(fig.transFigure.inverted())
    assert box.x0 >= right


def test_no_figure_without_data(tmp_path, saved):
    """A set of 2 values (smp_hello's start skew) draws no histogram and no file; a set of 16 does."""
    s = synth.Stream().begin()
    s.add("plat", kind="cpu", vendor="AuthenticAMD", brand="AMD EPYC", hypervisor=1, hv_sig=TCG)
    s.probe("timer", 0, synth.timer_values(n=16))
    s.probe("smp_hello", 1, [0, 307279], cpus=2, what="start_skew")
    out = _report(tmp_path, s.end(), "few")
    assert _check_files(out, saved) == ["hist-timer"]
    assert not (out / "hist-smp_hello.png").exists()
    assert "too few for a histogram" in (out / "report.md").read_text()


def test_empty_figure_not_written(tmp_path):
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    ax.plot([], [])
    ax.axvline(3, gid=figure.guide())  # a reference line alone is not data
    assert figure.save(plt, fig, str(tmp_path), "empty", None) is None
    assert os.listdir(tmp_path) == []


def test_irq_figures(tmp_path, saved):
    out = _report(tmp_path, _irq_stream(), "irq")
    names = _check_files(out, saved)
    assert {"irq-latency-hist", "irq-latency-cdf", "irq-footprint", "noise-timeline"} <= set(names)
    fig, _ = saved["irq-latency-cdf"]
    for ax in fig.get_axes():
        styles = [(ln.get_linestyle(), ln.get_marker()) for ln in ax.get_lines()]
        assert len(set(styles)) == len(styles)
    assert len({irq_plots.cdf_style(k) for k in range(32)}) == 32
    fig, _ = saved["irq-footprint"]
    (ax,) = fig.get_axes()
    guide = [ln for ln in ax.get_lines() if (ln.get_gid() or "").startswith(figure.GUIDE)]
    assert guide and list(guide[0].get_xdata()) == list(guide[0].get_ydata())  # y = x
    assert ax.containers and all(c.has_yerr for c in ax.containers)  # CI bars
