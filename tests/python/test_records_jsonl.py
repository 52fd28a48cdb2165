"""records.jsonl as parse writes it: one JSON object per valid record of the analysed boot, in
sequence order, its numeric fields as JSON numbers (free-text keys, hex and text stay strings)
and every samples/ctr record's `v` decoded into a list of ints (no run-length encoding). The
profiler reads its records back from it."""

import json

import pytest

import synth
from bmharness.stream import parse, protocol


def parse_to(tmp_path, stream):
    log = tmp_path / "serial.log"
    log.write_bytes(stream.data())
    out = tmp_path / "out"
    parse.parse_log(str(log), str(out))
    return [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()], out


@pytest.mark.parametrize("version", [1, 2])
def test_numbers_are_numbers_and_samples_expanded(tmp_path, version):
    recs, out = parse_to(tmp_path, synth.full_stream(version=version))
    by_type = {}
    for r in recs:
        by_type.setdefault(r["type"], []).append(r["fields"])
    probe = by_type["probe"][0]
    assert probe["set"] == 1 and probe["n"] == 200 and probe["tsc_hz"] == synth.TSC_HZ
    assert probe["method"] == "rdtsc" and probe["name"] == "timer"
    begin = by_type["begin"][0]
    assert begin["fw_rev"] == "0x10000" and begin["build"] == "v0.1-3-g3f2a1c0"
    assert isinstance(begin["proto"], int)
    tsc = [f for f in by_type["plat"] if f["kind"] == "tsc"][0]
    assert tsc["disagree_ppm"] == 0.2 and isinstance(tsc["hz"], int)
    acpi = [f for f in by_type["plat"] if f["kind"] == "acpi"][0]
    assert acpi["rsdp"] == "0x7fb7e014"  # hex stays text
    # every samples record: a list of ints, n of them; together they are the raw file's values
    values = {}
    for f in by_type["samples"]:
        assert isinstance(f["v"], list) and all(type(v) is int for v in f["v"])
        assert len(f["v"]) == f["n"]
        values.setdefault(f["set"], []).extend(f["v"])
    assert values[1] == synth.timer_values(1, 200)
    _, raw = parse.read_raw(str(out / "raw" / "spin-set3.txt"))
    assert values[3] == raw


def test_run_length_encoded_chunk_is_expanded(tmp_path):
    s = synth.Stream(version=2).begin()
    vals = [7] * 50 + [8, 9] + [7] * 30
    s.probe("timer", 1, vals, method="rdtsc")
    text = "".join(s.lines)
    assert "*" in protocol.encode_values_v2(vals) and len(text) < 400  # it was compressed
    recs, _ = parse_to(tmp_path, s.end(probes=1, skips=0))
    (chunk,) = [r["fields"] for r in recs if r["type"] == "samples"]
    assert chunk["v"] == vals


def test_string_keys_stay_strings(tmp_path):
    s = synth.Stream().begin()
    s.add("msg", level="info", text="1234")
    s.add("plat", kind="memdev", handle="0x1100", locator="DIMM 0", bank="", size=1024,
          part="0123", manufacturer="42")
    recs, _ = parse_to(tmp_path, s.end(probes=0, skips=0))
    msg = [r["fields"] for r in recs if r["type"] == "msg"][0]
    dev = [r["fields"] for r in recs if r["type"] == "plat"][0]
    assert msg["text"] == "1234" and dev["part"] == "0123" and dev["manufacturer"] == "42"
    assert dev["size"] == 1024


def test_undecodable_chunk_keeps_its_text():
    rec = {"seq": 5, "type": "samples", "line": 9, "version": 2,
           "fields": {"set": "1", "i": "0", "n": "2", "v": "*3"}}
    out = parse.record_json(rec)
    assert out["fields"]["v"] == "*3" and out["fields"]["set"] == 1
