"""compare's configuration differences (analysis/compare_config.py): the firmware options (cfg
records) that differ between side A and side B or between the boots of one side, options a
boot did not record, and where compare.md, compare.json and the terminal show them."""

import json
import random

import synth
from bmharness import cli
from bmharness.analysis import compare, compare_config
from bmharness.report import compare as compare_report

BASE = {"probes": "spin", "samples": 16, "target_ns": 0, "mem_kernels": "all", "seed": 1}


def fake(cfg):
    """A run as compare_config sees it: only its summary's cfg matters."""
    return {"summary": {"cfg": cfg}}


def test_same_options_on_both_sides():
    runs = [fake(dict(BASE)), fake(dict(BASE))]
    assert compare_config.config_diff(runs[:1], runs[1:]) == []
    assert compare_config.summary_line([], [], 2) == "same options on both sides"


def test_options_that_differ_between_sides_and_not_recorded():
    b = dict(BASE, samples=32, seed=2)
    del b["mem_kernels"]  # an older firmware: no such option
    diff = compare_config.config_diff([fake(dict(BASE))], [fake(b)])
    by = {r["option"]: r for r in diff}
    assert sorted(by) == ["mem_kernels", "samples", "seed"]
    assert by["samples"]["a"] == ["16"] and by["samples"]["b"] == ["32"]
    assert by["mem_kernels"]["a"] == ["all"]
    assert by["mem_kernels"]["b"] == [compare_config.NOT_RECORDED]
    assert by["mem_kernels"]["b_by_boot"] == [None]
    assert all(r["between"] and r["within"] == [] for r in diff)
    line = compare_config.summary_line(diff, [], 2)
    assert line.startswith("3 option(s) differ between A and B: mem_kernels, samples, seed")


def test_boots_of_one_side_that_differ_among_themselves():
    a = [fake(dict(BASE, seed=1)), fake(dict(BASE, seed=2)), fake(dict(BASE, seed=1))]
    b = [fake(dict(BASE, seed=1)), fake(dict(BASE, seed=1))]
    [row] = compare_config.config_diff(a, b)
    assert row["option"] == "seed" and row["within"] == ["A"] and row["between"]
    assert compare_config.side_text(row, "A", 3) == "1 in A, A3; 2 in A2"
    assert compare_config.side_text(row, "B", 2) == "1"
    # both sides ran seeds 1 and 2: nothing differs between them, each side's boots do
    b2 = [fake(dict(BASE, seed=2)), fake(dict(BASE, seed=1))]
    [row] = compare_config.config_diff(a, b2)
    assert not row["between"] and row["within"] == ["A", "B"]
    line = compare_config.summary_line([row], [], 5)
    assert "no option differs between A and B" in line and "the boots of B differ in seed" in line


def test_runs_without_a_cfg_record():
    a, b = [fake(None)], [fake(dict(BASE))]
    diff = compare_config.config_diff(a, b)
    assert {r["option"] for r in diff} == set(BASE)
    assert all(r["a"] == [compare_config.NOT_RECORDED] for r in diff)
    assert compare_config.unrecorded(a, b) == ["A"]
    assert "no cfg record in A" in compare_config.summary_line(diff, ["A"], 2)
    assert compare_config.config_diff([fake(None)], [fake(None)]) == []
    assert "not known" in compare_config.summary_line([], ["A", "B"], 2)


# --- through compare and its outputs ------------------------------------------------------

def spin_log(path, noise_seed, **cfg):
    """A boot of three spin sets with the options cfg (none: no cfg record)."""
    r = random.Random(noise_seed)
    s = synth.Stream().begin()
    if cfg:
        s.add("cfg", **cfg)
    s.add("plat", kind="tsc", hz=synth.TSC_HZ, source="hpet", invariant=1)
    for k in range(3):
        s.probe("spin", k, [int(round(5000 + r.gauss(0, 5))) for _ in range(40)], iters=1,
                overhead=0, loop="dec_jnz", unroll=k)
    path.write_bytes(s.end().data())
    return str(path)


def test_cli_table_before_the_sets_json_and_one_terminal_line(tmp_path, capsys):
    b_cfg = dict(BASE, samples=32)
    del b_cfg["mem_kernels"]
    a = spin_log(tmp_path / "a.log", 1, **BASE)
    b = spin_log(tmp_path / "b.log", 2, **b_cfg)
    out = tmp_path / "o"
    assert cli.main(["compare", a, b, "--out", str(out)]) == 0
    term = capsys.readouterr().out
    md = (out / "compare.md").read_text()
    assert md.index("## Configuration differences") < md.index("## Matched sets")
    assert "| mem_kernels | all | (not recorded) | A / B |" in md
    assert "| samples | 16 | 32 | A / B |" in md
    data = json.loads((out / "compare.json").read_text())
    assert [r["option"] for r in data["config_diff"]] == ["mem_kernels", "samples"]
    # the terminal: the header's line, not the table
    [line] = [x for x in term.splitlines() if "option(s) differ" in x]
    assert "mem_kernels, samples" in line and "CONFIGURATION DIFFERENCES" not in term
    assert cli.main(["compare", a, b, "--out", str(out), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["config_diff"]) == 2


def test_identical_configs_one_line_no_table(tmp_path):
    a = compare.load_run(spin_log(tmp_path / "a.log", 1, **BASE), str(tmp_path))
    b = compare.load_run(spin_log(tmp_path / "b.log", 2, **BASE), str(tmp_path))
    res = compare.compare(a, b)
    assert res["config_diff"] == [] and res["config_unrecorded"] == []
    md = compare_report.build_doc(a, b, res).markdown()
    assert "- **configuration**: same options on both sides" in md
    assert "Configuration differences" not in md


def test_boots_of_a_side_with_different_seeds(tmp_path):
    a = [compare.load_run(spin_log(tmp_path / ("a%d.log" % i), i, **dict(BASE, seed=i)),
                          str(tmp_path)) for i in (1, 2)]
    b = [compare.load_run(spin_log(tmp_path / ("b%d.log" % i), 10 + i, **BASE), str(tmp_path))
         for i in (1, 2)]
    res = compare.compare(a, b)
    [row] = res["config_diff"]
    assert row["option"] == "seed" and row["within"] == ["A"]
    md = compare_report.build_doc(a, b, res).markdown()
    assert "| seed | 1 in A; 2 in A2 | 1 | A / B, within A |" in md
