"""Log validation and salvage: corruption, truncation, duplicates, gaps, boots, sets, outputs."""

import json
import os

import pytest

import synth
from bmharness import cli
from bmharness.stream import parse
from bmharness.stream.protocol import encode_record, encode_values


def summ(data):
    return parse.analyse(data)["summary"]


def kinds(summary):
    return [p["kind"] for p in summary["validation"]["problems"]]


def flip(line):
    """Change one byte in the middle of a record line (a bit error on the wire)."""
    i = len(line) // 2
    return line[:i] + ("X" if line[i] != "X" else "Y") + line[i + 1:]


def test_clean_log_complete():
    s = synth.full_stream()
    sm = summ(s.data())
    v = sm["validation"]
    assert sm["ok"] and v["complete"] and not v["truncated"] and v["problems"] == []
    assert v["counts"]["records_analysed"] == len(s.lines)
    assert sm["begin"]["build"] == "v0.1-3-g3f2a1c0" and sm["end"]["status"] == "ok"
    assert sm["cfg"]["timer_samples"] == 200 and sm["cfg"]["probes"] == "timer,spin,fault_ud2"
    plat = sm["platform"]
    assert isinstance(plat["cache"], list) and len(plat["cache"]) == 2
    assert isinstance(plat["tsc_cal"], list) and len(plat["tsc_cal"]) == 4
    assert isinstance(plat["memdev"], list) and plat["cpu"]["family"] == 23
    assert plat["firmware"]["uefi"] == "2.70"  # version strings stay strings
    assert plat["acpi"]["rsdp"] == "0x7fb7e014"
    assert [x["name"] for x in sm["sets"]] == ["timer", "timer", "spin"]
    t1 = sm["sets"][0]
    assert t1["params"] == {"method": "rdtsc"} and t1["complete"] and t1["received"] == 200
    assert t1["stats"]["per_op"]["n"] == 200
    assert sm["faults"][0]["name"] == "#UD" and sm["skips"][0]["probe"] == "fault_gp"
    assert sm["messages"][0]["text"] == "unknown key 'foo' ignored"


def test_lf_only_line_endings():
    assert summ(synth.full_stream().data(ending="\n"))["ok"]


def test_corrupted_byte_reported_with_line_and_rest_salvaged():
    s = synth.full_stream()
    lines = list(s.lines)
    lines[4] = flip(lines[4])  # log line 5 (a plat record)
    sm = summ(("\r\n".join(lines) + "\r\n").encode())
    v = sm["validation"]
    assert [c["line"] for c in v["corrupt"]] == [5]
    assert "CRC" in v["corrupt"][0]["reason"]
    assert v["missing"] == [[4, 4]]
    assert "corrupt" in kinds(sm) and "missing" in kinds(sm)
    assert v["counts"]["records_analysed"] == len(lines) - 1
    assert not sm["ok"] and not v["complete"] and not v["truncated"]
    assert all(x["complete"] for x in sm["sets"])


def test_corrupted_sample_chunk_makes_set_incomplete():
    s = synth.Stream().begin()
    s.probe("timer", 1, list(range(100, 300)), method="rdtsc")
    s.end()
    lines = list(s.lines)
    lines[2] = flip(lines[2])  # first samples chunk (indices 0..95)
    sm = summ(("\n".join(lines) + "\n").encode())
    st = sm["sets"][0]
    assert not st["complete"] and st["received"] == 200 - 96
    assert st["missing_indices"] == [[0, 95]]
    assert "set_count" in kinds(sm)
    assert st["stats"]["per_op"]["n"] == 104  # salvaged values still analysed


def test_truncated_mid_line():
    s = synth.full_stream()
    text = s.text()
    cut = text.index(s.lines[20]) + 30  # inside line 21
    sm = summ(text[:cut].encode())
    v = sm["validation"]
    assert v["truncated"] and not v["complete"] and sm["end"] is None
    assert v["counts"]["records_analysed"] == 20
    assert v["corrupt"][0]["line"] == 21 and "cut off" in v["corrupt"][0]["reason"]
    assert "truncated" in kinds(sm)


def test_truncated_before_end_keeps_everything():
    s = synth.full_stream()
    sm = summ(("\r\n".join(s.lines[:-1]) + "\r\n").encode())
    v = sm["validation"]
    assert v["truncated"] and v["missing"] == [] and v["corrupt"] == []
    assert v["counts"]["records_analysed"] == len(s.lines) - 1
    assert len(sm["sets"]) == 3 and all(x["complete"] for x in sm["sets"])
    assert kinds(sm) == ["truncated"]


def test_duplicates_not_double_counted():
    s = synth.Stream().begin()
    s.probe("timer", 1, list(range(200)), method="rdtsc")
    s.end(probes=1, skips=0)
    lines = list(s.lines)
    lines = lines[:3] + [lines[2], lines[2]] + lines[3:]  # chunk on line 3 repeated twice
    sm = summ(("\r\n".join(lines) + "\r\n").encode())
    v = sm["validation"]
    assert v["duplicates"] == [{"seq": 2, "type": "samples", "lines": [3, 4, 5], "count": 2}]
    assert v["counts"]["duplicates"] == 2
    st = sm["sets"][0]
    assert st["received"] == 200 and st["complete"] and st["stats"]["raw"]["n"] == 200
    assert kinds(sm) == ["duplicate"] and v["complete"]


def test_garbage_and_ansi_interleaved():
    s = synth.full_stream()
    out = ["\x1b[2J\x1b[01;01H\x1b[=3h\x1b[2J\x1b[01;01HBdsDxe: loading Boot0002 \"UEFI\"\r\n"]
    for k, line in enumerate(s.lines):
        if k % 3 == 0:
            out.append("\x1b[2J\x1b[01;01H" + line + "\r\n")  # noise before @BM, same line
        elif k % 3 == 1:
            out.append("\x00\xff\xfe garbage \r\n" + line + "\r\n")
        else:
            out.append("BdsDxe: partial msg without newline " + line + "\r\n")
    data = "".join(out).encode("latin-1") + b"\xff\xfe\x00\r\nPlatformInit\r"
    sm = summ(data)
    assert sm["ok"], sm["validation"]["problems"]
    assert sm["validation"]["counts"]["records_analysed"] == len(s.lines)


def test_lost_newline_two_records_on_one_line():
    s = synth.full_stream()
    lines = list(s.lines)
    joined = lines[:5] + [lines[5][:25] + lines[6]] + lines[7:]  # line 6 cut, 7 follows
    sm = summ(("\n".join(joined) + "\n").encode())
    v = sm["validation"]
    assert v["missing"] == [[5, 5]] and v["corrupt"][0]["line"] == 6
    assert v["counts"]["records_analysed"] == len(lines) - 1


def test_missing_records_gap():
    s = synth.full_stream()
    lines = s.lines[:10] + s.lines[13:]
    sm = summ(("\n".join(lines) + "\n").encode())
    assert sm["validation"]["missing"] == [[10, 12]]
    assert sm["validation"]["counts"]["missing"] == 3 and "missing" in kinds(sm)


def test_conflicting_seq():
    s = synth.full_stream()
    other = encode_record(3, "msg", {"level": "info", "text": "impostor"})
    lines = s.lines[:4] + [other] + s.lines[4:]
    sm = summ(("\n".join(lines) + "\n").encode())
    c = sm["validation"]["conflicts"]
    assert c == [{"seq": 3, "kept_line": 4, "line": 5, "kept_type": "plat", "type": "msg"}]
    assert "conflict" in kinds(sm)
    assert all(m["text"] != "impostor" for m in sm["messages"])


def test_two_boots_last_analysed():
    first = synth.Stream().begin()
    first.add("msg", level="info", text="first boot")
    first.probe("timer", 1, [1, 2, 3])  # dies here: no end
    second = synth.full_stream()
    data = first.data() + b"\x1b[2J" + second.data()
    sm = summ(data)
    v = sm["validation"]
    assert len(v["boots"]) == 2 and v["analysed_boot"] == 1
    assert v["boots"][0]["has_end"] is False and v["boots"][1]["first_line"] == 5
    assert "multiple_boots" in kinds(sm) and not sm["ok"]
    assert v["complete"] and sm["messages"][0]["text"] == "unknown key 'foo' ignored"
    assert v["counts"]["records_analysed"] == len(second.lines)


def test_duplicated_begin_is_not_a_new_boot():
    s = synth.full_stream()
    lines = [s.lines[0]] + s.lines
    sm = summ(("\n".join(lines) + "\n").encode())
    assert len(sm["validation"]["boots"]) == 1 and kinds(sm) == ["duplicate"]


def test_sample_count_mismatch_and_overlap():
    s = synth.Stream().begin()
    s.add("probe", name="timer", set=1, unit="cycles", n=10, iters=1, overhead=0, tsc_hz=1,
          method="rdtsc")
    s.add("samples", set=1, i=0, n=4, v=encode_values([5, 5, 5, 5]))
    s.add("samples", set=1, i=2, n=4, v="6,6,6,6")  # overlaps 2..3, leaves 6..9 missing
    s.add("samples", set=1, i=8, n=3, v="7,7,7")  # index 10 beyond n
    s.add("samples", set=1, i=0, n=5, v="1,2")  # declared n disagrees
    s.end(probes=1, skips=0)
    sm = summ(s.data())
    st = sm["sets"][0]
    assert not st["complete"] and st["missing_indices"] == [[6, 7]]
    assert st["received"] == 8
    k = kinds(sm)
    assert {"set_overlap", "set_overflow", "set_count", "chunk"} <= set(k)
    assert not sm["validation"]["complete"]


def test_samples_without_probe():
    s = synth.Stream().begin()
    s.add("probe", name="spin", set=1, unit="cycles", n=3, iters=1, overhead=0, tsc_hz=1)
    s.add("samples", set=1, i=0, n=3, v="1,2,3")
    s.add("samples", set=9, i=0, n=2, v="4,5")
    s.end(probes=1, skips=0)
    sm = summ(s.data())
    assert sm["validation"]["orphan_sets"][0]["set"] == "9"
    assert "orphan_samples" in kinds(sm)


def test_unknown_version_and_end_mismatch():
    s = synth.Stream().begin()
    s.add("msg", level="info", text="x")
    s.end(records=99)
    lines = s.lines[:2] + [encode_record(2, "msg", {"text": "v3"}, version=3)] + s.lines[2:]
    sm = summ(("\n".join(lines) + "\n").encode())
    v = sm["validation"]
    assert v["unknown_version"] == [{"line": 3, "version": 3, "seq": 2, "type": "msg"}]
    assert "version" in kinds(sm) and "end_mismatch" in kinds(sm)


def test_no_records():
    sm = summ(b"\x1b[2JBdsDxe: nothing here\r\n")
    assert sm["validation"]["truncated"] and "no_records" in kinds(sm) and not sm["ok"]


def test_outputs_written(tmp_path):
    log = tmp_path / "serial.log"
    log.write_bytes(synth.full_stream().data())
    out = tmp_path / "out"
    sm = parse.parse_log(str(log), str(out))
    recs = [json.loads(l) for l in (out / "records.jsonl").read_text().splitlines()]
    assert [r["seq"] for r in recs] == list(range(len(recs)))
    assert recs[0]["type"] == "begin" and recs[0]["fields"]["fw_vendor"] == "EDK II"
    raw = sorted(os.listdir(out / "raw"))
    assert raw == ["spin-set3.txt", "timer-set1-method=rdtsc.txt", "timer-set2-method=rdtscp.txt"]
    header, values = parse.read_raw(str(out / "raw" / "timer-set1-method=rdtsc.txt"))
    assert header["name"] == "timer" and header["method"] == "rdtsc" and header["n"] == "200"
    assert values == synth.timer_values(1, 200)
    on_disk = json.loads((out / "summary.json").read_text())
    for key in ("validation", "begin", "cfg", "platform", "messages", "faults", "skips", "end",
                "sets"):
        assert key in on_disk
    assert on_disk["sets"][2]["raw_file"] == "raw/spin-set3.txt"
    assert sm["ok"]


def test_cli_parse_exit_codes(tmp_path, capsys):
    good = tmp_path / "good.log"
    good.write_bytes(synth.full_stream().data())
    bad = tmp_path / "bad.log"
    bad.write_bytes(synth.full_stream().data()[:-200])
    assert cli.main(["parse", str(good), "--out", str(tmp_path / "g")]) == 0
    assert cli.main(["parse", str(bad), "--out", str(tmp_path / "b")]) == 1
    assert (tmp_path / "b" / "summary.json").exists()
    assert cli.main(["parse", str(tmp_path / "nope.log"), "--out", str(tmp_path / "n")]) == 2
    assert "nope.log" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        cli.main(["parse"])
    assert e.value.code == 2


def _sets_without_position(summary):
    """The sets of a summary without where their records stood (seq, line)."""
    return [{k: v for k, v in x.items() if k not in ("seq", "line")} for x in summary["sets"]]


def test_v1_and_v2_streams_parse_to_the_same_samples():
    """One boot written in protocol version 1 (96 values a record, decimal) and in version 2
    (1024 a record, zigzag deltas in base-34/52 digits): the same sets, raw values, sample counts
    and statistics; version 2 is the shorter stream."""
    n = 3000
    one, two = synth.full_stream(n, version=1), synth.full_stream(n, version=2)
    r1, r2 = parse.analyse(one.data()), parse.analyse(two.data())
    s1, s2 = r1["summary"], r2["summary"]
    assert s1["ok"] and s2["ok"] and s1["validation"]["problems"] == s2["validation"]["problems"] == []
    assert s1["begin"]["proto"] == 1 and s2["begin"]["proto"] == 2
    assert [v for _, _, v in r1["raw"]] == [v for _, _, v in r2["raw"]]
    assert [x["received"] for x in s2["sets"]] == [n, n, 16]
    assert _sets_without_position(s1) == _sets_without_position(s2)
    assert len(two.lines) < len(one.lines) and len(two.data()) < 0.7 * len(one.data())


def test_v2_begin_must_name_its_header_version():
    s = synth.Stream(version=2)
    s.add("begin", proto=1, build="b", arch="x86_64", env="uefi")
    s.probe("timer", 1, [40] * 10, method="rdtsc")
    s.end(probes=1, skips=0)
    sm = summ(s.data())
    assert "proto" in kinds(sm) and sm["sets"][0]["received"] == 10


def test_v2_damaged_value_list_is_a_chunk_problem():
    s = synth.Stream(version=2).begin()
    s.probe("timer", 1, [40] * 10, method="rdtsc")
    s.add("samples", set=1, i=10, n=2, v="A*")
    s.end(probes=1, skips=0)
    sm = summ(s.data())
    assert "chunk" in kinds(sm) and sm["sets"][0]["received"] == 10
