"""Two boots of the same image with the same options on the same (emulated) machine: `compare`
pairs every set of one with a set of the other, whatever the boots measured differently (timer
rates, armed/taken counts, gaps, calibrated iterations: stream/set_identity.py). One boot with
probes of every family whose sets carry measured fields: timer, spin, memory sweeps, interrupt
latency and noise."""

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

HARNESS = os.path.join(ROOT, "harness", "baremetric")


@pytest.fixture(scope="module")
def two_boots(cmp1, cmp2):
    """The two boots of configs.py's COMPARE_OPTIONS (entries cmp1, cmp2, 2 CPUs)."""
    return [cmp1, cmp2]


def test_compare_matches_every_set(two_boots, tmp_path):
    a, b = two_boots
    for bt in (a, b):
        assert bt.summary["validation"]["complete"], bt.summary["validation"]
    n = len(a.summary["sets"])
    assert n == len(b.summary["sets"]) and n > 50
    r = subprocess.run([sys.executable, HARNESS, "compare", os.path.join(a.out_dir, "parsed"),
                        os.path.join(b.out_dir, "parsed"), "--out", str(tmp_path), "--json"],
                       capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    cmp = json.loads(r.stdout)
    assert cmp["only_a"] == [] and cmp["only_b"] == [] and cmp["unclassified"] == [], cmp["only_a"][:5]
    assert len(cmp["rows"]) == n
    assert (tmp_path / "compare.json").exists() and (tmp_path / "compare.md").exists()
    # the boots did measure differently (TCG's clock follows the host): matching ignored it
    med = lambda bt: {s["set"]: (s.get("stats") or {}).get("per_op", {}).get("median")
                      for s in bt.summary["sets"]}
    assert med(a) != med(b)
