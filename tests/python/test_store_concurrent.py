"""Several writers at once on the SQLite store (fleet workers each add their machine's run
through their own connection): no loss, no duplicates, and a new file migrated once. The same
test on PostgreSQL is in test_store_pg.py."""

from test_store_pg import concurrent_writers


def test_sqlite_concurrent_writers_no_loss_no_duplicates(tmp_path):
    concurrent_writers(tmp_path, str(tmp_path / "shared.sqlite"))
