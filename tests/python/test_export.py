"""results.csv and results.json (analysis/export.py): one row per sample set in real units --
bandwidth in GB/s from bytes_per_op, the counter frequency and the median cycles, latency and
other timed sets in ns, the cycles kept -- written by `parse`, printed by `parse --json` and
`report --json`, and valid against docs/results.schema.json (python3-jsonschema, which the test
target installs: without it these tests fail, they do not skip)."""

import csv
import gzip
import json
import os

import pytest

import synth
from bmharness import cli
from bmharness.analysis import export

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCHEMA = os.path.join(ROOT, "docs", "results.schema.json")
REAL_EXCERPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                            "hosted_amd_head200.log.gz")  # first 200 lines of a hosted AMD run
REAL_LOGS = [os.path.join("/work/h19data", f) for f in
             ("x86_64_default.log", "aarch64_default.log", "hosted_default.log")]


def validator():
    try:
        import jsonschema
    except ImportError:
        pytest.fail("python3-jsonschema is not installed: `apt-get install python3-jsonschema` "
                    "(scripts/deps.sh test installs it)")
    with open(SCHEMA) as fh:
        schema = json.load(fh)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def parse_dir(tmp_path, data, name="run"):
    log = tmp_path / (name + ".log")
    log.write_bytes(data)
    out = tmp_path / name
    assert cli.main(["parse", str(log), "--out", str(out)]) in (0, 1)
    with open(out / "results.json") as fh:
        res = json.load(fh)
    with open(out / "summary.json") as fh:
        summary = json.load(fh)
    return out, res, summary


@pytest.fixture(scope="module")
def memory_run(tmp_path_factory):
    return parse_dir(tmp_path_factory.mktemp("mem"), synth.memory_stream(n=24).data())


def test_one_row_per_set_and_units(memory_run):
    _, res, summary = memory_run
    assert len(res["rows"]) == len(summary["sets"]) > 0
    assert [r["set"] for r in res["rows"]] == [s["set"] for s in summary["sets"]]
    units = {(r["probe"], r["metric"], r["unit"]) for r in res["rows"]}
    assert units == {("membw", "bandwidth", "GB/s"), ("latency", "latency", "ns")}
    assert res["clock"]["hz"] == synth.TSC_HZ and res["arch"] == "x86_64"
    assert [lv["name"] for lv in res["cache_levels"]] == ["L1d", "L2", "L3"]


def test_bandwidth_is_bytes_times_hz_over_median_cycles(memory_run):
    _, res, summary = memory_run
    sets = {s["set"]: s for s in summary["sets"]}
    rows = [r for r in res["rows"] if r["metric"] == "bandwidth"]
    assert rows
    for r in rows:
        s = sets[r["set"]]
        med = s["stats"]["per_op"]["median"]
        assert r["cycles"]["median"] == med
        assert r["bytes_per_op"] == s["params"]["bytes_per_op"]
        assert r["median"] == pytest.approx(
            s["params"]["bytes_per_op"] * synth.TSC_HZ / med / 1e9, rel=1e-12)
        # fewer cycles, more bandwidth: the CI's ends swap
        assert r["ci95_low"] == pytest.approx(r["bytes_per_op"] * synth.TSC_HZ
                                              / r["cycles"]["ci95_high"] / 1e9, rel=1e-12)
        assert r["ci95_low"] <= r["median"] <= r["ci95_high"]
        assert r["n"] == s["stats"]["per_op"]["n"] == 24 and r["ci_kind"] == "median"


def test_latency_in_ns_with_cycles_kept(memory_run):
    _, res, _ = memory_run
    rows = [r for r in res["rows"] if r["probe"] == "latency"]
    assert rows
    for r in rows:
        for k in ("median", "ci95_low", "ci95_high", "trimmed_mean"):
            assert r[k] == pytest.approx(r["cycles"][k] * 1e9 / synth.TSC_HZ, rel=1e-12)
        assert r["ci95_low"] <= r["median"] <= r["ci95_high"]
        assert r["params"]["pattern"] in ("random", "stride") and "seed" not in r["params"]


def test_cache_level_by_footprint(memory_run):
    _, res, _ = memory_run
    l1, l2, l3 = synth.CACHES
    for r in res["rows"]:
        size = r["params"]["size"]
        foot = 2 * size if r["params"].get("kernel") == "copy" else size
        want = ("L1d" if foot <= l1 else "L2" if foot <= l2 else "L3" if foot <= l3
                else "DRAM")
        assert r["cache_level"] == want, (r["probe"], r["params"])


def test_csv_is_the_json_flattened(memory_run):
    out, res, _ = memory_run
    with open(out / "results.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == list(export.CSV_COLUMNS) == res["columns"]
    assert len(rows) == len(res["rows"])
    for c, j in zip(rows, res["rows"]):
        assert c["probe"] == j["probe"] and int(c["set"]) == j["set"] and c["unit"] == j["unit"]
        assert float(c["median"]) == j["median"] and int(c["n"]) == j["n"]
        assert float(c["median_cycles"]) == j["cycles"]["median"]
        assert c["size"] == str(j["params"]["size"]) and "size=%d" % j["params"]["size"] in c["params"]
        assert c["cache_level"] == j["cache_level"]


def test_timer_sets_in_ns_and_no_rate_below_overhead(tmp_path):
    _, res, _ = parse_dir(tmp_path, synth.full_stream().data())
    timer = [r for r in res["rows"] if r["probe"] == "timer"]
    assert [r["params"] for r in timer] == [{"method": "rdtsc"}, {"method": "rdtscp"}]
    assert all(r["unit"] == "ns" and r["cache_level"] is None for r in timer)
    s = {"name": "membw", "set": 9, "unit": "cycles", "tsc_hz": 1e9, "overhead": 0, "iters": 1,
         "params": {"kernel": "read", "size": 4096, "bytes_per_op": 4096},
         "stats": {"per_op": {"n": 3, "median": -2.0, "trimmed_mean": 0.0}}}
    r = export.row(s, None, [], None, "cycles")
    assert r["unit"] == "GB/s" and r["median"] is None and r["trimmed_mean"] is None
    assert r["cycles"]["median"] == -2.0


def test_without_a_counter_frequency_rows_stay_in_cycles():
    s = {"name": "latency", "set": 1, "unit": "cycles", "tsc_hz": None, "params": {"size": 64},
         "stats": {"per_op": {"n": 2, "median": 40.0, "trimmed_mean": 41.0}}}
    r = export.row(s, None, [], None, "cycles")
    assert (r["metric"], r["unit"], r["median"], r["counter_hz"]) == ("latency", "cycles", 40.0,
                                                                       None)


def test_schema_accepts_synthetic_and_real_results(memory_run, tmp_path):
    v = validator()
    v.validate(memory_run[1])
    _, res, _ = parse_dir(tmp_path, gzip.decompress(open(REAL_EXCERPT, "rb").read()), "real")
    v.validate(res)
    probes = {r["probe"] for r in res["rows"]}
    assert {"timer", "spin", "membw"} <= probes
    assert res["clock"]["hz"] == 2445407630 and res["cache_levels"][0] == {"name": "L1d",
                                                                            "size": 32768}
    bw = [r for r in res["rows"] if r["probe"] == "membw"]
    assert all(r["unit"] == "GB/s" and r["median"] > 0 for r in bw)


@pytest.mark.parametrize("log", REAL_LOGS, ids=os.path.basename)
def test_schema_on_full_real_logs(log, tmp_path):
    if not os.path.exists(log):
        pytest.skip("%s: a full real log (the committed excerpt is checked always)" % log)
    v = validator()
    with open(log, "rb") as fh:
        _, res, summary = parse_dir(tmp_path, fh.read())
    v.validate(res)
    assert len(res["rows"]) == len(summary["sets"])


def test_schema_rejects_a_broken_result(memory_run):
    v = validator()
    bad = json.loads(json.dumps(memory_run[1]))
    bad["rows"][0]["unit"] = "MB/s"          # a bandwidth row must be in GB/s
    assert list(v.iter_errors(bad))
    bad = json.loads(json.dumps(memory_run[1]))
    del bad["rows"][0]["median"]
    assert list(v.iter_errors(bad))


def test_parse_json_prints_validation_and_paths(tmp_path, capsys):
    log = tmp_path / "serial.log"
    log.write_bytes(synth.full_stream().data())
    out = tmp_path / "out"
    assert cli.main(["parse", str(log), "--out", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] and doc["exit_code"] == 0 and doc["counts"]["sets"] == 3
    for name in ("summary.json", "results.csv", "results.json", "records.jsonl"):
        assert doc["files"][name] == str(out / name) and os.path.exists(doc["files"][name])
    bad = tmp_path / "bad.log"
    bad.write_bytes(synth.full_stream().data()[:-200])
    assert cli.main(["parse", str(bad), "--out", str(tmp_path / "b"), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["truncated"] and "truncated" in doc["problem_counts"]


def test_report_json_prints_results(memory_run, capsys):
    out = memory_run[0]
    capsys.readouterr()
    assert cli.main(["report", str(out), "--json", "--no-plots"]) == 0
    text = capsys.readouterr().out
    doc = json.loads(text)
    with open(out / "results.json") as fh:
        assert doc["rows"] == json.load(fh)["rows"]
    assert os.path.exists(out / "report.md") and "Memory" not in text.splitlines()[0]


def documented_keys(section):
    """The backquoted names in the first column of docs/results.md's table under `section`."""
    with open(os.path.join(ROOT, "docs", "results.md")) as fh:
        text = fh.read()
    part = text.split("## " + section, 1)[1].split("\n## ", 1)[0]
    keys = set()
    for line in part.splitlines():
        if line.startswith("| `"):
            keys.update(k for k in line.split("|")[1].replace("`", " ").replace(",", " ").split()
                        if not k.startswith("("))
    return keys


def test_every_summary_key_is_documented(tmp_path):
    _, _, summary = parse_dir(tmp_path, gzip.decompress(open(REAL_EXCERPT, "rb").read()))
    undocumented = set(summary) - documented_keys("summary.json")
    assert not undocumented, "summary.json keys not in docs/results.md: %s" % sorted(undocumented)
    assert len(summary) >= 15


def test_every_results_column_is_documented(memory_run):
    keys = documented_keys("results.csv and results.json")
    cols = set(export.CSV_COLUMNS) - set(export.CSV_PARAMS)
    missing = {c for c in cols if c not in keys and c.replace("_cycles", "") not in keys}
    assert not missing, "results.csv columns not in docs/results.md: %s" % sorted(missing)
