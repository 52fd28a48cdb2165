"""OCPTV output of a real default boot (docs/fleet.md, "OCPTV output"): configs.py's shape_x86
boot (the default probe list under QEMU, the boot test_record_shapes.py takes) exported with
`export --ocptv` and every line checked against the OCPTV output spec 2.0 schema
(tests/python/ocptv_schema.py, the vendored ocp-diag-core json_spec); the run framed once, a
measurement per complete set, a diagnosis per check, the end record's status as the result."""

import json
import os
import sys

from bmharness import ocptv_cli

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import ocptv_schema  # noqa: E402


def test_default_boot_as_ocptv(shape_x86):
    parsed = os.path.join(shape_x86.out_dir, "parsed")
    lines = []
    ocptv_cli.export_dir(parsed, lines.append)
    objs = [json.loads(ln) for ln in lines]
    for i, obj in enumerate(objs):
        assert ocptv_schema.errors(obj) == [], (i, obj)
        assert obj["sequenceNumber"] == i
    run = [o["testRunArtifact"] for o in objs if "testRunArtifact" in o]
    step = [o["testStepArtifact"] for o in objs if "testStepArtifact" in o]
    assert "testRunStart" in run[0] and "testRunEnd" in run[-1]
    s = shape_x86.summary
    complete = [x for x in s["sets"] if x.get("complete", True)]
    assert 0 < sum("measurement" in a for a in step) <= len(complete)
    assert sum("diagnosis" in a for a in step) == len(s["checks"])
    assert sum("testStepStart" in a for a in step) == sum("testStepEnd" in a for a in step) > 0
    want = "PASS" if s["end"]["status"] == "ok" else "FAIL"
    assert run[-1]["testRunEnd"] == {"status": "COMPLETE", "result": want}
