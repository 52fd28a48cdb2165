"""The results store's SQLite database: where it lives, its schema and the migrations.

The same schema and steps serve a PostgreSQL store (a postgresql:// URL in place of the path):
pg.py translates the few SQLite-only spellings and keeps the version in a table.

The schema's version is PRAGMA user_version. MIGRATIONS is a list of steps, step i (a list of
SQL statements) takes a database from version i to i + 1; opening a database runs the steps it
lacks, each in its own transaction, so a version-1 file made by an older harness is brought up
to date in place and its rows are kept. Never edit a step that has shipped: add one.

Tables (version 2):
- machines: machine_id (machine.py's hash of the identity), label, identity (JSON), added_utc;
- runs: run_id, run_key (machine.py's content hash: the same run added twice is one row),
  machine_id, path (the parse directory, whose raw/ files the store does not copy), log, nonce
  (a stick's), parsed_utc, added_utc, arch, env, build, ok, summary (summary.json, zlib JSON),
  results_meta (results.json without its rows, JSON), headline (headline.json's dict, JSON);
- results: one row per results.json row: run_id, seq (the row's place), probe, set_id, set_key
  (the set's identity and occurrence, stream/set_identity.py), metric, unit, median, ci95_low,
  ci95_high, n, cache_level, row (the whole row, JSON);
- boot_spread: per machine, set and unit the running count, mean, M2 (Welford), min and max of
  the per-run medians, updated on every add: the machine's boot-to-boot spread.
"""

import os
import sqlite3

from . import pg

DB_NAME = "results.sqlite"

MIGRATIONS = [
    # 0 -> 1: machines, runs and their results rows
    [
        """CREATE TABLE machines (
            machine_id TEXT PRIMARY KEY, label TEXT NOT NULL, identity TEXT NOT NULL,
            added_utc TEXT)""",
        """CREATE TABLE runs (
            run_id INTEGER PRIMARY KEY, run_key TEXT NOT NULL UNIQUE,
            machine_id TEXT NOT NULL REFERENCES machines(machine_id),
            path TEXT, log TEXT, nonce TEXT, parsed_utc TEXT, added_utc TEXT, arch TEXT,
            env TEXT, build TEXT, ok INTEGER, summary BLOB, results_meta TEXT)""",
        """CREATE TABLE results (
            run_id INTEGER NOT NULL REFERENCES runs(run_id), seq INTEGER NOT NULL,
            probe TEXT, set_id INTEGER, set_key TEXT, metric TEXT, unit TEXT, median REAL,
            ci95_low REAL, ci95_high REAL, n INTEGER, cache_level TEXT, row TEXT NOT NULL)""",
    ],
    # 1 -> 2: headline figures per run, indexes, the boot-to-boot spread (filled from the runs
    # already stored: M2 from the sums, as Welford's would have left it)
    [
        "ALTER TABLE runs ADD COLUMN headline TEXT",
        "CREATE INDEX results_run ON results(run_id, seq)",
        "CREATE INDEX runs_machine ON runs(machine_id)",
        """CREATE TABLE boot_spread (
            machine_id TEXT NOT NULL, set_key TEXT NOT NULL, unit TEXT NOT NULL,
            n INTEGER NOT NULL, mean REAL NOT NULL, m2 REAL NOT NULL, min REAL NOT NULL,
            max REAL NOT NULL, PRIMARY KEY (machine_id, set_key, unit))""",
        """INSERT INTO boot_spread (machine_id, set_key, unit, n, mean, m2, min, max)
            SELECT r.machine_id, x.set_key, x.unit, COUNT(*), AVG(x.median),
                   MAX(SUM(x.median * x.median) - COUNT(*) * AVG(x.median) * AVG(x.median), 0),
                   MIN(x.median), MAX(x.median)
            FROM results x JOIN runs r ON r.run_id = x.run_id
            WHERE x.median IS NOT NULL AND x.set_key IS NOT NULL AND x.unit IS NOT NULL
            GROUP BY r.machine_id, x.set_key, x.unit""",
    ],
]
VERSION = len(MIGRATIONS)
BUSY_TIMEOUT_S = 60


class StoreError(Exception):
    pass


def default_path():
    """$XDG_DATA_HOME/baremetric/results.sqlite, else ~/.local/share/baremetric/results.sqlite."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                            "share")
    return os.path.join(base, "baremetric", DB_NAME)


def version(conn):
    if isinstance(conn, pg.Connection):
        return conn.user_version()
    return conn.execute("PRAGMA user_version").fetchone()[0]


def _set_version(conn, v):
    if isinstance(conn, pg.Connection):
        conn.set_user_version(v)
    else:
        conn.execute("PRAGMA user_version = %d" % v)


def migrate(conn):
    """Run the steps conn's database lacks; returns (version before, version after)."""
    if isinstance(conn, pg.Connection):
        # concurrent connections to a new server database (fleet workers) migrate one at a time
        with conn.schema_lock():
            return _migrate(conn)
    return _migrate(conn)


def _migrate(conn):
    before = version(conn)
    if before > VERSION:
        raise StoreError("the store's schema is version %d, newer than this harness's %d"
                         % (before, VERSION))
    for v in range(before, VERSION):
        # one explicit transaction per step (sqlite3 opens none for DDL by itself): a failed
        # step leaves the database at the previous version
        # SQLite: IMMEDIATE takes the write lock now, so a second connection migrating the same
        # new file (fleet workers) waits here and then finds the step done
        conn.execute("BEGIN" if isinstance(conn, pg.Connection) else "BEGIN IMMEDIATE")
        try:
            if version(conn) > v:
                conn.rollback()
                continue
            for sql in MIGRATIONS[v]:
                conn.execute(sql)
            _set_version(conn, v + 1)
        except BaseException:
            conn.rollback()
            raise
        conn.commit()
    return before, VERSION


def server_errors():
    """The exceptions a PostgreSQL store's queries raise (none without psycopg2)."""
    return pg.errors()


def display(path):
    """The store's name for messages: its path, or its URL without the password."""
    return pg.display(path) if pg.is_url(path) else path


def parse_root(path):
    """Where `store add` and `fleet run` put the parse directories of a store's runs: next to
    an SQLite file; for a PostgreSQL store beside the default SQLite file's place."""
    base = default_path() if pg.is_url(path) else path
    return os.path.join(os.path.dirname(os.path.abspath(base)), "runs")


def _connect_pg(url):
    try:
        conn = pg.Connection(url)
    except ImportError as exc:
        raise StoreError(str(exc))
    except pg.errors() as exc:
        raise StoreError("%s: %s" % (pg.display(url), str(exc).strip()))
    try:
        migrate(conn)
    except pg.errors() as exc:
        conn.close()
        raise StoreError("%s: %s" % (pg.display(url), str(exc).strip()))
    return conn


def connect(path=None, create=True):
    """An open, migrated connection to the store at path (default_path() when None), or to the
    PostgreSQL database a postgresql:// URL names (pg.py; create does not apply: the database
    exists or the server says so)."""
    path = path or default_path()
    if pg.is_url(path):
        return _connect_pg(path)
    if not create and not os.path.exists(path):
        raise StoreError("%s: no store there (add a run first: `baremetric store add RUN`)"
                         % path)
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    try:
        # concurrent writers (fleet workers) wait for each other's transactions
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)
        conn.execute("PRAGMA foreign_keys = ON")
        # WAL with synchronous=NORMAL: a commit is durable against a crash of the process,
        # and only a checkpoint waits for the disk (one fsync per add made 1000 adds take
        # half a minute)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        migrate(conn)
    except sqlite3.DatabaseError as exc:
        raise StoreError("%s: %s" % (path, exc))
    return conn
