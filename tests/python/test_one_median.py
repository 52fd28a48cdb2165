"""One median and one CI per set, whichever view shows it (docs/methods/statistics.md): the first
screen (headline.json and its text), the Memory section, results.csv/json, compare and the
roofline give the same median and 95% CI for the same set.

The known answers are worked here from the set's raw file alone, without the harness's
statistics: with N = 16 samples per set (the default `samples`, an even count) the median is
the 8th smallest per-operation value, x_(ceil(N/2)), and its distribution-free 95% CI is
[x_(j), x_(N+1-j)] with the largest j whose binomial tail P(Binomial(16, 1/2) <= j - 1) is still
<= 2.5% (j = 4, coverage 1 - 2 x 697/65536 = 97.9%). The synthetic samples are jittered so the
two middle values differ: an interpolated median (their mean) anywhere would fail this test."""

import csv
import json
import math

import pytest

import synth
from bmharness import cli
from bmharness.analysis import compare, roofline
from bmharness.report import doc as report_doc, headline as headline_report, report
from bmharness.report.memory import range_text
from bmharness.stream import parse

N = 16
FLOPS_SAMPLES = [6030 + 3 * k + (k % 5) for k in range(N)]  # 16 distinct passes of 1000 ops
FLOPS_PER_OP = 96
OVERHEAD = 40


def _flops(s, set_id):
    s.probe("flops", set_id, FLOPS_SAMPLES, iters=1000, overhead=OVERHEAD, kernel="fma",
            width=256, insn="vfmadd231pd", precision="fp64", lanes=4, accumulators=12,
            flops_per_op=FLOPS_PER_OP)
    s.add("check", name="flops_exact", probe="flops", kernel="fma", width=256,
          expected=FLOPS_PER_OP, measured=FLOPS_PER_OP, status="pass")
    return set_id + 1


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("one_median")
    log = tmp / "run.log"
    log.write_bytes(synth.memory_stream(n=N, kernels=(("read", 256),), then=_flops).data())
    out = tmp / "run"
    assert cli.main(["parse", str(log), "--out", str(out)]) in (0, 1)
    report.write_report(str(out), plot=False)
    with open(out / "summary.json") as fh:
        summary = json.load(fh)
    return out, summary


def by_hand(out, s):
    """(median, ci lo, ci hi) of a set's per-op values, from its raw file and the binomial."""
    with open(out / s["raw_file"]) as fh:
        raw = [int(x) for x in fh if x.strip() and not x.startswith("#")]
    vals = sorted((v - s["overhead"]) / s["iters"] for v in raw if v < 1 << 63)
    n = len(vals)
    assert n == N
    tail, j = 0.0, 0
    while j < n // 2 and tail + math.comb(n, j) / 2 ** n <= 0.025:
        tail += math.comb(n, j) / 2 ** n
        j += 1
    assert j == 4  # N = 16: ranks 4 and 13 (the module docstring's hand count)
    return vals[math.ceil(n / 2) - 1], vals[j - 1], vals[n - j]


def _set(summary, n):
    return next(s for s in summary["sets"] if s["set"] == n)


def _split_middle(out, summary, picks):
    """The first plateau point whose set's two middle values differ (where the conventions
    part), with its set."""
    for p in picks:
        s = _set(summary, p["set"])
        with open(out / s["raw_file"]) as fh:
            v = sorted(int(x) for x in fh if x.strip() and not x.startswith("#"))
        if v[N // 2 - 1] != v[N // 2]:
            return p, s
    raise AssertionError("no plateau set with distinct middle values: the test cannot tell "
                         "the conventions apart")


def _gbps(s, cycles):
    return s["params"]["bytes_per_op"] * synth.TSC_HZ / cycles / 1e9


def test_bandwidth_set_same_everywhere(run):
    out, summary = run
    with open(out / "headline.json") as fh:
        hl = json.load(fh)
    rows = hl["memory"]["levels"] + [hl["memory"]["dram"]]
    pick, s = _split_middle(out, summary, [r["read"] for r in rows])  # a first-screen plateau
    med, lo, hi = by_hand(out, s)
    want = (_gbps(s, med), _gbps(s, hi), _gbps(s, lo))  # fewer cycles, more GB/s: ends swap
    assert s["stats"]["per_op"]["median"] == med       # summary.json
    assert (pick["gbps"], pick["ci_lo_gbps"], pick["ci_hi_gbps"]) == pytest.approx(want, rel=1e-12)
    # the first screen's text and the Memory section's table
    md = (out / "report.md").read_text()
    g3 = headline_report.g3
    assert "%s (%s-%s)" % (g3(want[0]), g3(want[1]), g3(want[2])) in md
    mem = md[md.index("## Memory"):]
    assert "| %s | %s |" % (report_doc.fnum(want[0]), range_text(want[1], want[2])) in mem
    # results.csv and results.json
    with open(out / "results.csv") as fh:
        row = next(r for r in csv.DictReader(fh) if int(r["set"]) == s["set"])
    got = tuple(float(row[k]) for k in ("median", "ci95_low", "ci95_high"))
    assert got == pytest.approx(want, rel=1e-9)
    with open(out / "results.json") as fh:
        res = next(r for r in json.load(fh)["rows"] if r["set"] == s["set"])
    assert (res["median"], res["ci95_low"], res["ci95_high"]) == pytest.approx(want, rel=1e-12)
    # compare (the run against itself: one boot a side, so the set's own median and CI)
    runs = [compare.load_run(str(out), str(out)) for _ in range(2)]
    cmp_row = next(r for r in compare.compare(*runs)["rows"] if r["set_a"] == s["set"])
    assert cmp_row["median_a"] == pytest.approx(want[0], rel=1e-12)
    assert cmp_row["median_ci_a"] == pytest.approx(list(want[1:]), rel=1e-12)
    # the roofline's bandwidth ceiling for that level
    with open(out / roofline.FILE) as fh:
        roof = json.load(fh)
    bw = next(b for b in roof["baremetric"]["bandwidth"] if b["set"] == s["set"])
    assert (bw["gbps"], bw["ci_lo_gbps"], bw["ci_hi_gbps"]) == pytest.approx(want, rel=1e-12)


def test_latency_set_same_everywhere(run):
    out, summary = run
    with open(out / "headline.json") as fh:
        hl = json.load(fh)
    rows = hl["memory"]["levels"] + [hl["memory"]["dram"]]
    pick, s = _split_middle(out, summary, [r["latency"] for r in rows])
    med, lo, hi = by_hand(out, s)
    want = tuple(v * 1e9 / synth.TSC_HZ for v in (med, lo, hi))
    assert (pick["ns"], pick["ci_lo_ns"], pick["ci_hi_ns"]) == pytest.approx(want, rel=1e-12)
    with open(out / "results.json") as fh:
        res = next(r for r in json.load(fh)["rows"] if r["set"] == s["set"])
    assert (res["median"], res["ci95_low"], res["ci95_high"]) == pytest.approx(want, rel=1e-12)
    runs = [compare.load_run(str(out), str(out)) for _ in range(2)]
    row = next(r for r in compare.compare(*runs)["rows"] if r["set_a"] == s["set"])
    assert (row["median_a"], *row["median_ci_a"]) == pytest.approx(want, rel=1e-12)


def test_flops_set_same_in_roofline_and_results(run):
    out, summary = run
    s = next(x for x in summary["sets"] if x["name"] == "flops")
    med, lo, hi = by_hand(out, s)
    mid = sorted(FLOPS_SAMPLES)[N // 2 - 1:N // 2 + 1]
    assert med == (mid[0] - OVERHEAD) / 1000 != (mid[1] - OVERHEAD) / 1000  # the lower middle
    rate = FLOPS_PER_OP * synth.TSC_HZ / 1e9
    with open(out / roofline.FILE) as fh:
        (c,) = json.load(fh)["baremetric"]["compute"]
    assert (c["gflops"], c["ci_lo_gflops"], c["ci_hi_gflops"]) == pytest.approx(
        (rate / med, rate / hi, rate / lo), rel=1e-12)
    with open(out / "results.json") as fh:
        res = next(r for r in json.load(fh)["rows"] if r["set"] == s["set"])
    assert (res["cycles"]["median"], res["cycles"]["ci95_low"], res["cycles"]["ci95_high"]) == (
        pytest.approx(med), pytest.approx(lo), pytest.approx(hi))


def test_parse_reads_raw_files_with_the_one_reader():
    """parse.read_raw is the statistics' reader (no copy of it left in stream/)."""
    from bmharness import stats
    assert parse.read_raw is stats.read_raw and parse.WRAP_LIMIT == stats.WRAP_LIMIT == 1 << 63
