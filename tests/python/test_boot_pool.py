"""The integration tests' boot pool (tests/integration/boot_pool.py) without QEMU: background work
runs in a thread of its own beside the boot workers, its result (or its exception) reaches the
fixture that asks, drain() waits for it as for a boot, and boot_pool_times.txt carries its span and
what was written out before the first alone test and before the later ones."""

import importlib.util
import os
import threading

import pytest

POOL_PY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "integration",
                       "boot_pool.py")


@pytest.fixture
def boot_pool():
    spec = importlib.util.spec_from_file_location("boot_pool_under_test", POOL_PY)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Cfg:
    def __init__(self, name):
        self.name = name


def test_background_runs_beside_a_busy_boot_worker(boot_pool):
    """One boot worker held by a boot that waits for the background work: both can only end if
    the background work has a thread of its own."""
    pool = boot_pool.BootPool(1)
    done = threading.Event()
    pool.submit(Cfg("boot"), lambda: done.wait(10) and "booted")
    pool.submit_background("fleet", lambda: (done.set(), "fleet ran")[1])
    try:
        assert pool.result("fleet") == "fleet ran"
        assert pool.result("boot") == "booted"
    finally:
        pool.close()


def test_background_error_reaches_its_fixture_and_drain_waits(boot_pool):
    pool = boot_pool.BootPool(2)
    release = threading.Event()

    def slow():
        release.wait(10)
        return 1

    def broken():
        raise RuntimeError("the fleet run failed")
    pool.submit_background("slow", slow)
    pool.submit_background("broken", broken)
    pool.submit_background("slow", lambda: 2)  # once per name: the first stays
    assert pool.has("slow") and pool.has("broken") and not pool.has("other")
    with pytest.raises(RuntimeError, match="the fleet run failed"):
        pool.result("broken")
    threading.Timer(0.2, release.set).start()
    pool.drain()
    assert pool.result("slow") == 1
    pool.close()


def test_no_pool_no_background(boot_pool):
    """BAREMETRIC_BOOT_JOBS=0: nothing starts; the fixture then runs the work itself."""
    pool = boot_pool.BootPool(0)
    pool.submit_background("fleet", lambda: 1)
    assert not pool.has("fleet")
    pool.close()


def test_registry_and_times_file(boot_pool, tmp_path):
    @boot_pool.background("fleet_test")
    def work(factory):
        return factory
    assert boot_pool.BACKGROUND["fleet_test"] is work
    pool = boot_pool.BootPool(1)
    pool.submit_background("fleet_test", lambda: work("factory"))
    pool.drain()
    pool.tail_syncs.append(boot_pool.write_out_dirty())
    pool.tail_started = pool.started + 1.0
    mib, seconds = pool.tail_syncs[0]
    assert mib >= 0 and seconds >= 0
    pool.tail_syncs += [(2.0, 0.1), (1.0, 0.1)]  # before each later alone test (conftest.py)
    pool.close()
    pool.write_times(str(tmp_path))
    lines = (tmp_path / "boot_pool_times.txt").read_text().splitlines()
    assert "alone tests from 1 s" in lines[0] and "MiB dirty written out first" in lines[0]
    assert "(before the 2 later: 3 MiB in all, 0.2 s)" in lines[0], lines[0]
    assert lines[1].split()[0] == "fleet_test"
