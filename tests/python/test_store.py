"""The results store (harness/bmharness/store/): machine identity, idempotent adds, export,
schema migration, the boot-to-boot spread and the per-level comparison of stored machines."""

import csv
import io
import json
import sqlite3
import statistics

import pytest

import synth
from bmharness import cli
from bmharness.analysis import export
from bmharness.store import db, machine, ops
from bmharness.stream import parse


def boot(seed=1, model=1, serial=None, n=64, ident=()):
    """One synthetic boot of a machine whose CPU is `model` (plat kind=cpu), two timer sets."""
    s = synth.Stream().begin()
    s.add("plat", kind="firmware", vendor="EDK II", rev="0x10000", uefi="2.70", smbios="3.0")
    s.add("plat", kind="cpu", vendor="AuthenticAMD", family=23, model=model, stepping=2,
          brand="AMD EPYC Processor", ucode="0x8301055", hypervisor=0, hv_sig="")
    s.add("plat", kind="memdev", handle="0x1100", locator="DIMM 0", bank="", size=1 << 30,
          type="DDR4", type_code=26, speed=3200, conf_speed=3200, data_width=64,
          total_width=72, manufacturer="Acme", part="X1")
    if serial:
        s.add("plat", kind="system", manufacturer="Acme", product="Box 1", serial=serial)
    for rec in ident:  # as the firmware sends them (bench/facts/ident.c)
        s.add("plat", **rec)
    s.add("plat", kind="tsc", hz=synth.TSC_HZ, source="hpet", invariant=1)
    s.probe("timer", 1, synth.timer_values(seed, n), method="rdtsc")
    s.probe("timer", 2, synth.timer_values(seed + 100, n, base=60), method="rdtscp")
    return s.end(probes=2).data()


def parsed(tmp_path, name, data):
    """(summary, results, directory) of a stream parsed as `parse` does."""
    log = tmp_path / (name + ".log")
    log.write_bytes(data)
    out = tmp_path / name
    summary = parse.parse_log(str(log), str(out))
    return summary, export.write(str(out), summary), str(out)


@pytest.fixture
def conn(tmp_path):
    c = db.connect(str(tmp_path / "store.sqlite"))
    yield c
    c.close()


def test_identity_stable_across_boots_and_split_by_cpu_model(tmp_path):
    a1, _, _ = parsed(tmp_path, "a1", boot(seed=1, model=1))
    a2, _, _ = parsed(tmp_path, "a2", boot(seed=2, model=1))
    b, _, _ = parsed(tmp_path, "b", boot(seed=1, model=49))
    ida, idb = machine.identity(a1), machine.identity(b)
    assert ida["cpu_model"] == 1 and idb["cpu_model"] == 49 and ida["microcode"] == "0x8301055"
    assert machine.machine_id(ida) == machine.machine_id(machine.identity(a2))
    assert machine.machine_id(ida) != machine.machine_id(idb)
    # two boots of one machine are two runs; one boot parsed twice is one
    assert machine.run_key(a1) != machine.run_key(a2)
    again, _, _ = parsed(tmp_path, "a1again", boot(seed=1, model=1))
    assert machine.run_key(again) == machine.run_key(a1)
    assert "system (SMBIOS type 1)" in machine.missing(ida)


def test_firmware_ident_records(tmp_path):
    """The firmware's serial_hash is the identity's as sent; "none" and absent records are null."""
    sysrec = dict(kind="system", source="smbios", present=1, manufacturer="Acme", product="Box 1",
                  version="none", serial_hash="769d998ed3af7486")
    board = dict(kind="board", source="smbios", present=1, manufacturer="Acme", product="MB",
                 version="2", serial_hash="none")
    s, _, _ = parsed(tmp_path, "f", boot(ident=(sysrec, board)))
    ident = machine.identity(s)
    assert ident["system"] == {"manufacturer": "Acme", "product": "Box 1"}
    assert ident["board"] == {"manufacturer": "Acme", "product": "MB", "version": "2"}
    assert ident["serial_hash"] == "769d998ed3af7486" and not machine.missing(ident)
    absent = [dict(kind=k, source="smbios", present=0, reason="no SMBIOS table") for k in ("system", "board")]
    a, _, _ = parsed(tmp_path, "a", boot(ident=absent))
    ida = machine.identity(a)
    assert ida["system"] is None and ida["board"] is None and ida["serial_hash"] is None
    assert "board (SMBIOS type 2)" in machine.missing(ida)
    # another serial: another machine
    other = dict(sysrec, serial_hash="0123456789abcdef")
    o, _, _ = parsed(tmp_path, "o", boot(ident=(other, board)))
    assert machine.machine_id(machine.identity(o)) != machine.machine_id(ident)


def test_serial_is_hashed_never_stored(tmp_path):
    s, res, d = parsed(tmp_path, "s", boot(serial="SN-SECRET-4711"))
    ident = machine.identity(s)
    assert ident["system"] == {"manufacturer": "Acme", "product": "Box 1"}
    assert ident["serial_hash"] and "SN-SECRET" not in json.dumps(ident)
    path = tmp_path / "st.sqlite"
    c = db.connect(str(path))
    ops.add(c, s, res, d)
    c.execute("UPDATE runs SET summary = NULL")  # the summary keeps the record as sent; the
    c.commit()                                    # machine tables must not
    c.execute("VACUUM")
    c.close()
    assert b"SN-SECRET" not in path.read_bytes()


def test_add_is_idempotent(tmp_path, conn):
    s, res, d = parsed(tmp_path, "a", boot())
    first = ops.add(conn, s, res, d)
    second = ops.add(conn, s, res, d)
    assert first["added"] and not second["added"] and second["run_id"] == first["run_id"]
    assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
    assert conn.execute("SELECT COUNT(*) FROM results").fetchone()[0] == len(res["rows"])
    assert conn.execute("SELECT n FROM boot_spread").fetchall() == [(1,), (1,)]


def test_export_rows_equal_results_rows(tmp_path, conn):
    runs = []
    for i, model in enumerate((1, 1, 49)):
        s, res, d = parsed(tmp_path, "r%d" % i, boot(seed=i + 1, model=model))
        runs.append((ops.add(conn, s, res, d), res))
    buf = io.StringIO()
    n = ops.export_csv(conn, buf)
    got = list(csv.reader(io.StringIO(buf.getvalue())))
    assert got[0] == list(ops.EXPORT_COLUMNS)
    want = []
    for added, res in runs:
        lines = list(csv.reader(io.StringIO(export.to_csv(res))))[1:]
        want += [[added["machine_id"], str(added["run_id"])] + line for line in lines]
    assert got[1:] == want and n == len(want) == 6
    assert len({r[0] for r in got[1:]}) == 2


def test_spread_is_welford_over_run_medians(tmp_path, conn):
    meds = []
    for seed in (1, 2, 3):
        s, res, d = parsed(tmp_path, "w%d" % seed, boot(seed=seed, n=200))
        mid = ops.add(conn, s, res, d)["machine_id"]
        meds.append(res["rows"][0]["median"])
    sp = ops.spreads(conn, mid)
    first = next(v for k, v in sp.items() if "rdtsc\"]" in k and "rdtscp" not in k)
    assert first["runs"] == 3 and first["min"] == min(meds) and first["max"] == max(meds)
    assert first["mean"] == pytest.approx(statistics.mean(meds))
    assert first["cv_pct"] == pytest.approx(100 * statistics.stdev(meds) / statistics.mean(meds))
    assert ops.typical_spread(conn, mid)["sets"] == 2


def test_migration_from_version_1_keeps_rows_and_fills_spread(tmp_path):
    path = str(tmp_path / "old.sqlite")
    old = sqlite3.connect(path)
    for sql in db.MIGRATIONS[0]:  # the database a version-1 harness made
        old.execute(sql)
    old.execute("PRAGMA user_version = 1")
    old.execute("INSERT INTO machines VALUES ('m1', 'old box', '{}', NULL)")
    for run_id, med in ((1, 10.0), (2, 12.0)):
        old.execute("INSERT INTO runs (run_id, run_key, machine_id) VALUES (?, ?, 'm1')",
                    (run_id, "k%d" % run_id))
        old.execute("INSERT INTO results VALUES (?, 0, 'timer', 1, 'K', 'time', 'ns', ?, NULL, "
                    "NULL, 16, NULL, '{}')", (run_id, med))
    old.commit()
    old.close()
    c = db.connect(path)
    assert db.version(c) == db.VERSION == 2
    assert c.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 2
    sp = ops.spreads(c, "m1")["K"]
    assert (sp["runs"], sp["min"], sp["max"], sp["mean"]) == (2, 10.0, 12.0, 11.0)
    assert sp["cv_pct"] == pytest.approx(100 * statistics.stdev([10.0, 12.0]) / 11.0)
    assert sp["range_pct"] == pytest.approx(100 * 2 / 11.0)
    c.execute("SELECT headline FROM runs").fetchall()  # the column step 2 added
    c.close()
    with pytest.raises(db.StoreError):  # a newer schema than this harness knows
        raw = sqlite3.connect(path)
        raw.execute("PRAGMA user_version = 99")
        raw.close()
        db.connect(path)


def test_compare_machines_per_level_boot_to_boot(tmp_path, conn):
    # machine A: two boots; machine B (another hypervisor signature): two boots, 25% slower
    for name, seed, hv, scale in (("a1", 1, "", 1.0), ("a2", 2, "", 1.0),
                                  ("b1", 3, "KVMKVMKVM", 1.25), ("b2", 4, "KVMKVMKVM", 1.25)):
        s, res, d = parsed(tmp_path, name, synth.memory_stream(seed=seed, hv_sig=hv,
                                                               scale=scale, n=16).data())
        got = ops.add(conn, s, res, d)
        if name == "a1":
            ma = got["machine_id"]
        if name == "b1":
            mb = got["machine_id"]
    assert ma != mb
    runs_a, runs_b, res, note = ops.compare_store(conn, ma, mb, str(tmp_path / "t"))
    assert len(runs_a) == len(runs_b) == 2 and note is None
    levels = res["levels"]["rows"]
    assert {r["level"] for r in levels} >= {"L1d", "L2", "DRAM"}
    assert all(r["scope"] == "boot-to-boot" for r in levels)
    bw = [r for r in levels if r["unit"] == "GB/s"]
    assert bw and all(r["verdict"] == "B slower" for r in bw)
    # one run a side: the stored spread of A's machine is the boot-spread
    _, _, res1, note1 = ops.compare_store(conn, "r1", "r3", str(tmp_path / "t"))
    assert note1 and res1["boot_spread_pct"] == ops.typical_spread(conn, ma)["pct"]


def test_cli_add_twice_list_show_export(tmp_path, capsys):
    s, res, d = parsed(tmp_path, "a", boot())
    dbp = str(tmp_path / "cli.sqlite")
    assert cli.main(["store", "--db", dbp, "add", d]) == 0
    assert cli.main(["store", "--db", dbp, "add", d]) == 0
    out = capsys.readouterr().out
    assert "added as run r1" in out and "already stored as run r1: nothing added" in out
    log = tmp_path / "a.log"  # the same boot from its serial log: still one run
    assert cli.main(["store", "--db", dbp, "add", str(log)]) == 0
    assert "already stored as run r1" in capsys.readouterr().out
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())
    assert cli.main(["store", "--db", dbp, "list"]) == 0
    assert "1 machine(s), 1 run(s)" in capsys.readouterr().out
    mid = ops.machines(db.connect(dbp))[0]["machine_id"]
    assert cli.main(["store", "--db", dbp, "show", mid[:6]]) == 0
    assert "microcode    0x8301055" in capsys.readouterr().out
    assert cli.main(["store", "--db", dbp, "export", "--csv"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1 + len(res["rows"])
    assert cli.main(["store", "--db", str(tmp_path / "none.sqlite"), "list"]) == 2
