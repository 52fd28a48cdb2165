"""The figures' SVG made smaller, not different (report/svg_compact.py, figure.save): every path's
points stay within half a DIGITS step of matplotlib's, no element is dropped or rasterised, a
style moves to a group only when SVG would inherit it; and the dense figures are drawn as few
elements (the noise timeline one path, a histogram panel one polygon), not one per gap or bin."""

import re

import pytest

import synth
from bmharness.report import irq_plots, plots, svg_compact
from bmharness.stream import parse

TOL = 0.5 * 10 ** -svg_compact.DIGITS + 1e-9
ARITY = {"M": 2, "L": 2, "Q": 4, "C": 6, "H": 1, "V": 1, "Z": 0}


def points(d):
    """The absolute points of path data (M, L, H, V, Q, C, z; a repeated command without its
    letter), as a list of (command, x, y): H and V read back to the point they reach."""
    out, cur, start, cmd = [], (0.0, 0.0), (0.0, 0.0), None
    tokens = re.findall(r"[A-Za-z]|-?\d+(?:\.\d+)?", d)
    i = 0
    while i < len(tokens):
        if tokens[i].isalpha():
            cmd, i = tokens[i].upper(), i + 1
        n = ARITY[cmd]
        args = [float(t) for t in tokens[i:i + n]]
        i += n
        if cmd == "Z":
            cur = start
            out.append(("Z",) + cur)
            continue
        if cmd == "H":
            args = [args[0], cur[1]]
        elif cmd == "V":
            args = [cur[0], args[0]]
        for k in range(0, len(args), 2):
            cur = (args[k], args[k + 1])
            out.append(("M" if cmd == "M" else "L", ) + cur)
        start = cur if cmd == "M" else start
    return out


def test_short_path_cases():
    assert svg_compact.short_path("M 1.234567 2 \nL 1.234567 4 \nL 3 4 \n") == "M1.23 2V4H3"
    assert svg_compact.short_path("M 0 0 \nL 1 1 \nL 2 3 \nz \nM 5 5 \nL 5 -0.001") == \
        "M0 0L1 1 2 3zM5 5V0"
    assert svg_compact.short_path("M 0 0 C 1 2 3 4 5 6 C 1 2 3 4 5 6 L 5 9") == \
        "M0 0C1 2 3 4 5 6 1 2 3 4 5 6V9"
    assert svg_compact.short_path("M 0 0 M 1 1") == "M0 0M1 1"  # M repeated is not L


def test_hoist_only_shared_inherited_styles():
    same = ('<g clip-path="url(#p1)">\n<use xlink:href="#m" x="1.234" y="2" style="fill: #123"/>'
            '\n<use xlink:href="#m" x="3" y="4" style="fill: #123"/>\n</g>')
    got = svg_compact.compact(same)
    assert '<g clip-path="url(#p1)" style="fill: #123">' in got and got.count("style=") == 1
    assert 'x="1.23"' in got
    for other in (same.replace('y="4" style="fill: #123"', 'y="4" style="fill: #456"'),
                  same.replace("fill: #123", "opacity: 0.5")):  # opacity is not inherited
        assert svg_compact.compact(other).count("style=") == 2
    paths = ('<g id="LineCollection_1">\n<path d="M 1 2 \nL 1 3" clip-path="url(#p)" '
             'style="stroke: #000"/>\n<path d="M 2 2 \nL 2 5" clip-path="url(#p)" '
             'style="stroke: #000"/>\n</g>')
    assert svg_compact.compact(paths) == ('<g id="LineCollection_1" clip-path="url(#p)" style='
                                          '"stroke: #000">\n<path d="M1 2V3"/>\n'
                                          '<path d="M2 2V5"/>\n</g>')


@pytest.fixture
def plt():
    return pytest.importorskip("matplotlib.pyplot")


def _raw_svg(plt, fig, tmp_path):
    path = str(tmp_path / "raw.svg")
    with plt.rc_context({"svg.fonttype": "none"}):
        fig.savefig(path)
    plt.close(fig)
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def test_compact_keeps_every_element_and_point(plt, tmp_path):
    fig, ax = plt.subplots()
    xs = [i / 7.0 for i in range(300)]
    ax.errorbar(xs, [x * x / 3.0 for x in xs], yerr=0.3, marker="o", ms=3, capsize=2)
    ax.hist([(i * 37 % 101) / 3.0 for i in range(500)], bins=40, histtype="stepfilled",
            alpha=0.5)
    ax.step(xs, [i / 300.0 for i in range(300)], where="post", marker="v", markevery=30)
    ax.set_title("a title  with  spaces")
    raw = _raw_svg(plt, fig, tmp_path)
    small = svg_compact.compact(raw)
    assert len(small) < 0.75 * len(raw)
    for tag in ("<path ", "<use ", "<text ", "<g", "<clipPath"):
        assert small.count(tag) == raw.count(tag), tag
    assert "a title  with  spaces" in small
    before = [points(d) for d in re.findall(r'\sd="([^"]*)"', raw)]
    after = [points(d) for d in re.findall(r'\sd="([^"]*)"', small)]
    assert len(before) == len(after)
    for b, a in zip(before, after):
        assert [p[0] for p in b] == [p[0] for p in a]
        assert all(abs(p[1] - q[1]) <= TOL and abs(p[2] - q[2]) <= TOL for p, q in zip(b, a))
    assert not re.search(r'\sd="[^"]*\d\.\d{3}', small)  # no coordinate with 3+ decimals


def _svg_of(path):
    with open(path[:-4] + ".svg", encoding="utf-8") as fh:
        return fh.read()


def test_noise_timeline_is_one_path(plt, tmp_path):
    n = 3000
    nz = {"hz": 1e9, "starts": [i * 1000003 for i in range(n)],
          "lens": [1000 + (i * 7919) % 5000 for i in range(n)]}
    svg = _svg_of(irq_plots._noise(plt, nz, str(tmp_path), None))
    (gaps,) = [d for d in re.findall(r'\sd="([^"]*)"', svg) if d.count("M") > 100]
    assert gaps.count("M") == n and gaps.count("V") == n  # each gap a vertical line
    assert svg.count("<path ") < 40  # axes, ticks and this one, not a path per gap


def test_histogram_panel_is_one_polygon(plt, tmp_path):
    lat = [{"source": "lapic", "mode": "oneshot", "wait": "hlt", "hz": 1e9,
            "values": [1000 + (i * 7919) % 4000 for i in range(5000)]}]
    svg = _svg_of(irq_plots._hist(plt, lat, str(tmp_path), None))
    assert svg.count('style="fill: #4477aa"') == 1  # 80 bins, one filled outline


def test_set_histograms_one_polygon_a_panel(plt, tmp_path):
    s = synth.Stream().begin()
    s.probe("timer", 1, synth.timer_values(1, 400), method="rdtsc")
    s.probe("timer", 2, synth.timer_values(2, 400, base=60), method="rdtscp")
    log = tmp_path / "t.log"
    log.write_bytes(s.end(probes=2).data())
    out = tmp_path / "t"
    summary = parse.parse_log(str(log), str(out))
    info = plots.draw(summary, str(out))
    (path,) = [f[1] for f in info["files"] if "timer" in f[1]]
    svg = _svg_of(path)
    assert svg.count('style="fill: #4477aa"') == 2  # two panels, however many bins
