"""QEMU integration fixtures: boot the USB image once per configuration and share the parsed
result between the tests that look at it. The configurations are data (configs.py): each becomes
a session fixture of its name here, and its groups become markers of the tests that take it
(`pytest -m irq`, `pytest -m aarch64`). The images come from `make image` and `make image-aarch64`
(the Makefile's `integration` target builds them first).

The order the tests run in (boot_pool.py): once collected, the boots the selected tests take
start in the background, several at a time; the tests that take no boot run first, then those
that do, each as its boots are ready; last, alone, the tests marked `timing` and those of the
entries marked `alone` (their boots then run one at a time, nothing beside them)."""

import os
import shutil
import subprocess
import threading
import time

import pytest

from bmharness.run import pipeline
from bmharness.stream import parse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

IMAGE = os.path.join(ROOT, "build", "x86_64", "baremetric.img")
IMAGE_A64 = os.path.join(ROOT, "build", "aarch64", "baremetric.img")
IMAGES = {"x86_64": IMAGE, "aarch64": IMAGE_A64}
QEMU10_SCRIPT = os.path.join(ROOT, "scripts", "qemu10.sh")
QEMU10_FETCH_TIMEOUT_S = 300

from configs import CONFIGS, MODEL_HOSTS  # noqa: E402  (the boot configurations: tests/integration/configs.py)
import boot_pool  # noqa: E402


class Boot:
    """One QEMU boot: run.json result, parsed summary, output folder."""

    def __init__(self, out_dir, run, summary):
        self.out_dir = out_dir
        self.run = run
        self.summary = summary

    def sets(self, name, **params):
        return [s for s in self.summary["sets"] if s["name"] == name
                and all(str(s["params"].get(k)) == str(v) for k, v in params.items())]

    def plat(self, kind):
        return self.summary["platform"].get(kind)

    def plats(self, kind):
        """Every plat record of a kind, as a list (kinds the harness keeps as lists, or one)."""
        fact = self.summary["platform"].get(kind, [])
        return fact if isinstance(fact, list) else [fact]


TIMER_METHODS = ("rdtsc", "lfence_rdtsc", "rdtscp", "cpuid_rdtsc", "begin_end")


class HostedRun:
    """One run of the hosted program (build/hosted/baremetric): exit code, stdout/stderr text,
    the summary parsed into out_dir/parsed."""

    def __init__(self, out_dir, rc, stdout, stderr, summary):
        self.out_dir, self.rc, self.stdout, self.stderr = out_dir, rc, stdout, stderr
        self.summary = summary

    @classmethod
    def start(cls, argv, out_dir, timeout, cpu=None):
        """Run argv (the hosted program with its options, after a prefix such as chrt or
        qemu-aarch64 if any) pinned as a plain run would be (BAREMETRIC_CPU unset) or to `cpu`;
        its stdout is the log out_dir/hosted.log, parsed into out_dir/parsed."""
        env = dict(os.environ)
        env.pop("BAREMETRIC_CPU", None)
        if cpu is not None:
            env["BAREMETRIC_CPU"] = str(cpu)
        p = subprocess.run(list(argv), capture_output=True, env=env, timeout=timeout)
        log = os.path.join(out_dir, "hosted.log")
        with open(log, "wb") as fh:
            fh.write(p.stdout)
        summary = parse.parse_log(log, os.path.join(out_dir, "parsed"))
        return cls(out_dir, p.returncode, p.stdout.decode("latin-1"), p.stderr.decode("latin-1"), summary)

    def sets(self, name, **params):
        return [s for s in self.summary["sets"] if s["name"] == name
                and all(str(s["params"].get(k)) == str(v) for k, v in params.items())]

    def plat(self, kind):
        """The one plat record of a kind (the harness keeps kinds it does not know as lists)."""
        fact = self.summary["platform"].get(kind)
        if isinstance(fact, list):
            assert len(fact) == 1, "plat kind=%s %d times" % (kind, len(fact))
            return fact[0]
        return fact

    def plats(self, kind):
        fact = self.summary["platform"].get(kind, [])
        return fact if isinstance(fact, list) else [fact]

    def raw(self, s):
        return parse.read_raw(os.path.join(self.out_dir, "parsed", s["raw_file"]))[1]


def in_guest():
    """CPUID's hypervisor bit, as Linux shows it."""
    try:
        with open("/proc/cpuinfo") as fh:
            return any(line.startswith("flags") and " hypervisor" in line for line in fh)
    except OSError:
        return False


def xfail_in_guest(failing, why):
    """The timing tests' one rule for what a guest's host does to a known answer: where `failing`
    and this is a guest, an expected failure saying why (with the values); otherwise nothing, and
    the test's own assertion after this call passes or fails as on bare metal."""
    if failing and in_guest():
        pytest.xfail(why)


def rt_prefix(cpu=None):
    """(argv prefix, None) running a hosted command under SCHED_FIFO (and pinned to `cpu` when
    given), or (None, why) where chrt/taskset are missing or real-time priority is not permitted.
    Under the normal scheduler another runnable task preempts the hosted probes: a timer interrupt
    is then a preemption point (displacement counts the other task's time as delivery), and the
    task-clock profile of prof_split came out 32-34% instead of 30 with two busy loops beside it
    (30.0 +- 0.1 under SCHED_FIFO with the same load)."""
    chrt, taskset = shutil.which("chrt"), shutil.which("taskset")
    if not chrt or (cpu is not None and not taskset):
        return None, "chrt/taskset missing (util-linux)"
    p = subprocess.run([chrt, "-f", "50", "true"], capture_output=True)
    if p.returncode != 0:
        return None, "SCHED_FIFO not permitted (%s)" % p.stderr.decode("latin-1").strip()
    return ([taskset, "-c", str(cpu)] if cpu is not None else []) + [chrt, "-f", "50"], None


def check_one_shot_arms(p, requested, warmup, ctx):
    """A one-shot irq_latency set's arms: every one taken, and the set's own count of them. An
    arrival early within its bound (early_quantised / early_within_uncertainty) gives no sample,
    so the probe retakes that arm (resampled), never more often than such arrivals. An arm the
    source could not arm (a PC's HPET comparator overtaken at every try, hpet_arms_missed) is not
    armed and is taken again (unarmed); no other source gives one up."""
    assert p["armed"] == p["taken"] == requested + warmup + p["resampled"], ctx
    assert p["resampled"] <= p.get("early_within_uncertainty", p.get("early_quantised", 0)), ctx
    assert p["unarmed"] <= requested, ctx
    if p["source"] == "hpet":
        assert p["unarmed"] == p["hpet_arms_missed"], ctx
    elif p.get("guard") != "hpet":
        assert p["unarmed"] == 0, ctx


IRQ_FAULT_COUNTS = ("lost", "early", "extra", "spurious", "unexpected")


def check_nothing_lost(p, ctx):
    """An interrupt set's params: nothing lost, early, extra, spurious or unexpected."""
    for k in IRQ_FAULT_COUNTS:
        assert p[k] == 0, (ctx, k, p[k])


def check_one_shot_set(b, src, wait, n, warmup):
    """The one irq_latency set of (src, wait) on a bare-metal boot: all n samples in, every arm
    taken exactly once and nothing lost. Returns (set, params)."""
    (s,) = b.sets("irq_latency", source=src, wait=wait)
    p = s["params"]
    assert p["truncated_by_time"] == 0, (src, wait)
    assert s["n"] == n and s["received"] == n and s["complete"], (src, wait)
    check_one_shot_arms(p, n, warmup, (src, wait, p))
    check_nothing_lost(p, (src, wait))
    return s, p


def check_noise_gaps(b):
    """The noise probe with interrupts masked, on any CPU: its three sets, every stored gap above
    the threshold (10x the loop step's 90th percentile), starting inside the window and in order, and the
    count, sum and longest the record states. Returns the gap_len set's params."""
    sets = {s["params"]["what"]: s for s in b.sets("noise")}
    assert set(sets) == {"loop_step", "gap_start", "gap_len"}
    p = sets["gap_len"]["params"]
    assert p["irq_masked"] == 1
    lens, starts = raw(b, sets["gap_len"]), raw(b, sets["gap_start"])
    assert len(lens) == len(starts) == p["count"] - p["dropped"]
    assert all(v > p["threshold_cycles"] for v in lens)
    assert all(0 <= a <= p["window_cycles"] for a in starts) and starts == sorted(starts)
    if p["dropped"] == 0:
        assert sum(lens) == p["total_cycles"] and max(lens or [0]) == p["longest_cycles"]
    assert p["threshold_source"] == "10x_p90_step" and p["threshold_cycles"] == 10 * p["p90_step_cycles"]
    assert p["median_step_cycles"] <= p["p90_step_cycles"]
    return p


def check_timer_sets(b):
    """Every read method has its configured number of samples, or a skip with a reason."""
    n = b.summary["cfg"]["timer_samples"]
    methods = {s["params"]["method"]: s for s in b.sets("timer")}
    skipped = {s.get("method"): s["reason"] for s in b.summary["skips"] if s["probe"] == "timer"}
    for m in TIMER_METHODS:
        assert (m in methods) != (m in skipped), "method %s must have samples or a skip" % m
        assert m in methods or skipped[m]
    for m, s in methods.items():
        assert s["n"] == n and s["received"] == n and s["complete"], m
    return methods


def raw(b, s):
    return parse.read_raw(os.path.join(b.out_dir, "parsed", s["raw_file"]))[1]


MC_KERNELS = ("read", "write", "copy")


def check_membw_mc(b, n):
    """membw_mc on n CPUs (a QEMU Boot or a hosted Run): per kernel, for k = 1..n cores, k
    per-core sets and one aggregate; one pass count per group; the byte accounting adds up; the
    aggregate window (earliest start .. latest end) spans every core's own timing; each core's own
    set carries that core's add-chain clock (8 timings), the aggregate none."""
    samples = b.summary["cfg"]["samples"]
    sets = b.sets("membw_mc")
    # per kernel: for k = 1..n cores, k per-core sets and one aggregate
    assert len(sets) == len(MC_KERNELS) * sum(k + 1 for k in range(1, n + 1))
    for kernel in MC_KERNELS:
        for k in range(1, n + 1):
            group = b.sets("membw_mc", kernel=kernel, cpus=k)
            per_core = {s["params"]["cpu"]: s for s in group if s["params"]["cpu"] != "all"}
            (agg,) = [s for s in group if s["params"]["cpu"] == "all"]
            assert sorted(per_core) == list(range(k))
            passes = {s["iters"] for s in group}
            assert len(passes) == 1 and passes.pop() >= 1  # one pass count for every core
            size = agg["params"]["size"]
            rw = 2 if kernel == "copy" else 1
            for s in group:
                assert s["n"] == samples and s["received"] == samples and s["complete"]
                assert s["params"]["size"] == size >= 4 << 20
            for s in per_core.values():
                assert s["params"]["bytes_per_op"] == rw * size
                p = s["params"]
                assert p["core_clock"] == "add_chain" and p["core_clock_cycles"] == 32768, p
                assert 0 < p["core_clock_ticks_lo"] <= p["core_clock_ticks_med"] <= p["core_clock_ticks_hi"], p
                check_load_ref(p)
            assert agg["params"]["bytes_per_op"] == k * rw * size
            assert "core_clock" not in agg["params"]
            # the aggregate window (earliest start .. latest end) spans each core's own timing
            agg_v = raw(b, agg)
            for s in per_core.values():
                assert all(a >= c > 0 for a, c in zip(agg_v, raw(b, s)))
    # counters: every per-core set carries its core's deltas, or one counter skip with the PMU's
    # reason; the aggregate set none
    pmu = b.plat("pmu")
    pmu = pmu[0] if isinstance(pmu, list) else pmu
    ctr_skips = {k["ctr_set"]: k for k in b.summary["skips"] if k["probe"] == "membw_mc" and k.get("ctr_set")}
    for s in sets:
        if s["params"]["cpu"] == "all":
            assert "counters" not in s and "ctr_skipped" not in s["params"]
        elif pmu["present"]:
            assert s["counters"]["complete"] and s["counters"]["events"], s["set"]
        else:
            assert "counters" not in s and ctr_skips[s["params"]["ctr_skipped"]]["reason"] == pmu["reason"]


def boot(tmp_path_factory, name, settings=None, extra_config="", image=IMAGE, **kw):
    """One boot of the USB image under QEMU (run_qemu's keywords), parsed into <tmp>/<name>/parsed."""
    if not os.path.exists(image):
        pytest.fail("%s is missing: run `make image%s` (make integration does)"
                    % (image, " ARCH=aarch64" if kw.get("arch") == "aarch64" else ""))
    out = str(tmp_path_factory.mktemp(name))
    res = pipeline.run_and_parse(out, parse_dir=os.path.join(out, "parsed"), image=image,
                                 settings=settings or {}, extra_config=extra_config, **kw)
    return Boot(out, res["run"], res["summary"])


def boot_a64(tmp_path_factory, name, settings=None, mem=1024, timeout=120, **kw):
    """One boot of the AArch64 USB image (qemu-system-aarch64 -machine virt,gic-version=3, AAVMF)."""
    return boot(tmp_path_factory, name, settings, image=IMAGE_A64, arch="aarch64", mem=mem, timeout=timeout, **kw)


def single(fact):
    """A platform fact that must occur once: the dict (a list of one is unwrapped)."""
    if isinstance(fact, list):
        assert len(fact) == 1, fact
        return fact[0]
    return fact




def boot_config(tmp_path_factory, cfg, **kw):
    """The boot of one configs.BootConfig (kw: more run_qemu keywords, e.g. the QEMU 10 binary)."""
    extra_args = [a for m in cfg.machine for a in ("-machine", m)] + list(cfg.qemu_args)
    if extra_args:
        kw["extra_args"] = extra_args
    if cfg.usb_devices:
        kw["usb_devices"] = list(cfg.usb_devices)
    if cfg.pci_devices:
        kw["pci_devices"] = list(cfg.pci_devices)
    if cfg.stop_after:
        kw["stop_after"] = cfg.stop_after
    if cfg.extra_files:
        kw["extra_files"] = dict(cfg.extra_files)
    return boot(tmp_path_factory, cfg.name, dict(cfg.options), extra_config=cfg.raw, image=IMAGES[cfg.arch],
                arch=cfg.arch, smp=cfg.smp, mem=cfg.mem, icount=cfg.icount, icount_shift=cfg.icount_shift,
                cpu=cfg.cpu, timeout=cfg.timeout,
                serial=cfg.serial, xhci_props=cfg.xhci_props, **kw)


_QEMU10 = {}  # the one fetch's outcome: "paths" or "skip" (qemu10_paths)
_QEMU10_LOCK = threading.Lock()


def qemu10_paths():
    """(binary, data directory) of QEMU 10, fetched once for the session (the pool's worker of a
    QEMU 10 boot or a test, whichever asks first); a skip when backports is unreachable."""
    with _QEMU10_LOCK:
        if not _QEMU10:
            _QEMU10.update(_fetch_qemu10())
    if "skip" in _QEMU10:
        pytest.skip(_QEMU10["skip"])
    return _QEMU10["paths"]


def _fetch_qemu10():
    try:
        proc = subprocess.run([QEMU10_SCRIPT], capture_output=True, text=True, timeout=QEMU10_FETCH_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"skip": "qemu10: fetching QEMU 10 from bookworm-backports took over %d s" % QEMU10_FETCH_TIMEOUT_S}
    reason = [line for line in proc.stderr.splitlines() if line.startswith("qemu10: ")]
    if proc.returncode == 2:
        return {"skip": reason[-1] if reason else proc.stderr.strip()[-300:]}
    assert proc.returncode == 0, proc.stderr
    root = proc.stdout.strip().splitlines()[-1]
    return {"paths": (os.path.join(root, "usr", "bin", "qemu-system-x86_64"), os.path.join(root, "usr", "share", "qemu"))}


@pytest.fixture(scope="session")
def qemu10():
    """(binary, data directory) of QEMU 10 (qemu10_paths)."""
    return qemu10_paths()


def boot_qemu10_aware(factory, cfg):
    """boot_config, on QEMU 10 where the entry asks for it (a skip raised here reaches the tests
    that take the boot: boot_pool re-raises a job's exception in result())."""
    kw = {}
    if cfg.qemu10:
        kw["qemu"], kw["qemu_datadir"] = qemu10_paths()
    return boot_config(factory, cfg, **kw)


_POOL = None  # the session's boot_pool.BootPool (pytest_collection_finish)
_FIXTURE_FUNCS = {}  # the generated fixture functions: {function: configs.BootConfig}


def _boot_fixture(cfg):
    """A session fixture giving `cfg`'s boot: the pool's where it booted there, else booted now
    (after fetching QEMU 10 where the entry asks for it)."""
    def fixture(tmp_path_factory):
        if _POOL is not None and _POOL.has(cfg.name):
            return _POOL.result(cfg.name)
        return boot_qemu10_aware(tmp_path_factory, cfg)
    fixture.__name__ = cfg.name
    fixture.__doc__ = cfg.doc or "The %s boot of configs.py." % cfg.name
    _FIXTURE_FUNCS[fixture] = cfg
    return pytest.fixture(scope="session", name=cfg.name)(fixture)


# Module attributes of their own (the fixture's name is the entry's): "boot_" + name would shadow
# the boot_a64 helper above with the fixture of entry "a64".
for _cfg in CONFIGS.values():
    globals()["_config_fixture_" + _cfg.name] = _boot_fixture(_cfg)


def _markers():
    return sorted({m for c in CONFIGS.values() for m in (c.arch,) + c.groups})


def pytest_configure(config):
    for m in _markers():
        config.addinivalue_line("markers", "%s: tests taking a boot of that arch or group (configs.py)" % m)
    config.addinivalue_line("markers", "timing: asserts something about time on this machine: runs last, "
                            "alone, after every boot of the pool has ended (boot_pool.py)")


def item_boots(item):
    """The configs.py entries a test takes: its fixtures that resolve to a boot fixture of this
    file (a module's own fixture of the same name, test_hosted.py's `quick`, is not one), and
    the entries it names in its parameters (test_smp.py's request.getfixturevalue)."""
    out = []
    info = getattr(item, "_fixtureinfo", None)
    for name in getattr(item, "fixturenames", ()):
        defs = info.name2fixturedefs.get(name) if info else None
        cfg = _FIXTURE_FUNCS.get(defs[-1].func) if defs else None
        if cfg:
            out.append(cfg)
    params = getattr(getattr(item, "callspec", None), "params", {})
    out += [CONFIGS[v] for v in params.values() if isinstance(v, str) and v in CONFIGS]
    # a CPU model whose boot is a configuration's (test_cpu_models.py)
    out += [CONFIGS[MODEL_HOSTS[v]] for v in params.values() if isinstance(v, str) and v in MODEL_HOSTS]
    return list({c.name: c for c in out}.values())


def item_background(item):
    """The fixtures of background work (boot_pool.background) a test takes."""
    return set(getattr(item, "fixturenames", ())) & set(boot_pool.BACKGROUND)


def pooled(cfg):
    """Booted in the pool: everything but the `alone` entries. A QEMU 10 entry's worker fetches
    QEMU 10 first (once a session, qemu10_paths): booted on first use, its test ran on the main
    thread after the pool had drained, one CPU idle (x2: 6 s of a make test's tail)."""
    return not cfg.alone


def runs_last(item):
    return item.get_closest_marker("timing") is not None or any(c.alone for c in item_boots(item))


def pytest_collection_modifyitems(items):
    """A test taking a boot fixture carries that boot's arch and groups as markers. The order:
    tests taking no pooled boot first (they run while the pool boots; those of background work
    last among them), then those taking pooled boots in the pool's order, then the `timing` ones
    and those of `alone` boots."""
    for item in items:
        for cfg in item_boots(item):
            for m in (cfg.arch,) + cfg.groups:
                item.add_marker(m)
    rank = {c.name: i for i, c in enumerate(_pool_order(items))}

    def key(pos_item):
        pos, item = pos_item
        if runs_last(item):
            # the alone boots first: what they leave dirty is written out before each timing test
            return (2, 0 if any(c.alone for c in item_boots(item)) else 1, pos)
        idx = [rank[c.name] for c in item_boots(item) if c.name in rank]
        if idx:
            return (1, max(idx), pos)
        # a test of background work waits for it: the other tests that need no boot go first
        return (0, int(bool(item_background(item))), pos)
    items[:] = [it for _, it in sorted(enumerate(items), key=key)]


def _pool_order(items):
    """The pooled boots the items take, longest first (boot_pool.cost), then in order of first use."""
    seen = {}
    for item in items:
        if not runs_last(item):
            for cfg in item_boots(item):
                if pooled(cfg):
                    seen.setdefault(cfg.name, (len(seen), cfg))
    return [cfg for _, cfg in sorted(seen.values(), key=lambda pc: (-boot_pool.cost(pc[1]), pc[0]))]


def pytest_collection_finish(session):
    """Start the pooled boots of the selected tests (none for --collect-only)."""
    global _POOL
    if session.config.option.collectonly or not session.items:
        return
    if hasattr(session.config, "workerinput"):
        return  # a pytest-xdist worker collects every test, runs a share: the boots go on first use
    jobs = boot_pool.jobs_wanted()
    if not jobs:
        return
    factory = session.config._tmp_path_factory
    factory.getbasetemp()  # made once here: its lazy creation is not thread-safe
    _POOL = boot_pool.BootPool(jobs)
    for cfg in _pool_order(session.items):
        _POOL.submit(cfg, lambda cfg=cfg: boot_qemu10_aware(factory, cfg))
    assert not set(boot_pool.BACKGROUND) & set(CONFIGS), "a background work shares a boot's name"
    wanted = {n for item in session.items if not _skipped(item) for n in item_background(item)}
    for name in sorted(wanted):
        _POOL.submit_background(name, lambda fn=boot_pool.BACKGROUND[name]: fn(factory))


def _skipped(item):
    """Marked to skip whatever happens (skip, or skipif on a condition already true)."""
    return any(m.name == "skip" or (m.name == "skipif" and m.args and m.args[0] is True)
               for m in item.iter_markers())


def background_result(name, tmp_path_factory):
    """The result of the background work behind fixture `name` (boot_pool.background): waited for
    when the session started it, else run here."""
    if _POOL is not None and _POOL.has(name):
        return _POOL.result(name)
    return boot_pool.BACKGROUND[name](tmp_path_factory)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before a test that runs last: every pooled boot has ended, so nothing runs beside it, and
    the page cache left dirty (by the boots, then by the alone boots and the tests before it) has
    been written out (boot_pool.write_out_dirty): writeback beside a hosted cache test slowed it
    2.4-fold here (test_hosted_footprint.py, one run each: 14.4 s quiet, 34.4 s while 12 GB written
    just before went out, 19.1 s after a sync with the same 12 GB cached)."""
    if _POOL is not None and runs_last(item):
        _POOL.drain()
        _POOL.tail_syncs.append(boot_pool.write_out_dirty())
        if _POOL.tail_started is None:
            _POOL.tail_started = time.monotonic()


# A boot's own copies of the stick image and the firmware's variable store (64 MiB each on AArch64):
# about 11 GB a make test, and pytest keeps its last three base folders. Debian's pytest (7.2) has no
# retention policy, so a session that passed removes them; a failed one keeps every file to look at.
BOOT_COPY_MIN_BYTES = 16 << 20
BOOT_COPY_SUFFIXES = (".img", ".fd")


def remove_boot_copies(folder):
    """Delete the large image and variable-store copies below folder."""
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            path = os.path.join(dirpath, name)
            if name.endswith(BOOT_COPY_SUFFIXES) and not os.path.islink(path):
                try:
                    if os.path.getsize(path) >= BOOT_COPY_MIN_BYTES:
                        os.remove(path)
                except OSError:
                    pass


def pytest_sessionfinish(session, exitstatus):
    global _POOL
    if _POOL is not None:
        _POOL.close()
        _POOL.write_times(str(session.config._tmp_path_factory.getbasetemp()))
        _POOL = None
    factory = getattr(session.config, "_tmp_path_factory", None)
    made = factory is not None and factory._basetemp is not None  # getbasetemp() would make one
    if exitstatus == 0 and made and not hasattr(session.config, "workerinput"):
        remove_boot_copies(str(factory.getbasetemp()))


FLOPS_PER_INSN = {"fma": 2, "mul_add": 1}  # per lane: a fused multiply-add is two operations


def check_flops(boot, ran, skipped):
    """The flops probe's sets (arch/flops.h): the (kernel, width) pairs `ran` measured, each after
    its passing exactness check, with its operations per trip = 12 chains x lanes x operations per
    instruction and the core clock beside it; those `skipped` say why in a skip record."""
    sets = {(s["params"]["kernel"], str(s["params"]["width"])): s for s in boot.sets("flops")}
    checks = {(c["kernel"], str(c["width"])): c for c in boot.summary["checks"] if c["name"] == "flops_exact"}
    skips = {(k["kernel"], str(k["width"])): k["reason"] for k in boot.summary["skips"] if k["probe"] == "flops"}
    assert set(sets) == set(ran) and set(checks) == set(ran), (sorted(sets), sorted(checks))
    assert set(skips) == set(skipped) and all(skips.values()), skips
    for key, s in sets.items():
        p = s["params"]
        assert p["precision"] == "fp64" and p["accumulators"] == 12 and p["lanes"] >= 1
        assert p["flops_per_op"] == 12 * p["lanes"] * FLOPS_PER_INSN[p["kernel"]], p
        assert p["core_clock"] == "add_chain" and 0 < p["core_clock_ticks_lo"] <= p["core_clock_ticks_hi"]
        check_load_ref(p)
        assert s["n"] == s["received"] and s["iters"] >= 1
        c = checks[key]
        assert c["status"] == "pass" and c["measured"] == 0 and c["lanes"] == 12 * p["lanes"], c
    return sets


REF_OPS = 8192 * 16  # the load reference's loads per timing (bench/core/core_clock.h)


def check_load_ref(p):
    """The load reference's fields beside the add chain's (docs/methods/shared_core.md), ordered;
    structure only, no verdict on the rate."""
    assert p["core_ref"] == "load_burst" and p["core_ref_ops"] == REF_OPS, p
    assert 0 < p["core_ref_ticks_lo"] <= p["core_ref_ticks_med"] <= p["core_ref_ticks_hi"], p


def check_core_clock_sets(sets):
    """The add chain and its load reference ran beside every one of `sets` (docs/methods/
    core_clock.md, shared_core.md): their fields are in the probe record, ordered, and the harness
    makes a clock and a loads-per-cycle rate of them (no verdict on either)."""
    from bmharness.analysis import core_clock
    assert sets
    for s in sets:
        p = s["params"]
        assert p["core_clock"] == "add_chain" and p["core_clock_cycles"] == 32768
        assert 0 < p["core_clock_ticks_lo"] <= p["core_clock_ticks_med"] <= p["core_clock_ticks_hi"]
        check_load_ref(p)
        assert core_clock.load_ref(p, s.get("overhead"))["loads_per_cycle"] > 0
        clk = core_clock.set_clock(s, s["tsc_hz"])
        assert clk and clk["lo_hz"] <= clk["hz"] <= clk["hi_hz"]
