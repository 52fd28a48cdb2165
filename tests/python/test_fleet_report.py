"""The fleet report (analysis/fleet_report.py, `fleet report`; docs/fleet.md): synthetic boots of
twin machines (synth.memory_stream: the same hierarchy and clock, each with its own noise seed)
and the ones that differ. A machine 25% slower in every per-operation cost (DRAM bandwidth 20%
below its peers) is flagged, with its evidence, and no twin is; a spread larger than the
difference flags nothing (the boot-to-boot spread is known to the test); a different cache
geometry and a different firmware version are flagged against the twins' majority; another CPU
is another group; a group of two gets no numeric test. Text, markdown and HTML say the same;
the OCPTV form passes the spec's schema."""

import json
import os

import pytest

import ocptv_schema
import synth
from bmharness import cli
from bmharness.analysis import fleet_report
from bmharness.report import fleet_report as render
from bmharness.stream import parse

SMALL_CACHES = (32768, 262144, 16 * 1024 * 1024)


def firmware(rev):
    def then(s, set_id):
        s.add("plat", kind="firmware", vendor="Acme", rev=rev, uefi="2.7", smbios="3.2", acpi=2)
        return set_id
    return then


def machine(root, name, **kw):
    kw.setdefault("noise", 0.01)
    kw.setdefault("then", firmware("1.0"))
    log = root / (name + ".log")
    log.write_bytes(synth.memory_stream(**kw).data())
    parse.parse_log(str(log), str(root / "fleet" / name / "parse"))


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    root = tmp_path_factory.mktemp("fleet")
    for i in range(5):
        machine(root, "twin%d" % i, seed=20 + i)
    machine(root, "slow", seed=30, scale=1.25)
    machine(root, "oldfw", seed=31, then=firmware("0.9"))
    machine(root, "odd_cache", seed=32, cpuid=SMALL_CACHES)
    machine(root, "amd1", seed=33, cpu=("AuthenticAMD", 25, 17))
    machine(root, "amd2", seed=34, cpu=("AuthenticAMD", 25, 17))
    return root / "fleet"


def group_of(rep, member):
    return [g for g in rep["groups"] if member in g["machines"]][0]


def test_slow_machine_flagged_twins_not(fleet):
    rep = fleet_report.build([str(fleet)])
    g = group_of(rep, "slow")
    assert {"twin0", "slow", "oldfw", "odd_cache"} <= set(g["machines"])
    dram = [o for o in g["outliers"] if o["metric"] == "DRAM read bandwidth" and o["machine"] == "slow"]
    assert len(dram) == 1 and dram[0]["worse"]
    assert dram[0]["deviation"] == pytest.approx(-0.2, abs=0.03)
    assert "median" in dram[0]["evidence"] and "CI" in dram[0]["evidence"]
    # odd_cache's CPUID names other levels, so its plateaus (headline.py) are other sizes: it
    # may differ in figures too; the twins and the firmware-only difference never do
    numeric = {o["machine"] for o in g["outliers"] if o["metric"] not in ("firmware", "caches", "pmu")}
    assert "slow" in numeric and numeric <= {"slow", "odd_cache"}


def test_spread_larger_than_the_difference_flags_nothing(fleet):
    rep = fleet_report.build([str(fleet)], spread=0.30)
    g = group_of(rep, "slow")
    assert not [o for o in g["outliers"] if o["metric"] not in ("firmware", "caches", "pmu")]


def test_attributes_against_the_twins(fleet):
    g = group_of(fleet_report.build([str(fleet)]), "slow")
    attrs = {(o["machine"], o["metric"]) for o in g["outliers"] if o["metric"] in ("firmware", "caches", "pmu")}
    assert attrs == {("oldfw", "firmware"), ("odd_cache", "caches")}
    fw = [o for o in g["outliers"] if o["metric"] == "firmware"][0]
    assert "0.9" in fw["evidence"] and "1.0" in fw["evidence"]
    assert sorted(g["firmware"]) == ["Acme 0.9", "Acme 1.0"]


def test_other_cpu_is_another_group_and_two_get_no_test(fleet):
    rep = fleet_report.build([str(fleet)])
    assert len(rep["groups"]) == 2
    amd = group_of(rep, "amd1")
    assert sorted(amd["machines"]) == ["amd1", "amd2"] and amd["outliers"] == []
    assert "fewer than 3 machines" in render.text(rep)


def test_formats_say_the_same(fleet):
    rep = fleet_report.build([str(fleet)])
    txt, md, page = (render.render(rep, f) for f in ("text", "markdown", "html"))
    for out in (txt, md, page):
        assert "slow" in out and "DRAM read bandwidth" in out and "oldfw" in out
    assert "| metric | machines |" in md
    assert page.startswith("<!DOCTYPE html>") and "<table>" in page
    assert "http" not in page.replace("<!DOCTYPE html>", "")  # one self-contained page


def test_ocptv_diagnoses(fleet):
    rep = fleet_report.build([str(fleet)])
    lines = []
    render.ocptv_lines(rep, lines.append)
    for i, obj in enumerate(lines):
        assert ocptv_schema.errors(obj) == [] and obj["sequenceNumber"] == i
    diags = [o["testStepArtifact"]["diagnosis"] for o in lines
             if "diagnosis" in o.get("testStepArtifact", {})]
    fails = [d for d in diags if d["type"] == "FAIL"]
    assert len(fails) == sum(len(g["outliers"]) for g in rep["groups"])
    assert any(d["hardwareInfoId"] == "slow" and "DRAM-read-bandwidth" in d["verdict"] for d in fails)
    assert lines[-1]["testRunArtifact"]["testRunEnd"]["result"] == "FAIL"


def test_command_line(fleet, tmp_path, capsys):
    out, ocp = tmp_path / "r.md", tmp_path / "r.jsonl"
    code = cli.main(["fleet", "report", str(fleet), "--format", "markdown", "--out", str(out),
                     "--ocptv", str(ocp)])
    assert code == 1  # machines stand out
    assert out.read_text().startswith("# Fleet report: 10 machine(s)")
    assert all(not ocptv_schema.errors(json.loads(ln)) for ln in ocp.read_text().splitlines())
    twins = tmp_path / "twins"
    twins.mkdir()
    for i in range(3):
        os.symlink(fleet / ("twin%d" % i), twins / ("twin%d" % i))
    assert cli.main(["fleet", "report", str(twins)]) == 0
    assert cli.main(["fleet", "report", str(tmp_path / "nothing")]) == 2
