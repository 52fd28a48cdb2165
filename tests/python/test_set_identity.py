"""Set identity: every probe-record field is classified (identity, condition, derived, measured),
the table in docs/protocol.md is the code's, and measured values never change a set's key."""

import pathlib
import re

import pytest

import restream
from bmharness.stream import parse, set_identity as si

DATA = pathlib.Path(__file__).resolve().parent / "data"
ROOT = pathlib.Path(__file__).resolve().parents[2]


def seen_fields():
    """(probe, field) of every probe-record field in the real default runs (x86_64, aarch64,
    hosted), kept in data/probe_fields.txt."""
    out = []
    for line in (DATA / "probe_fields.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            probe, field = line.split()[:2]
            out.append((probe, field))
    return out


def test_every_field_of_the_real_runs_is_classified():
    fields = seen_fields()
    assert len(fields) > 250 and ("irq_latency", "timer_hz") in fields
    missing = [pf for pf in fields if si.field_class(*pf) is None]
    assert not missing, "classify these in bench/core/fields.def and docs/protocol.md: %s" % (
        missing,)


def test_the_measured_fields_named_in_the_problem_are_not_identity():
    for probe, field in (("irq_latency", "timer_hz"), ("irq_latency", "arm_cycles_median"),
                         ("irq_latency", "armed"), ("irq_latency", "taken"),
                         ("irq_displace", "gaps_calib"), ("irq_footprint", "mlines"),
                         ("noise", "count"), ("noise", "threshold_cycles"),
                         ("noise", "median_step_cycles"), ("noise", "p90_step_cycles"),
                         ("latency", "cal_steps"), ("spin", "iters"), ("timer", "overhead"),
                         ("membw", "tsc_hz"), ("noise", "window_cycles"),
                         ("noise", "longest_cycles"), ("irq_latency", "smi_count")):
        assert si.field_class(probe, field) in (si.MEASURED, si.DERIVED), (probe, field)
    assert si.field_class("membw", "size") == si.IDENTITY
    assert si.field_class("irq_latency", "source") == si.IDENTITY


def test_no_field_in_two_classes():
    for table in [si.COMMON] + list(si.PROBES.values()):
        names = [f for fields in table.values() for f in fields]
        assert len(names) == len(set(names))
        assert set(table) <= set(si.CLASSES)
    for name, table in si.PROBES.items():
        overlap = {f for fields in table.values() for f in fields} & {
            f for fields in si.COMMON.values() for f in fields}
        assert not overlap, (name, overlap)


def docs_table():
    """The Set identity table of docs/protocol.md as (probe, {class: sorted fields})."""
    text = (ROOT / "docs/protocol.md").read_text()
    sec = text.split("### Set identity", 1)[1].split("\n#", 1)[0]
    rows = []
    for line in sec.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not cells[0].startswith("`"):
            continue
        rows.append((cells[0].strip("`"),
                     {c: sorted(re.findall(r"`([a-z0-9_]+)`", cell))
                      for c, cell in zip(si.CLASSES, cells[1:])}))
    return rows


def test_docs_table_is_the_codes():
    assert docs_table() == si.table_rows()
    text = (ROOT / "docs/protocol.md").read_text()
    assert "counts as identity" in text.split("### Set identity", 1)[1].split("\n## ", 1)[0]


def test_unknown_field_is_identity_and_reported():
    a = {"name": "spin", "set": 1, "unit": "cycles", "params": {"loop": "dec_jnz", "newfield": 3}}
    b = dict(a, params={"loop": "dec_jnz", "newfield": 4})
    assert si.field_class("spin", "newfield") is None
    assert si.effective_class("spin", "newfield") == si.DEFAULT_CLASS == si.IDENTITY
    assert si.key(a) != si.key(b)
    assert si.unclassified([a, b]) == [("spin", "newfield")]
    assert si.effective_class("new_probe", "anything") == si.IDENTITY


@pytest.mark.parametrize("arch", ["x86_64", "hosted", "aarch64"])
def test_key_ignores_measured_values_of_real_sets(arch, tmp_path):
    log = DATA / ("%s_excerpt.log" % arch)
    summary = parse.parse_log(str(log), str(tmp_path / "p"))
    sets = summary["sets"]
    assert len(sets) > 20 and not si.unclassified(sets)
    keys = [si.key(s) for s in sets]
    assert len(set(keys)) == len(keys)  # one boot's sets are told apart by identity alone
    for s in sets:
        changed = dict(s, params={k: (str(v) + "9" if si.field_class(s["name"], k) in
                                      (si.MEASURED, si.DERIVED, si.CONDITION) else v)
                                  for k, v in s["params"].items()})
        assert si.key(changed) == si.key(s)
        ident = [k for k in s["params"] if si.field_class(s["name"], k) == si.IDENTITY]
        if ident:
            other = dict(s, params=dict(s["params"], **{ident[0]: "other"}))
            assert si.key(other) != si.key(s)


def test_restream_excerpt_round_trips(tmp_path):
    recs = restream.read_records((DATA / "x86_64_excerpt.log").read_text())
    again = restream.read_records(restream.write(recs))
    assert [(t, f) for t, f, _ in again] == [(t, f) for t, f, _ in recs]
