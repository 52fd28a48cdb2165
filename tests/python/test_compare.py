"""Run comparison: the t distribution without scipy, Welch's test, matching sets across two
synthetic runs, compare.md and the `compare` command."""

import json
import math
import random

import pytest

import synth
from bmharness import cli, compare, parse, stats


# --- the t distribution -----------------------------------------------------------------------

def t_sf2_by_integration(t, df, steps=4000):
    """Two-sided tail by Simpson integration of the t density over [0, |t|] (independent of the
    incomplete beta function)."""
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)

    def pdf(x):
        return c * (1 + x * x / df) ** (-(df + 1) / 2)
    h = abs(t) / steps
    total = pdf(0) + pdf(abs(t)) + sum((4 if k % 2 else 2) * pdf(k * h) for k in range(1, steps))
    return 1 - 2 * total * h / 3


def test_betainc_identities():
    for x in (0.0, 0.1, 0.5, 0.93, 1.0):
        assert compare.betainc(1, 1, x) == pytest.approx(x)
        assert compare.betainc(2, 1, x) == pytest.approx(x * x)
    assert compare.betainc(7.5, 7.5, 0.5) == pytest.approx(0.5)
    for a, b, x in ((0.5, 3.0, 0.2), (30, 40, 0.45), (2.5, 0.5, 0.97)):
        assert compare.betainc(a, b, x) == pytest.approx(1 - compare.betainc(b, a, 1 - x))


def test_t_tail_matches_the_quantile_table():
    # stats.py's table of t(0.975, df): each must give a two-sided p of 0.05 (to table rounding).
    for df, t in stats._T975.items():
        assert compare.t_sf2(t, df) == pytest.approx(0.05, abs=2e-4), df


@pytest.mark.parametrize("t,df", [(2.0, 10), (0.5, 1), (3.3, 2.5), (1.2, 57.3), (4.0, 300)])
def test_t_tail_by_integration(t, df):
    assert compare.t_sf2(t, df) == pytest.approx(t_sf2_by_integration(t, df), abs=1e-7)


def test_t_tail_known_values():
    assert compare.t_sf2(2.0, 10) == pytest.approx(0.0733880, abs=1e-7)
    assert compare.t_sf2(0.0, 5) == 1.0 and compare.t_sf2(-2.0, 10) == compare.t_sf2(2.0, 10)
    assert compare.t_sf2(math.inf, 3) == 0.0
    assert 0 < compare.t_sf2(40.0, 100) < 1e-60


def test_t_tail_against_scipy():
    sp = pytest.importorskip("scipy.stats")
    r = random.Random(7)
    for _ in range(300):
        t, df = r.uniform(-30, 30), r.choice((r.uniform(0.5, 5), r.uniform(5, 500)))
        want = 2 * sp.t.sf(abs(t), df)
        assert compare.t_sf2(t, df) == pytest.approx(want, rel=1e-6, abs=1e-12)


def test_welch():
    w = compare.welch(compare.moments([1, 2, 3, 4, 5]), compare.moments([2, 4, 6, 8, 10]))
    assert w["t"] == pytest.approx(1.8973666) and w["df"] == pytest.approx(5.8823529)
    assert w["p"] == pytest.approx(0.1075312, abs=1e-6)  # scipy ttest_ind(equal_var=False)
    same = compare.moments([3.0, 4.0, 5.0, 4.0])
    assert compare.welch(same, same)["p"] == pytest.approx(1.0)
    assert compare.welch(compare.moments([5, 5, 5]), compare.moments([5, 5]))["p"] == 1.0
    assert compare.welch(compare.moments([5, 5, 5]), compare.moments([6, 6]))["p"] == 0.0
    assert compare.welch(compare.moments([5]), compare.moments([6, 7])) is None


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
    doc = compare.build_doc(load(a, tmp_path), load(b, tmp_path), res)
    text = doc.text()
    assert "Only in A" in text and "Only in B" in text and "unroll=4" in text


def test_repeated_parameter_sets_pair_in_order():
    def st(set_id):
        return {"name": "spin", "set": set_id, "params": {"x": 1}}
    pairs, only_a, only_b = compare.match_sets([st(1), st(2), st(3)], [st(7), st(8)])
    assert [(a["set"], b["set"]) for a, b in pairs] == [(1, 7), (2, 8)]
    assert [s["set"] for s in only_a] == [3] and only_b == []


def test_missing_raw_file_uses_summary_stats(tmp_path):
    a = make_run(tmp_path, "a", seed=1)
    b = make_run(tmp_path, "b", seed=2, shift=10.0)
    summary = json.loads((b / "summary.json").read_text())
    spin = [s for s in summary["sets"] if s["name"] == "spin"][0]
    (b / spin["raw_file"]).unlink()
    row = by_name(compare.compare(load(a, tmp_path), load(b, tmp_path)))["spin"]
    assert row["significant"] and row["verdict"] == "B slower"
    assert any("summary stats" in n for n in row["notes"])


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
