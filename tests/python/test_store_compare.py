"""`compare --store DB` (cli._stored_spread) and `store compare`: the boot-to-boot spread a
results store holds for a machine is the boot spread of a one-boot-a-side comparison, so a
shift smaller than the spread the store has seen between boots is not called a difference;
with two or more boots on a side those boots give the spread and the store is not asked."""

import json
import random

import pytest

import synth
from bmharness import cli
from bmharness.store import db, ops

STORED = (5000, 5250, 5100)  # the stored boots' levels: a range of 250 / 5117 = 4.9%
SETS = 4


def boot_log(path, level, seed, model=1):
    """One boot of a fixed machine (same plat cpu/firmware records, so one machine id; another
    CPU `model` is another machine): SETS spin sets at `level` cycles with small noise inside
    the boot."""
    r = random.Random(seed)
    s = synth.Stream().begin()
    s.add("plat", kind="firmware", vendor="EDK II", rev="0x10000", uefi="2.70", smbios="3.0")
    s.add("plat", kind="cpu", vendor="AuthenticAMD", family=23, model=model, stepping=2,
          brand="AMD EPYC Processor", ucode="0x8301055", hypervisor=0, hv_sig="")
    s.add("plat", kind="tsc", hz=synth.TSC_HZ, source="hpet", invariant=1)
    for k in range(SETS):
        s.probe("spin", k, [int(round(level + r.gauss(0, 3))) for _ in range(40)], iters=1,
                overhead=0, loop="dec_jnz", unroll=k)
    path.write_bytes(s.end().data())
    return str(path)


@pytest.fixture
def store(tmp_path, capsys):
    """A store holding three boots of the machine, and its typical spread."""
    dbp = str(tmp_path / "store.sqlite")
    for i, level in enumerate(STORED):
        assert cli.main(["store", "--db", dbp, "add",
                         boot_log(tmp_path / ("s%d.log" % i), level, 100 + i)]) == 0
    conn = db.connect(dbp, create=False)
    [m] = ops.machines(conn)
    typical = ops.typical_spread(conn, m["machine_id"])
    conn.close()
    capsys.readouterr()
    return dbp, typical


def compare_json(argv, tmp_path, capsys):
    out = tmp_path / "o"
    assert cli.main(["compare"] + argv + ["--out", str(out)]) == 0
    return json.loads((out / "compare.json").read_text()), capsys.readouterr().err


def test_store_spread_keeps_a_smaller_shift_from_being_called(tmp_path, capsys, store):
    dbp, typical = store
    assert typical["runs"] == 3 and typical["sets"] == SETS
    assert typical["pct"] == pytest.approx(100 * 250 / (sum(STORED) / 3), rel=0.02)
    a = boot_log(tmp_path / "a.log", 5000, 1)
    b = boot_log(tmp_path / "b.log", 5200, 2)  # +4%: inside the stored 4.9%
    # without the store the within-boot test calls it: the samples cannot see the boots' spread
    plain, _ = compare_json([a, b], tmp_path, capsys)
    assert plain["boot_spread_pct"] is None
    assert all(r["changed"] and r["verdict"] == "B slower" for r in plain["rows"])
    data, err = compare_json([a, b, "--store", dbp], tmp_path, capsys)
    assert data["boot_spread_pct"] == pytest.approx(typical["pct"])
    assert "from the store" in err and "%.2f%%" % typical["pct"] in err
    assert data["scope"] == "within-boot"
    assert not any(r["changed"] for r in data["rows"])
    assert {r["verdict"] for r in data["rows"]} == {"within the boot-to-boot spread"}
    assert "stated boot-to-boot spread of" in data["method"]
    # a shift larger than the stored spread is still a difference
    c = boot_log(tmp_path / "c.log", 5750, 3)  # +15%
    data, _ = compare_json([a, c, "--store", dbp], tmp_path, capsys)
    assert all(r["changed"] and r["verdict"] == "B slower" for r in data["rows"])
    # --boot-spread given: the store is not asked
    data, err = compare_json([a, b, "--store", dbp, "--boot-spread", "1"], tmp_path, capsys)
    assert data["boot_spread_pct"] == 1.0 and "from the store" not in err
    assert all(r["changed"] for r in data["rows"])


def test_store_without_the_machine_or_with_boots_on_a_side(tmp_path, capsys, store):
    dbp, _ = store
    a = boot_log(tmp_path / "a.log", 5000, 1)
    b1 = boot_log(tmp_path / "b1.log", 5200, 2)
    b2 = boot_log(tmp_path / "b2.log", 5210, 3)
    # one boot against two: those boots give the spread; nothing is looked up
    data, err = compare_json(["--a", a, "--b", b1, b2, "--store", dbp], tmp_path, capsys)
    assert data["scope"] == "one-vs-boots" and data["boot_spread_pct"] is None
    assert "store" not in err
    # a store that has not seen this machine: no spread, and it says so
    empty = str(tmp_path / "empty.sqlite")
    db.connect(empty).close()
    data, err = compare_json([a, b1, "--store", empty], tmp_path, capsys)
    assert data["boot_spread_pct"] is None and "holds no boot-to-boot spread" in err
    # a missing database is an error, not an empty store
    assert cli.main(["compare", a, b1, "--store", str(tmp_path / "none.sqlite"),
                     "--out", str(tmp_path / "o")]) == 2


def test_store_compare_of_stored_runs_uses_the_spread_one_run_a_side(tmp_path, capsys, store):
    dbp, typical = store
    conn = db.connect(dbp, create=False)
    try:
        # r3 (5100) against r2 (5250): +2.9%, above the threshold, inside the stored spread
        _, _, res, note = ops.compare_store(conn, "r3", "r2", str(tmp_path / "t"))
        assert note and res["boot_spread_pct"] == pytest.approx(typical["pct"])
        assert {r["verdict"] for r in res["rows"]} == {"within the boot-to-boot spread"}
        # one run against another machine's two: those two give the spread
        for i in (1, 2):
            assert cli.main(["store", "--db", dbp, "add", boot_log(
                tmp_path / ("m%d.log" % i), 5000, 200 + i, model=49)]) == 0
        other = [m for m in ops.machines(conn) if len(m["runs"]) == 2][0]["machine_id"]
        _, _, res, note = ops.compare_store(conn, "r1", other, str(tmp_path / "t"))
        assert res["scope"] == "one-vs-boots" and note is None
        assert res["boot_spread_pct"] is None
        capsys.readouterr()
    finally:
        conn.close()
    assert cli.main(["store", "--db", dbp, "compare", "r3", "r2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["boot_spread_pct"] == pytest.approx(typical["pct"])
