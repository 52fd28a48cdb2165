"""`store remove` (store/remove.py) and `store list|show --json` (store/text.py): a run removed by
rN or its key prefix leaves the store as if it had never been added; a machine only with
--machine; a name that matches nothing or several removes nothing; the JSON says what the text
says."""

import json
import os

import pytest

import synth
from bmharness import cli
from bmharness.store import db, ops, remove, text
from test_store import boot, parsed

TABLES = ("machines", "runs", "results", "boot_spread")


def snapshot(path):
    """Every row of every table, in a fixed order."""
    c = db.connect(path)
    try:
        return {t: sorted(c.execute("SELECT * FROM %s" % t).fetchall(), key=repr) for t in TABLES}
    finally:
        c.close()


def store_of(tmp_path, name, boots):
    """A store at tmp_path/name.sqlite with the given (label, stream) boots added in order."""
    path = str(tmp_path / (name + ".sqlite"))
    c = db.connect(path)
    for label, data in boots:
        s, res, d = parsed(tmp_path, "%s-%s" % (name, label), data)
        ops.add(c, s, res, d)
    c.close()
    return path


BOOTS = [("a1", boot(seed=1)), ("a2", boot(seed=2)), ("b1", boot(seed=5, model=49)),
         ("a3", boot(seed=3))]


def test_remove_run_leaves_the_store_as_without_it(tmp_path, capsys):
    full = store_of(tmp_path, "full", BOOTS)
    c = db.connect(full)
    key = c.execute("SELECT run_key FROM runs WHERE run_id = 2").fetchone()[0]
    c.close()
    assert cli.main(["store", "--db", full, "remove", key[:8]]) == 0
    assert "removed run r2 (key %s)" % key[:12] in capsys.readouterr().out
    # the same store built without a2: the same runs, rows and Welford spread to the last bit
    want = snapshot(store_of(tmp_path, "without", [b for b in BOOTS if b[0] != "a2"]))
    got = snapshot(full)
    for t in ("results", "boot_spread"):
        strip = (lambda r: r[1:]) if t == "results" else (lambda r: r)  # run ids differ
        assert sorted(map(strip, got[t]), key=repr) == sorted(map(strip, want[t]), key=repr), t
    assert len(got["runs"]) == 3 and [m[0] for m in got["machines"]] == \
        [m[0] for m in want["machines"]]
    c = db.connect(full)
    assert c.execute("PRAGMA foreign_key_check").fetchall() == []
    assert ops.typical_spread(c, got["runs"][0][2])["runs"] == 2
    c.close()


def test_remove_by_rn_and_the_last_run_takes_its_machine(tmp_path, capsys):
    path = store_of(tmp_path, "s", BOOTS)
    assert cli.main(["store", "--db", path, "remove", "r3"]) == 0  # machine B's only run
    assert "machine removed" in capsys.readouterr().out
    snap = snapshot(path)
    assert len(snap["machines"]) == 1 and len(snap["runs"]) == 3
    assert {r[0] for r in snap["results"]} == {1, 2, 4}


@pytest.mark.parametrize("spec, says", [
    ("r99", "no such run"), ("ffff0000", "no such run"), ("r", "not a run"),
    ("12", "not a run"), ("abcd", "key prefix of 2 runs (r1, r2)")])
def test_unknown_or_ambiguous_removes_nothing(tmp_path, capsys, spec, says):
    path = store_of(tmp_path, "s", BOOTS)
    c = db.connect(path)  # two keys that share their first digits
    c.execute("UPDATE runs SET run_key = 'abcd' || substr(run_key, 5) WHERE run_id IN (1, 2)")
    c.commit()
    c.close()
    before = snapshot(path)
    assert cli.main(["store", "--db", path, "remove", spec]) == 1
    err = capsys.readouterr().err
    assert says in err and "nothing removed" in err
    assert snapshot(path) == before


def test_machine_only_with_the_flag(tmp_path, capsys):
    dbp = str(tmp_path / "cli.sqlite")
    log_a = tmp_path / "a.log"
    log_a.write_bytes(boot(seed=1))
    _, _, user_dir = parsed(tmp_path, "a2", boot(seed=2))
    _, _, other = parsed(tmp_path, "b", boot(seed=5, model=49))
    assert cli.main(["store", "--db", dbp, "add", str(log_a), user_dir, other]) == 0
    capsys.readouterr()
    c = db.connect(dbp)
    runs = {r["run_id"]: r for m in ops.machines(c) for r in m["runs"]}
    mid = c.execute("SELECT machine_id FROM runs WHERE run_id = 1").fetchone()[0]
    c.close()
    store_dir = runs[1]["path"]
    assert os.path.dirname(store_dir) == str(tmp_path / "runs")
    before = snapshot(dbp)
    # a machine's id where a run is expected: refused, with the way to do it
    assert cli.main(["store", "--db", dbp, "remove", mid]) == 1
    assert "give --machine" in capsys.readouterr().err and snapshot(dbp) == before
    assert cli.main(["store", "--db", dbp, "remove", "--machine", "r1"]) == 1
    assert "no such machine" in capsys.readouterr().err and snapshot(dbp) == before
    assert cli.main(["store", "--db", dbp, "remove", "--machine", mid[:6]]) == 0
    out = capsys.readouterr().out
    assert "removed machine %s" % mid in out and "2 run(s)" in out
    snap = snapshot(dbp)
    assert [r[0] for r in snap["runs"]] == [3] and len(snap["machines"]) == 1
    assert {r[0] for r in snap["results"]} == {3}
    assert {r[0] for r in snap["boot_spread"]} == {snap["machines"][0][0]}
    # the store's own parse of the log is deleted; a directory the user gave is kept
    assert not os.path.exists(store_dir) and os.path.isdir(user_dir) and os.path.isdir(other)
    assert "kept its directory %s" % user_dir in out


def test_list_and_show_json_say_what_the_text_says(tmp_path, capsys):
    dbp = str(tmp_path / "j.sqlite")
    dirs = [parsed(tmp_path, "m%d" % i, synth.memory_stream(seed=i, n=16).data())[2]
            for i in (1, 2)]
    assert cli.main(["store", "--db", dbp, "add"] + dirs) == 0
    capsys.readouterr()
    assert cli.main(["store", "--db", dbp, "list", "--json"]) == 0
    lj = json.loads(capsys.readouterr().out)
    assert cli.main(["store", "--db", dbp, "list"]) == 0
    lt = capsys.readouterr().out
    (m,) = lj["machines"]
    assert lj["db"] == dbp and "machine %s  %s  2 run(s)" % (m["machine_id"], m["label"]) in lt
    assert "spread %.2f%% (median over %d sets)" % (m["spread"]["pct"], m["spread"]["sets"]) in lt
    for r in m["runs"]:
        row = next(x for x in lt.splitlines() if x.strip().startswith("r%d " % r["run_id"]))
        assert row.split()[1:4] == [r["run_key"][:text.KEY_SHOWN], r["added_utc"], r["build"]]
        assert row.rstrip().endswith(r["path"]) and r["ok"] is True
    assert cli.main(["store", "--db", dbp, "show", m["machine_id"], "--json"]) == 0
    sj = json.loads(capsys.readouterr().out)
    assert cli.main(["store", "--db", dbp, "show", m["machine_id"]]) == 0
    st = capsys.readouterr().out.splitlines()
    assert sj["identity"]["cpu_model"] is not None and sj["levels"][:2] == ["L1d", "L2"]
    hdr = next(i for i, x in enumerate(st) if x.startswith("run "))
    for r, line in zip(sj["runs"], st[hdr + 1:]):
        cells = line.split()
        assert cells[0] == "r%d" % r["run_id"] and cells[5] == text._fmt(r["clock_hz"] / 1e9, 5)
        lv = r["levels"]["L1d"]
        assert cells[6] == "/".join(text._fmt(lv[k + "_gbps"]) or "-" for k in text.KERNELS)
        assert cells[7] == text._fmt(lv["latency_ns"])
    widest = [x for x in st if x.startswith("  widest: ")]
    assert len(widest) == len(sj["spread"]["widest"]) > 0
    for w, line in zip(sj["spread"]["widest"], widest):
        assert line.startswith("  widest: %s " % w["name"]) and "%.2f%%" % w["range_pct"] in line
    assert "boot-to-boot spread over 2 runs: median %.2f%%" % sj["spread"]["pct"] in "\n".join(st)


def test_find_machine_needs_enough_digits(tmp_path):
    path = store_of(tmp_path, "s", BOOTS[:1])
    c = db.connect(path)
    with pytest.raises(db.StoreError):
        remove.find_machine(c, "ab")
    c.close()
