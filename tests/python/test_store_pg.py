"""The store's tests again on PostgreSQL (store/pg.py): every test of test_store.py,
test_store_remove.py and test_store_compare.py that does not open the SQLite file itself runs
here with db.connect sending each SQLite path the test names to a fresh database of a throwaway
server (pg_server.py), plus what only a shared server has to show: several writers adding the
same and different runs at once, each run stored once with all its rows."""

import threading

import pytest

import pg_server
from bmharness.store import db, ops, pg

import test_store
import test_store_compare
import test_store_remove

WHY = pg_server.unavailable()
pytestmark = pytest.mark.skipif(WHY is not None, reason="PostgreSQL: %s" % WHY)
# the tests that read or write the SQLite file behind the store's back
SQLITE_ONLY = {"test_migration_from_version_1_keeps_rows_and_fills_spread",
               "test_serial_is_hashed_never_stored",
               "test_remove_run_leaves_the_store_as_without_it"}


@pytest.fixture(scope="module")
def server():
    with pg_server.PgServer() as srv:
        yield srv


@pytest.fixture(autouse=True)
def on_postgres(server, monkeypatch):
    """db.connect(path) -> the same store on the server: one database per path a test names."""
    urls, real = {}, db.connect

    def connect(path=None, create=True):
        if path is None or pg.is_url(path):
            return real(path, create)
        if path not in urls:
            if not create:
                raise db.StoreError("%s: no store there" % path)
            urls[path] = server.new_database()
        return real(urls[path], create)
    monkeypatch.setattr(db, "connect", connect)
    yield urls


def _reexport(module):
    for name in dir(module):
        if name.startswith("test_") and name not in SQLITE_ONLY:
            globals()["test_pg_" + module.__name__[len("test_"):] + "_" + name[5:]] = \
                getattr(module, name)


conn = test_store.conn
for _m in (test_store, test_store_remove, test_store_compare):
    _reexport(_m)
for _name in dir(test_store_compare):
    if not _name.startswith("test_") and hasattr(getattr(test_store_compare, _name),
                                                 "_pytestfixturefunction"):
        globals()[_name] = getattr(test_store_compare, _name)


def test_pg_url_password_never_shown():
    url = "postgresql://fleet:s3cret@db.example:5433/bm?sslmode=require"
    assert "s3cret" not in pg.display(url) and "db.example:5433/bm" in pg.display(url)
    assert "s3cret" not in db.display(url)


def test_pg_bad_url_is_a_clear_error(server):
    with pytest.raises(db.StoreError) as exc:
        db.connect(server.url("no_such_db"))
    assert "no_such_db" in str(exc.value)


def test_pg_concurrent_writers_no_loss_no_duplicates(tmp_path, server):
    concurrent_writers(tmp_path, server.new_database())


def concurrent_writers(tmp_path, url):
    """Four writers, each with its own connection, add the same six runs (of two machines) in
    different orders: each run is stored once, with all its rows, and counted once in the
    spread. Shared with test_store_concurrent.py (SQLite)."""
    runs = [test_store.parsed(tmp_path, "b%d" % i, test_store.boot(seed=i + 1, model=1 + i % 2))
            for i in range(6)]
    errors, results = [], []

    def worker(k):
        try:
            c = db.connect(url)
            for i in range(len(runs)):  # every worker adds every run, from another start
                s, r, d = runs[(i + k) % len(runs)]
                results.append(ops.add(c, s, r, d))
            c.close()
        except Exception as exc:  # noqa: BLE001 -- the assertion names it
            errors.append(exc)
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    c = db.connect(url)
    assert sum(1 for x in results if x["added"]) == len(runs)
    assert c.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == len(runs)
    assert c.execute("SELECT COUNT(*) FROM machines").fetchone()[0] == 2
    rows = sum(len(r["rows"]) for _, r, _ in runs)
    assert c.execute("SELECT COUNT(*) FROM results").fetchone()[0] == rows
    # the spread saw each run once: n per (machine, set) = that machine's runs
    assert sorted(r[0] for r in c.execute("SELECT DISTINCT n FROM boot_spread")) == [3]
    c.close()


def test_pg_unreachable_server_clear_message_without_password(capsys):
    from bmharness import cli
    assert cli.main(["store", "--db", "postgresql://u:topsecret@127.0.0.1:1/x", "list"]) == 2
    err = capsys.readouterr().err
    assert "postgresql://u@127.0.0.1:1/x" in err and "topsecret" not in err
