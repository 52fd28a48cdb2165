"""The x86 PMU event data file (data/pmu_events_x86.json) and its generator
(scripts/gen_pmu_events.py): every table names its source and only generic names of the
counter-set vocabulary (bench/core/options.c: config_pmu_event_names); every family table says
which models it applies to; the C the build uses is what the generator makes of the data file
now; and the generator refuses a table without a source and an unknown core type."""

import copy
import json
import os
import re
import subprocess
import sys

import pytest

from script_module import load_script

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DATA = os.path.join(ROOT, "data", "pmu_events_x86.json")
GEN = os.path.join(ROOT, "scripts", "gen_pmu_events.py")
OPTIONS_C = os.path.join(ROOT, "bench", "core", "options.c")
# The free-running MSR counters are in the vocabulary but in no event table (pmu_freerun.c).
FREE_RUNNING = {"aperf", "mperf", "energy_pkg", "energy_dram", "energy_core"}


def load_generator():
    return load_script("gen_pmu_events")


def vocabulary():
    text = open(OPTIONS_C).read()
    m = re.search(r"config_pmu_event_names\[\]\s*=\s*\{(.*?)\};", text, re.S)
    assert m, "config_pmu_event_names not found in bench/core/options.c"
    return set(re.findall(r'"([a-z0-9_]+)"', m.group(1)))


@pytest.fixture(scope="module")
def data():
    with open(DATA) as f:
        return json.load(f)


def test_every_table_names_its_source_and_the_vocabulary(data):
    vocab = vocabulary() - FREE_RUNNING
    assert data["tables"]
    for t in data["tables"]:
        assert t.get("source"), "table %s names no source" % t["name"]
        for e in t["events"]:
            assert e["name"] in vocab, "%s: %s is not a counter-set event name" % (t["name"], e["name"])
            assert e.get("vendor_name"), "%s: %s has no vendor name" % (t["name"], e["name"])
            assert 0 <= int(str(e["event"]), 0) <= 0xFFF and 0 <= int(str(e["umask"]), 0) <= 0xFF


def test_family_tables_name_their_models_and_mapfile_line(data):
    bases = [t["name"] for t in data["tables"] if not t.get("match")]
    assert bases == ["intel_arch", "amd_core"]  # the vendors' base tables (pmu_base_events)
    for t in data["tables"]:
        for m in t.get("match", []):
            assert m["models"] and m.get("mapfile"), "%s: a match without models or its mapfile line" % t["name"]


def test_build_output_is_the_generator_output_of_the_data_file(data, tmp_path):
    """Regenerate into a temporary folder and compare with what the generator makes in build/gen:
    the build's copy must be current (the Makefile reruns it when the data file changes)."""
    subprocess.run([sys.executable, GEN, os.path.relpath(DATA, ROOT), str(tmp_path)], check=True, cwd=ROOT)
    inc = (tmp_path / "pmu_events_tables.inc").read_text()
    hdr = (tmp_path / "pmu_events_tables.h").read_text()
    assert "data/pmu_events_x86.json" in inc.splitlines()[0]
    for t in data["tables"]:
        assert "const struct pmu_event_table pmu_%s_events" % t["name"] in inc
        assert "pmu_%s_events" % t["name"] in hdr
        assert t["source"].split()[0] in inc  # the header comment names every table's source
    built = os.path.join(ROOT, "build", "gen", "pmu_events_tables.inc")
    if os.path.exists(built):
        assert open(built).read() == inc, "build/gen/pmu_events_tables.inc is stale: rebuild (make)"


def test_every_event_row_is_generated_with_its_codes(data):
    """Each event of each table appears as a C row with its codes, and the table lists it."""
    gen = load_generator()
    _, inc = gen.generate(copy.deepcopy(data), "data/pmu_events_x86.json")
    rows = re.findall(r'^\t\{ "(\w+)", 0x([0-9A-F]+), 0x([0-9A-F]+), (\d+), [^"]*"([^"]*)" \}, /\* (\d+): ([^*]*) \*/$',
                      inc, re.M)
    by_index = {int(r[5]): r for r in rows}
    for t in data["tables"]:
        m = re.search(r"static const uint8_t %s_rows\[\] = \{ ([0-9, ]*) \};" % t["name"], inc)
        assert m, t["name"]
        idx = [int(x) for x in m.group(1).split(", ")]
        assert len(idx) == len(t["events"])
        for i, e in zip(idx, t["events"]):
            name, ev, umask, cmask, vendor, _, tables = by_index[i]
            assert (name, int(ev, 16), int(umask, 16), int(cmask), vendor) == (
                e["name"], int(str(e["event"]), 0), int(str(e["umask"]), 0), int(e.get("cmask", 0)),
                e["vendor_name"])
            assert t["name"] in tables.split(", ")


def test_generator_refuses_a_table_without_source_or_an_unknown_core_type(data):
    gen = load_generator()
    bad = copy.deepcopy(data)
    del bad["tables"][1]["source"]
    with pytest.raises(ValueError, match="no source"):
        gen.check(bad)
    bad = copy.deepcopy(data)
    bad["tables"][1]["match"][0]["core_type"] = "big"
    with pytest.raises(ValueError, match="core type"):
        gen.check(bad)
