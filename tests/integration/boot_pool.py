"""The boot pool of the integration tests: every boot of configs.py that the selected tests take
starts as soon as the session has collected them, BOOT_JOBS at a time in background threads,
while the tests that need no boot run; a test then waits only for its own boot. A QEMU boot under
TCG is one or two busy host threads, so on a small machine the pool mostly overlaps the boots
with each other and with the hosted runs and file checks of the other tests.

What is not booted in the pool: the entries marked `alone` (their tests hold a calibration or a
duration to a bound, so nothing may run beside them). conftest.py orders their tests, and the
tests marked `timing`, after all others and drains the pool before the first of them; they then
boot and run one at a time, as the whole suite did before.

Work that waits more than it computes (a fleet run waits out its machines' bounds) can start beside
the pool too, in a thread of its own: a test module registers it with @background(fixture name),
and its fixture takes the result with conftest.py's background_result.

BAREMETRIC_BOOT_JOBS=n sets the number of boots at a time (default: the CPUs this process may
use, at least 2); 0 turns the pool off (every boot on first use, one at a time, and the background
work runs when its fixture is first used)."""

import concurrent.futures
import os
import threading
import time

import pytest

ENV_JOBS = "BAREMETRIC_BOOT_JOBS"
MIN_JOBS = 2  # a boot waits for its firmware's timers part of the time: two overlap even on one CPU


def jobs_wanted():
    """The number of boots at a time: BAREMETRIC_BOOT_JOBS, else the usable CPUs (>= MIN_JOBS)."""
    value = os.environ.get(ENV_JOBS, "").strip()
    if value:
        try:
            return max(0, int(value))
        except ValueError:
            raise pytest.UsageError("%s=%r: expected a number of boots at a time (0: no pool)"
                                    % (ENV_JOBS, value))
    return max(MIN_JOBS, len(os.sched_getaffinity(0)))


# fixture name: fn(tmp_path_factory), the background work of that fixture (filled as the test
# modules are imported, at collection)
BACKGROUND = {}


def background(name):
    """Register fn(tmp_path_factory) as the work behind the fixture `name`: started when the session
    starts, in a thread of its own, when a selected test takes that fixture."""
    def register(fn):
        BACKGROUND[name] = fn
        return fn
    return register


def write_out_dirty():
    """sync(2) the page cache the boots left dirty, so that its writeback (block I/O and its
    interrupts, which this VM takes on its last CPU, where the timing tests pin themselves) does
    not run beside the timing tests. (MiB that were dirty or under writeback, seconds taken)."""
    kib = 0
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith(("Dirty:", "Writeback:")):
                    kib += int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    t = time.monotonic()
    os.sync()
    return kib / 1024.0, time.monotonic() - t


def cost(cfg):
    """A rough relative duration of a boot, to start the long ones first: -icount shift=0 runs
    ~10x slower (firmware waits become a nanosecond an instruction), the default (shape) boots run
    every probe, a timeout that is the test's point runs to the end."""
    if "shape" in cfg.groups:
        return 12
    if cfg.icount and cfg.icount_shift == 0:
        return 8
    if cfg.timeout and cfg.options.get("noise_ms", 0) > 100000:
        return cfg.timeout / 5
    return 1 + (cfg.smp > 1) + (cfg.arch == "aarch64")


class BootPool:
    """Boots configurations in background threads: submit(cfg, fn) once per name, result(name)
    waits for that boot (its exception is raised there), drain() waits for every boot."""

    def __init__(self, jobs):
        self.jobs = jobs
        self._executor = concurrent.futures.ThreadPoolExecutor(jobs, thread_name_prefix="boot") if jobs else None
        self._futures = {}
        self._background = []  # one executor per background work: it waits, it takes no boot worker
        self._lock = threading.Lock()
        self.spans = {}  # name: (start, end) of the boot, seconds since the pool started
        self.started = time.monotonic()
        self.tail_started = None  # when the tests that run alone began (conftest.py)
        self.tail_syncs = []      # (MiB, seconds): dirty page cache written out before each of them

    def _timed(self, name, fn):
        def timed():
            t = time.monotonic()
            try:
                return fn()
            finally:
                self.spans[name] = (t - self.started, time.monotonic() - self.started)
        return timed

    def submit(self, cfg, fn):
        if not self._executor:
            return
        with self._lock:
            if cfg.name not in self._futures:
                self._futures[cfg.name] = self._executor.submit(self._timed(cfg.name, fn))

    def submit_background(self, name, fn):
        """fn() in a thread of its own, once per name; result(name) waits for it, drain() too."""
        if not self._executor:
            return
        with self._lock:
            if name not in self._futures:
                ex = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="background")
                self._background.append(ex)
                self._futures[name] = ex.submit(self._timed(name, fn))

    def has(self, name):
        return name in self._futures

    def result(self, name):
        return self._futures[name].result()

    def drain(self):
        """Wait until every submitted boot has ended (their results stay for their tests)."""
        if self._futures:
            concurrent.futures.wait(list(self._futures.values()))

    def close(self):
        if self._executor:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
        for ex in self._background:
            ex.shutdown(wait=True)
        self._background = []

    def write_times(self, folder):
        """Where the time went: folder/boot_pool_times.txt, each boot's seconds, longest first, with
        when it ran; the head line says when the last boot ended and the alone tests began."""
        times = {name: end - start for name, (start, end) in self.spans.items()}
        last = max((end for _, end in self.spans.values()), default=0.0)
        tail = "" if self.tail_started is None else ", alone tests from %.0f s" % (
            self.tail_started - self.started)
        first, later = self.tail_syncs[:1], self.tail_syncs[1:]
        if first:
            tail += " (%.0f MiB dirty written out first, %.1f s)" % first[0]
        if later:
            tail += " (before the %d later: %.0f MiB in all, %.1f s)" % (
                len(later), sum(m for m, _ in later), sum(t for _, t in later))
        with open(os.path.join(folder, "boot_pool_times.txt"), "w") as fh:
            fh.write("boots %d, %d at a time, session %.1f s, sum of boots %.1f s, last ended at %.0f s%s\n"
                     % (len(times), self.jobs, time.monotonic() - self.started,
                        sum(times.values()), last, tail))
            for name, sec in sorted(times.items(), key=lambda kv: -kv[1]):
                start, end = self.spans[name]
                fh.write("%-28s %7.1f s  %4.0f-%4.0f s\n" % (name, sec, start, end))
