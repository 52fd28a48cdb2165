"""The results store with runs of two emulated CPU models, two boots each: QEMU -cpu
Skylake-Client-v1 (configs.STORE_OPTIONS) and the default qemu64, an AuthenticAMD model (the two
compare boots, configs.COMPARE_BOOTS, whose options add more probes). `store add` files them under
two machines (the CPU model is part of a machine's identity, the boots of one model are one
machine), and `store compare` compares the machines per cache level with the boots as the unit.
Under TCG the numbers are the emulator's: the test asserts structure, not which machine is
faster."""

import json
import os
import subprocess
import sys

import pytest

from bmharness.store import db as store_db, ops
from configs import COMPARE_BOOTS, STORE_CPU, store_boot_name
from conftest import ROOT

HARNESS = os.path.join(ROOT, "harness", "baremetric")


def store(db, *args):
    r = subprocess.run([sys.executable, HARNESS, "store", "--db", db] + list(args),
                       capture_output=True, text=True)
    assert r.returncode == 0, (args, r.stdout[-2000:], r.stderr[-2000:])
    return r.stdout


@pytest.fixture(scope="module")
def boots(request, st_skylake_client_v1_1, st_skylake_client_v1_2, cmp1, cmp2):
    """Two boots of each model, booted in the session's pool: configs.py's STORE_OPTIONS entries
    and the compare boots."""
    return {STORE_CPU: [request.getfixturevalue(store_boot_name(STORE_CPU, i)) for i in (1, 2)],
            "qemu64": [request.getfixturevalue(name) for name in COMPARE_BOOTS]}


def test_two_cpu_models_two_machines_compared_per_level(boots, tmp_path):
    db = str(tmp_path / "results.sqlite")
    for cpu in boots:
        for b in boots[cpu]:
            assert b.summary["validation"]["complete"], b.summary["validation"]
            assert "added as run" in store(db, "add", os.path.join(b.out_dir, "parsed"))
    # the same run again is not added twice
    assert "nothing added" in store(db, "add", os.path.join(boots[STORE_CPU][0].out_dir, "parsed"))
    listing = store(db, "list")
    assert "2 machine(s), 4 run(s)" in listing, listing
    machines = ops.machines(store_db.connect(db))
    assert len(machines) == 2 and all(len(m["runs"]) == 2 for m in machines), machines
    by_vendor = {v: m["machine_id"] for m in machines for v in ("GenuineIntel", "AuthenticAMD")
                 if v in m["label"]}
    assert len(by_vendor) == 2, [m["label"] for m in machines]
    res = json.loads(store(db, "compare", by_vendor["GenuineIntel"], by_vendor["AuthenticAMD"], "--json"))
    levels = res["levels"]["rows"]
    assert levels and {r["level"] for r in levels} >= {"L1d", "L2"}
    assert all(r["scope"] == "boot-to-boot" and r["boots_a"] == 2 and r["boots_b"] == 2 for r in levels)
    assert {r["unit"] for r in levels} == {"GB/s", "ns"}
