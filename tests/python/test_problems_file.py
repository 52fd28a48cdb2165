"""DIR/problems.jsonl: every validation problem, one JSON object a line, while summary.json and
the terminal keep the first 20 of each kind and the exact counts."""

import json

import synth
from bmharness import cli
from bmharness.run import inputs
from bmharness.stream import logscan, parse


def _corrupt_log(tmp_path, n_bad=57, n_bare=33):
    """A full boot with n_bad records whose CRC is broken, n_bare bare tags and one record
    dropped (a sequence gap)."""
    lines = synth.full_stream().lines
    good = lines[10]
    broken = good[:-3] + ("x" if good[-3] != "x" else "y") + good[-2:]  # its CRC no longer fits
    lines[11:11] = [broken] * n_bad
    del lines[5]  # a missing record
    lines += ["@BM "] * n_bare
    log = tmp_path / "bad.log"
    log.write_bytes(("\r\n".join(lines) + "\r\n").encode("latin-1"))
    return log


def test_problems_jsonl_lists_every_problem(tmp_path, capsys):
    log = _corrupt_log(tmp_path)
    out = tmp_path / "out"
    assert cli.main(["parse", str(log), "--out", str(out)]) == 1
    printed = capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    v = summary["validation"]
    rows = [json.loads(l) for l in (out / "problems.jsonl").read_text().splitlines()]
    assert len(rows) == v["counts"]["problems"] == sum(v["problem_counts"].values())
    by_kind = {}
    for r in rows:
        assert set(r) >= {"kind", "line", "message"}
        by_kind[r["kind"]] = by_kind.get(r["kind"], 0) + 1
    assert by_kind == v["problem_counts"]
    assert by_kind["corrupt"] == 57 + 33 > logscan.FIRST_N
    assert "missing" in by_kind
    # summary.json (and the terminal) keep the first FIRST_N of each kind only
    kept = [p for p in v["problems"] if p["kind"] == "corrupt"]
    assert len(kept) == logscan.FIRST_N
    assert [r for r in rows if r["kind"] == "corrupt"][:logscan.FIRST_N] == kept
    corrupt_lines = [r["line"] for r in rows if r["kind"] == "corrupt"]
    assert corrupt_lines == sorted(corrupt_lines) and len(set(corrupt_lines)) == 90
    assert printed.count("  problem: ") <= inputs.PRINT_PROBLEMS
    assert "corrupt 90" in printed


def test_problems_jsonl_empty_for_a_clean_log(tmp_path):
    log = tmp_path / "ok.log"
    log.write_bytes(synth.full_stream().data())
    out = tmp_path / "out"
    parse.parse_log(str(log), str(out))
    assert (out / "problems.jsonl").read_text() == ""


def test_problems_jsonl_caps_a_kind_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(logscan, "FILE_MAX", 40)
    log = _corrupt_log(tmp_path, n_bad=30, n_bare=500)
    out = tmp_path / "out"
    parse.parse_log(str(log), str(out))
    v = json.loads((out / "summary.json").read_text())["validation"]
    rows = [json.loads(l) for l in (out / "problems.jsonl").read_text().splitlines()]
    assert v["problem_counts"]["corrupt"] == 530  # the count stays exact
    listed = [r for r in rows if r["kind"] == "corrupt" and "not_listed" not in r]
    assert len(listed) == 40
    assert [r["not_listed"] for r in rows if "not_listed" in r] == [490]
