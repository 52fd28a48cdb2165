"""Run comparison: the t distribution without scipy, Welch's test, matching sets across two
synthetic runs, compare.md and the `compare` command."""

import json
import random

import pytest

import synth
from bmharness import cli, stats
from bmharness.analysis import compare
from bmharness.report import compare as compare_report
from bmharness.stream import parse


# --- the test statistics ---------------------------------------------------------------------

def test_mann_whitney_known_value():
    # scipy.stats.mannwhitneyu([1..5], [6..10], method="asymptotic"): U = 25, p = 0.012185
    t = compare.mann_whitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])
    assert t["u"] == 25 and t["z"] > 0 and t["p"] == pytest.approx(0.0121857, abs=1e-6)
    assert compare.mann_whitney([6, 7, 8, 9, 10], [1, 2, 3, 4, 5])["z"] < 0
    assert compare.mann_whitney([5, 5, 5], [5, 5])["p"] == 1.0
    assert compare.mann_whitney([5], [6, 7]) is None


def test_mann_whitney_against_scipy():
    sp = pytest.importorskip("scipy.stats")
    r = random.Random(3)
    for _ in range(100):
        a = [r.randint(0, 12) for _ in range(r.randint(2, 60))]  # many ties
        b = [r.randint(0, 14) for _ in range(r.randint(2, 60))]
        want = sp.mannwhitneyu(b, a, alternative="two-sided", method="asymptotic")
        got = compare.mann_whitney(a, b)
        assert got["u"] == want.statistic
        assert got["p"] == pytest.approx(want.pvalue, rel=1e-9, abs=1e-12)


def test_hl_shift_is_the_median_of_pairwise_differences():
    r = random.Random(5)
    for _ in range(60):
        a = [r.choice((r.randint(0, 30), r.random() * 30)) for _ in range(r.randint(1, 25))]
        b = [r.choice((r.randint(0, 30), r.random() * 30)) for _ in range(r.randint(1, 25))]
        diffs = sorted(y - x for x in a for y in b)
        m = len(diffs)
        want = diffs[(m + 1) // 2 - 1]   # rank ceil(m/2): the harness's median convention
        assert want == stats.median(diffs)
        assert compare.hl_shift(a, b) == pytest.approx(want, abs=1e-9)
        # the same statistic as the test: its sign is the sign of U - mn/2
        t = compare.mann_whitney(a, b)
        if t is not None and want != 0:
            u_excess = t["u"] - len(a) * len(b) / 2
            assert u_excess == 0 or (u_excess > 0) == (want > 0)


def test_benjamini_hochberg():
    # R: p.adjust(c(0.01, 0.04, 0.03, 0.005, 0.5), "BH") = 0.025 0.05 0.05 0.025 0.5
    q = compare.benjamini_hochberg([0.01, 0.04, 0.03, 0.005, None, 0.5])
    assert q[4] is None
    assert [round(x, 10) for x in q[:4] + q[5:]] == [0.025, 0.05, 0.05, 0.025, 0.5]
    assert compare.benjamini_hochberg([]) == []


# --- two synthetic runs -----------------------------------------------------------------------

SD = 20


def run_stream(seed=1, shift=0.0, drop=(), extra=False, target=26000):
    """timer, spin (per-sample noise SD cycles around 5000, shifted by shift * SD), and a latency
    set whose calibration parameter differs from run to run."""
    r = random.Random(seed)
    s = synth.Stream().begin()
    s.add("plat", kind="tsc", hz=synth.TSC_HZ, source="hpet", hz_pm=synth.TSC_HZ,
          hz_hpet=synth.TSC_HZ, hz_cpuid15=0, hz_cpuid16=0, disagree_ppm=0.1, invariant=1)
    if "timer" not in drop:
        s.probe("timer", 1, synth.timer_values(seed), method="rdtsc")
    if "spin" not in drop:
        s.probe("spin", 2, [int(round(5000 + shift * SD + r.gauss(0, SD))) for _ in range(40)],
                iters=100, overhead=44)
    s.probe("latency", 3, [int(round(r.gauss(4000, 10))) for _ in range(24)], iters=1000,
            overhead=40, target=target, cal_steps=r.randint(1, 9), pattern="random",
            size=4096, line=64, nodes=64, stride=64, seed=seed, page="2M")
    if extra:
        s.probe("spin", 4, [6000 + k % 3 for k in range(16)], iters=100, overhead=44, unroll=4)
    return s.end()


def make_run(tmp_path, name, **kw):
    log = tmp_path / ("%s.log" % name)
    log.write_bytes(run_stream(**kw).data())
    out = tmp_path / name
    parse.parse_log(str(log), str(out))
    return out


def load(path, tmp_path):
    return compare.load_run(str(path), str(tmp_path))


def by_name(res):
    return {r["name"]: r for r in res["rows"]}


def test_identical_runs_not_significant(tmp_path):
    a = make_run(tmp_path, "a")
    res = compare.compare(load(a, tmp_path), load(a, tmp_path))
    assert len(res["rows"]) == 3 and not res["only_a"] and not res["only_b"]
    for row in res["rows"]:
        assert row["p"] == pytest.approx(1.0) and row["significant"] is False
        assert row["diff"] == 0 and row["verdict"] == "no significant difference"


def test_shift_of_ten_sigma_is_significant(tmp_path):
    a = make_run(tmp_path, "a", seed=1)
    b = make_run(tmp_path, "b", seed=2, shift=10.0, target=27000)  # other seed, other target
    res = compare.compare(load(a, tmp_path), load(b, tmp_path))
    rows = by_name(res)
    spin = rows["spin"]
    assert spin["significant"] and spin["p"] < 1e-10 and spin["practical"]
    assert spin["pct"] == pytest.approx(100 * 10 * SD / 5000, abs=0.5)  # 4%
    assert spin["verdict"] == "B slower" and spin["n_a"] == spin["n_b"] == 40
    assert rows["latency"]["set_b"] == 3  # matched although target/cal_steps/seed differ
    res = compare.compare(load(b, tmp_path), load(a, tmp_path))
    assert by_name(res)["spin"]["verdict"] == "B faster"


def test_small_shift_below_threshold(tmp_path):
    a = make_run(tmp_path, "a", seed=1)
    b = make_run(tmp_path, "b", seed=1, shift=3.0)  # same noise, +60 cycles = 1.2%
    row = by_name(compare.compare(load(a, tmp_path), load(b, tmp_path)))["spin"]
    assert row["significant"] and not row["practical"]
    assert row["verdict"] == "significant, below threshold"
    row = by_name(compare.compare(load(a, tmp_path), load(b, tmp_path),
                                  threshold_pct=1.0))["spin"]
    assert row["verdict"] == "B slower"


def test_missing_sets_listed(tmp_path):
    a = make_run(tmp_path, "a", drop=("timer",))
    b = make_run(tmp_path, "b", drop=("spin",), extra=True)
    res = compare.compare(load(a, tmp_path), load(b, tmp_path))
    assert [r["name"] for r in res["rows"]] == ["latency"]
    assert [s["name"] for s in res["only_a"]] == ["spin"]
    assert sorted((s["name"], s["set"]) for s in res["only_b"]) == [("spin", 4), ("timer", 1)]
    doc = compare_report.build_doc(load(a, tmp_path), load(b, tmp_path), res)
    text = doc.text()
    assert "Only in A" in text and "Only in B" in text and "unroll=4" in text


def test_repeated_parameter_sets_pair_in_order():
    def st(set_id):
        return {"name": "spin", "set": set_id, "params": {"x": 1}}
    pairs, only_a, only_b = compare.match_sets([st(1), st(2), st(3)], [st(7), st(8)])
    assert [(a["set"], b["set"]) for a, b in pairs] == [(1, 7), (2, 8)]
    assert [s["set"] for s in only_a] == [3] and only_b == []


def test_missing_raw_file_is_not_tested(tmp_path):
    a = make_run(tmp_path, "a", seed=1)
    b = make_run(tmp_path, "b", seed=2, shift=10.0)
    summary = json.loads((b / "summary.json").read_text())
    spin = [s for s in summary["sets"] if s["name"] == "spin"][0]
    (b / spin["raw_file"]).unlink()
    res = compare.compare(load(a, tmp_path), load(b, tmp_path))
    row = by_name(res)["spin"]
    assert row["significant"] is None and row["verdict"] == "-" and row["p"] is None
    assert row["diff"] > 0  # the medians are still shown
    assert any("raw samples missing" in n for n in row["notes"])
    assert res["tests"] == 2  # and it does not count as a test in the correction


# --- the command ------------------------------------------------------------------------------

def test_cli_compare_dirs(tmp_path, capsys):
    a = make_run(tmp_path, "a", seed=1)
    b = make_run(tmp_path, "b", seed=2, shift=10.0)
    assert cli.main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "BAREMETRIC COMPARE" in out and "B slower" in out and "wrote" in out
    md = (b / "compare.md").read_text()
    assert "| probe | params | set A/B |" in md and "B slower" in md
    assert "1 significant and >= 2%" in md


def test_cli_compare_logs_and_out(tmp_path, capsys):
    (tmp_path / "a.log").write_bytes(run_stream(seed=1).data())
    (tmp_path / "runb").mkdir()
    (tmp_path / "runb" / "serial.log").write_bytes(run_stream(seed=1).data())
    assert cli.main(["compare", str(tmp_path / "a.log"), str(tmp_path / "runb" / "serial.log")]) \
        == 0
    assert "(parsed)" in capsys.readouterr().out
    assert (tmp_path / "runb" / "compare.md").exists()  # next to RUN_B's log
    assert not (tmp_path / "runb" / "summary.json").exists()  # parsed into a temporary dir
    assert cli.main(["compare", str(tmp_path / "a.log"), str(tmp_path / "a.log"),
                     "--out", str(tmp_path / "o"), "--threshold", "5"]) == 0
    assert ">= 5%" in (tmp_path / "o" / "compare.md").read_text()


def test_cli_compare_errors(tmp_path, capsys):
    a = make_run(tmp_path, "a")
    assert cli.main(["compare", str(a), str(tmp_path / "nothing")]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert cli.main(["compare", str(tmp_path / "empty"), str(a)]) == 2
    assert "summary.json" in capsys.readouterr().err
    (tmp_path / "junk.log").write_text("no records here\n")
    assert cli.main(["compare", str(a), str(tmp_path / "junk.log")]) == 2
    assert "neither a parse directory" in capsys.readouterr().err


# --- many sets at once: the false discovery rate --------------------------------------------

N_SETS = 300


def many_sets_stream(seed, shifted=(), shift_pct=5.0):
    """N_SETS spin sets, set k with its own level and a heavy right tail (integer cycles, so
    ties); every boot draws the samples anew from the same distributions; sets in `shifted` are
    shift_pct % slower."""
    r = random.Random(seed)
    s = synth.Stream().begin()
    for k in range(N_SETS):
        base = 1000 + 37 * k
        scale = 1 + shift_pct / 100.0 if k in shifted else 1.0
        vals = [int(round(scale * (base + r.gauss(0, 0.01 * base)
                                   + (r.expovariate(1.0 / (0.05 * base)) if r.random() < 0.1
                                      else 0))))
                for _ in range(32)]
        s.probe("spin", k + 1, vals, iters=1, overhead=0, unroll=k)
    return s.end()


def many_runs(tmp_path, **kw_b):
    runs = []
    for name, seed, kw in (("a", 11, {}), ("b", 12, kw_b)):
        log = tmp_path / (name + ".log")
        log.write_bytes(many_sets_stream(seed, **kw).data())
        runs.append(load(log, tmp_path))
    return runs


def test_resamples_of_one_distribution_give_no_discoveries(tmp_path):
    a, b = many_runs(tmp_path)
    res = compare.compare(a, b)
    rows = res["rows"]
    assert len(rows) == N_SETS and res["tests"] == N_SETS
    raw_hits = sum(1 for r in rows if r["p"] < compare.ALPHA)
    assert raw_hits >= 5  # uncorrected, ~5% of 300 sets look "significant"
    assert sum(1 for r in rows if r["significant"]) <= 1
    assert sum(1 for r in rows if r["verdict"] in ("B slower", "B faster")) <= 1
    text = compare_report.build_doc(a, b, res).text()
    assert "Benjamini-Hochberg over the %d tested sets" % N_SETS in text


def test_real_shift_among_many_sets_is_found(tmp_path):
    shifted = set(range(0, N_SETS, 30))  # 10 sets, 5% slower
    a, b = many_runs(tmp_path, shifted=shifted)
    rows = compare.compare(a, b)["rows"]
    found = {r["set_a"] - 1 for r in rows if r["verdict"] == "B slower"}
    assert found == shifted
    assert not [r for r in rows if r["verdict"] == "B faster"]
    for r in rows:
        if r["set_a"] - 1 in shifted:
            assert r["shift"] > 0 and r["shift_pct"] == pytest.approx(5.0, abs=1.5)
