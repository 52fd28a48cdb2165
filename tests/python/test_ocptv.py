"""OCPTV output (harness/bmharness/analysis/ocptv.py, `export --ocptv`, `capture --ocptv`): every
line checked against the OCPTV output specification's schema, version 2.0 (ocp-diag-core
json_spec/output, vendored in tests/python/data/ocptv_schema and checked by ocptv_schema.py),
for the committed default-probe boots of x86_64, AArch64 and the hosted build (tests/python/data/
*_excerpt.log: real boots of the default probe list), and the run mapped as the spec intends:
one testRunStart first and one testRunEnd last, each step opened and closed, a measurement per
complete set whose value and CI are results.json's (analysis/export.py, computed from the raw
files by another path), a diagnosis per check, a log per skip, the end record's status as the
result. The capture stream, fed the same log in ragged chunks, writes the same lines. A cut log
still gives valid lines that say the run did not end."""

import pathlib
import json
import random
import shutil

import pytest

import ocptv_schema
from bmharness import ocptv_cli
from bmharness.analysis import export
from bmharness.stream import parse

DATA = pathlib.Path(__file__).resolve().parent / "data"

LOGS = ("x86_64_excerpt.log", "aarch64_excerpt.log", "hosted_excerpt.log")


def body(obj):
    """(kind, inner kind, inner dict) of one output line."""
    for k in ("testRunArtifact", "testStepArtifact"):
        if k in obj:
            inner = [x for x in obj[k] if x != "testStepId"][0]
            return k, inner, obj[k][inner]
    return "schemaVersion", None, obj["schemaVersion"]


def exported(tmp_path, name, text=None):
    src = tmp_path / name
    if text is None:
        shutil.copyfile(DATA / name, src)
    else:
        src.write_bytes(text)
    out = tmp_path / "parsed"
    summary = parse.parse_log(str(src), str(out))
    lines = []
    ocptv_cli.export_dir(str(out), lines.append)
    return summary, out, [json.loads(ln) for ln in lines]


@pytest.fixture(scope="module", params=LOGS)
def run(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ocptv")
    summary, out, objs = exported(tmp, request.param)
    return request.param, summary, out, objs


def test_every_line_valid(run):
    name, _, _, objs = run
    assert objs
    for i, obj in enumerate(objs):
        assert ocptv_schema.errors(obj) == [], (name, i, obj)
        assert obj["sequenceNumber"] == i
    assert objs[0]["schemaVersion"] == {"major": 2, "minor": 0}  # the spec version we write


def test_run_and_steps_framed(run):
    _, summary, _, objs = run
    kinds = [body(o)[:2] for o in objs]
    assert kinds[1] == ("testRunArtifact", "testRunStart")
    assert kinds[-1] == ("testRunArtifact", "testRunEnd")
    assert kinds.count(("testRunArtifact", "testRunStart")) == 1
    open_id, ids = None, []
    for o in objs:
        if "testStepArtifact" not in o:
            assert open_id is None or body(o)[1] == "log"  # run logs only between steps
            continue
        sid, inner = o["testStepArtifact"]["testStepId"], body(o)[1]
        if inner == "testStepStart":
            assert open_id is None and sid not in ids
            open_id = sid
            ids.append(sid)
        else:
            assert sid == open_id
            if inner == "testStepEnd":
                open_id = None
    assert open_id is None and ids
    # each probe that ran or was skipped has a step (names in the probe list)
    probes = {p for p in summary["cfg"]["probes"].split(",")}
    steps = {body(o)[2]["name"].split(" ")[0] for o in objs if body(o)[1] == "testStepStart"}
    assert steps <= probes and len(steps) >= len(probes) - 1
    end = body(objs[-1])[2]
    assert end == {"status": "COMPLETE", "result": "PASS" if summary["end"]["status"] == "ok" else "FAIL"}


def test_dut_info_from_the_facts(run):
    _, summary, _, objs = run
    start = body(objs[1])[2]
    dut = start["dutInfo"]
    ids = {h["hardwareInfoId"] for h in dut["hardwareInfos"]}
    assert "cpu" in ids
    cpu = [h for h in dut["hardwareInfos"] if h["hardwareInfoId"] == "cpu"][0]
    fact = summary["platform"]["cpu"]
    fact = fact[0] if isinstance(fact, list) else fact
    assert cpu["name"] == str(fact.get("brand"))
    mem = summary["platform"].get("memdev") or []
    assert sum(i.startswith("memdev") for i in ids) == len(mem if isinstance(mem, list) else [mem])
    assert start["version"] == summary["begin"]["build"]
    assert start["parameters"]["probes"] == summary["cfg"]["probes"]
    assert {s["softwareType"] for s in dut["softwareInfos"]} == {"FIRMWARE", "APPLICATION"}


def test_measurements_are_the_results_rows(run):
    """Each complete set once, its median and CI those of results.json (export.build reads the raw
    files; the converter counts the samples as they stream)."""
    _, summary, out, objs = run
    meas = [body(o)[2] for o in objs if body(o)[1] == "measurement"]
    rows = {r["set"]: r for r in export.build(summary, str(out))["rows"] if r["median"] is not None}
    by_set = {m["metadata"]["set"]: m for m in meas}
    assert len(by_set) == len(meas) and set(by_set) == set(rows)
    for sid, r in rows.items():
        m = by_set[sid]
        assert m["unit"] == r["unit"] and m["metadata"]["n"] == r["n"]
        assert m["value"] == pytest.approx(r["median"], rel=1e-9)
        if r["ci_kind"] == "median":
            assert m["metadata"]["ci95_low"] == pytest.approx(r["ci95_low"], rel=1e-9)
            assert m["metadata"]["ci95_high"] == pytest.approx(r["ci95_high"], rel=1e-9)
        assert m["metadata"]["ci95_low"] <= m["value"] <= m["metadata"]["ci95_high"]


def test_checks_skips_messages(run):
    _, summary, _, objs = run
    diags = [body(o)[2] for o in objs if body(o)[1] == "diagnosis"]
    assert len(diags) == len(summary["checks"])
    for d, c in zip(diags, summary["checks"]):
        assert d["type"] == ("PASS" if c["status"] == "pass" else "FAIL")
        assert d["verdict"].startswith(str(c["name"]))
    logs = [body(o)[2] for o in objs if body(o)[1] == "log"]
    assert sum(lg["message"].startswith("skip: ") for lg in logs) == len(summary["skips"])
    assert all(lg["severity"] == "WARNING" for lg in logs if lg["message"].startswith("skip: "))
    msgs = [lg for lg in logs if not lg["message"].startswith(("skip: ", "fault ", "set "))]
    assert len(msgs) == len(summary["messages"])


def without_time(objs):
    out = []
    for o in objs:
        o = json.loads(json.dumps(o))
        o.pop("timestamp")
        out.append(o)
    return out


@pytest.mark.parametrize("name", LOGS)
def test_capture_stream_writes_the_same(tmp_path, name):
    data = (DATA / name).read_bytes()
    path = tmp_path / "live.jsonl"
    s = ocptv_cli.Streamer(str(path))
    rng = random.Random(7)
    i = 0
    while i < len(data):  # ragged chunks, as a serial line delivers them
        n = rng.randint(1, 700)
        s.feed(data[i:i + n])
        i += n
    s.close()
    live = [json.loads(ln) for ln in path.read_text().splitlines()]
    _, _, replay = exported(tmp_path, name)
    assert all(ocptv_schema.errors(o) == [] for o in live)
    # the replay also logs the parser's problems before the end: these logs have none
    assert without_time(live) == without_time(replay)


def test_cut_log_says_the_run_did_not_end(tmp_path):
    data = (DATA / "x86_64_excerpt.log").read_bytes()
    cut = data[:len(data) * 2 // 3]
    cut = cut[:cut.rfind(b"\n") + 1]
    _, _, objs = exported(tmp_path, "cut.log", cut)
    assert all(ocptv_schema.errors(o) == [] for o in objs)
    assert body(objs[-1])[2] == {"status": "ERROR", "result": "FAIL"}
    assert any(body(o)[1] == "log" and "without its end record" in body(o)[2]["message"] for o in objs)


def test_series_option(tmp_path):
    shutil.copyfile(DATA / "hosted_excerpt.log", tmp_path / "h.log")
    parse.parse_log(str(tmp_path / "h.log"), str(tmp_path / "p"))
    lines = []
    ocptv_cli.export_dir(str(tmp_path / "p"), lines.append, series=True)
    objs = [json.loads(ln) for ln in lines]
    assert all(ocptv_schema.errors(o) == [] for o in objs)
    starts = [body(o)[2] for o in objs if body(o)[1] == "measurementSeriesStart"]
    ends = {body(o)[2]["measurementSeriesId"]: body(o)[2]["totalCount"] for o in objs
            if body(o)[1] == "measurementSeriesEnd"}
    elems = [body(o)[2] for o in objs if body(o)[1] == "measurementSeriesElement"]
    assert starts and len(starts) == len(ends)
    for st in starts:
        mine = [e for e in elems if e["measurementSeriesId"] == st["measurementSeriesId"]]
        assert [e["index"] for e in mine] == list(range(ends[st["measurementSeriesId"]]))


def test_checker_can_fail():
    """The schema checker refuses what the spec refuses (so a pass means something)."""
    ok = {"testStepArtifact": {"testStepId": "step1", "diagnosis": {"verdict": "x-pass", "type": "PASS"}},
          "sequenceNumber": 3, "timestamp": "2026-01-01T00:00:00Z"}
    assert ocptv_schema.errors(ok) == []
    bad = [
        dict(ok, timestamp="yesterday"),
        dict(ok, sequenceNumber=-1),
        {"testStepArtifact": {"testStepId": "s", "diagnosis": {"verdict": "v", "type": "MAYBE"}},
         "sequenceNumber": 0, "timestamp": ok["timestamp"]},
        {"testStepArtifact": {"diagnosis": {"verdict": "v", "type": "PASS"}},
         "sequenceNumber": 0, "timestamp": ok["timestamp"]},
        {"testStepArtifact": {"testStepId": "s", "measurement": {"name": "m", "value": 1, "median": 1}},
         "sequenceNumber": 0, "timestamp": ok["timestamp"]},
        {"testRunArtifact": {"testRunEnd": {"status": "COMPLETE", "result": "PASS"}, "log": {
            "severity": "INFO", "message": "two at once"}}, "sequenceNumber": 0, "timestamp": ok["timestamp"]},
        {"schemaVersion": {"major": 1, "minor": 0}, "sequenceNumber": 0, "timestamp": ok["timestamp"]},
    ]
    for b in bad:
        assert ocptv_schema.errors(b), b


def test_jsonschema_agrees(run):
    """Debian's python3-jsonschema, where installed, passes the same lines (a second reading of the
    same schema files)."""
    jsonschema = pytest.importorskip("jsonschema")
    if not hasattr(jsonschema, "Draft202012Validator"):
        pytest.skip("jsonschema without draft 2020-12")
    store = {k: v for k, v in ocptv_schema.SCHEMAS.items()}
    resolver = jsonschema.RefResolver(ocptv_schema.ROOT["$id"], ocptv_schema.ROOT, store=store)
    v = jsonschema.Draft202012Validator(ocptv_schema.ROOT, resolver=resolver)
    for obj in run[3]:
        assert not list(v.iter_errors(obj)), obj
    assert list(v.iter_errors({"schemaVersion": {"major": 1, "minor": 0}, "sequenceNumber": 0,
                               "timestamp": "2026-01-01T00:00:00Z"}))


def test_capture_command_line(tmp_path):
    """`capture --command ... --ocptv FILE` (a BMC's SOL command in the field; `cat` here)."""
    from bmharness import cli
    log = tmp_path / "sol.log"
    shutil.copyfile(DATA / "x86_64_excerpt.log", log)
    out = tmp_path / "live.jsonl"
    code = cli.main(["capture", "--command", "cat %s" % log, "--ocptv", str(out), "--out",
                     str(tmp_path / "run"), "--no-plots", "--timeout", "60"])
    assert code in (0, 1)  # 1: the excerpt's report finds problems; the capture itself ran
    assert (tmp_path / "run" / "summary.json").exists()
    objs = [json.loads(ln) for ln in out.read_text().splitlines()]
    assert objs and all(ocptv_schema.errors(o) == [] for o in objs)
    assert body(objs[-1])[2] == {"status": "COMPLETE", "result": "PASS"}
    assert sum(body(o)[1] == "measurement" for o in objs) > 10
