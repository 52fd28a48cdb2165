"""The firmware on many CPUs: one short boot per QEMU CPU model of configs.MODELS (x86 generations
from Conroe to EPYC-Genoa, Arm cores from Cortex-A53 to Neoverse-V1, and each arch's `max`). Each
boot must end `status ok` (a probe that cannot run on the model says why in a skip record) and
give cache records equal to what the model's own CPUID / CLIDR+CCSIDR say, decoded independently
of the firmware (cpu_models.py, with the manuals it follows). A model that a boot of configs.py
already runs the table's way (configs.MODEL_HOSTS: `max` and EPYC on x86_64, `max` on AArch64) is
read from that boot instead of booting it again.

The boots time nothing, so they run two at a time (the pool below): the table costs about half
its serial time in `make test`. Only the models of the selected tests boot (`-k cortex`)."""

import concurrent.futures
import os
import subprocess
import time

import pytest

import configs
import cpu_models
from conftest import QEMU10_SCRIPT, boot_config

POOL_WORKERS = 2  # this is a 2-core machine; each TCG boot is mostly one busy host thread
MODELS = {c.name: c for c in configs.MODELS}
QEMU_BIN = {"x86_64": "qemu-system-x86_64", "aarch64": "qemu-system-aarch64"}


def _selected(session):
    """The models the selected tests take that boot here: not those a configuration's boot stands
    for (configs.MODEL_HOSTS: the pool boots it, the model's tests wait for it there)."""
    names = {item.callspec.params["model"] for item in session.items
             if hasattr(item, "callspec") and "model" in item.callspec.params}
    return [c for c in configs.MODELS if c.name in names and c.name not in configs.MODEL_HOSTS]


def _qemu10(request, arch):
    """(binary, data dir) of QEMU 10 for `arch`, or (None, why)."""
    if arch == "x86_64":
        try:
            return request.getfixturevalue("qemu10"), None
        except pytest.skip.Exception as e:
            return None, "QEMU 10 unavailable: %s" % e
    env = dict(os.environ, QEMU10_ARCH=arch)
    try:
        p = subprocess.run([QEMU10_SCRIPT], capture_output=True, text=True, env=env, timeout=300)
    except subprocess.TimeoutExpired:
        return None, "QEMU 10 (%s): fetching it took over 300 s" % arch
    if p.returncode != 0:
        why = [line for line in p.stderr.splitlines() if line.startswith("qemu10: ")]
        return None, "QEMU 10 (%s) unavailable: %s" % (arch, why[-1] if why else p.stderr.strip()[-300:])
    root = p.stdout.strip().splitlines()[-1]
    return (os.path.join(root, "usr", "bin", "qemu-system-" + arch), os.path.join(root, "usr", "share", "qemu")), None


class ModelRun:
    def __init__(self, cfg, boot=None, error=None, skip=None, seconds=0.0):
        self.cfg, self.boot, self.error, self.skip, self.seconds = cfg, boot, error, skip, seconds


@pytest.fixture(scope="session")
def model_boots(request, tmp_path_factory):
    """{name: ModelRun} of every selected model, booted POOL_WORKERS at a time."""
    cfgs = _selected(request.session)
    q10 = {a: _qemu10(request, a) for a in sorted({c.arch for c in cfgs if c.qemu10})}

    def one(cfg):
        kw = {}
        if cfg.qemu10:
            binary, why = q10[cfg.arch]
            if not binary:
                return ModelRun(cfg, skip=why)
            kw["qemu"], kw["qemu_datadir"] = binary
        t = time.monotonic()
        try:
            b = boot_config(tmp_path_factory, cfg, **kw)
        except Exception as e:  # reported by the model's own tests, the other boots go on
            return ModelRun(cfg, error="%s: %s" % (type(e).__name__, e), seconds=time.monotonic() - t)
        return ModelRun(cfg, boot=b, seconds=time.monotonic() - t)

    tmp_path_factory.getbasetemp()  # made once here: its lazy creation is not thread-safe
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(POOL_WORKERS) as pool:
        runs = {r.cfg.name: r for r in pool.map(one, cfgs)}
    wall = time.monotonic() - t0
    # where the time went (pytest -rA shows it with the first test's output)
    with open(os.path.join(str(tmp_path_factory.getbasetemp()), "cpu_models_times.txt"), "w") as fh:
        fh.write("models %d, workers %d, wall %.1f s, sum of boots %.1f s\n"
                 % (len(runs), POOL_WORKERS, wall, sum(r.seconds for r in runs.values())))
        for r in runs.values():
            fh.write("%-28s %6.1f s %s\n" % (r.cfg.name, r.seconds, r.skip or r.error or "booted"))
    return runs


def _run(request, model_boots, model):
    """The model's ModelRun: its own boot, or the boot of the configuration that stands for it."""
    host = configs.MODEL_HOSTS.get(model)
    if host:
        return ModelRun(MODELS[model], boot=request.getfixturevalue(host))
    r = model_boots[model]
    if r.skip:
        pytest.skip(r.skip)
    assert r.error is None, r.error
    return r


@pytest.fixture(scope="session")
def cpuid_dump(tmp_path_factory):
    exe, why = cpu_models.build_cpuid_dump(str(tmp_path_factory.mktemp("cpuid_dump")))
    if not exe:
        pytest.skip(why)
    return exe


@pytest.mark.parametrize("model", list(MODELS))
def test_model_boot_ends_ok(request, model_boots, model):
    """The short default run on the model: complete, intact, `status ok`; every skip says why."""
    b = _run(request, model_boots, model).boot
    v = b.summary["validation"]
    assert not b.run["timed_out"], "QEMU had to be killed after %s s" % b.run["timeout_s"]
    assert b.summary["ok"], v
    assert v["complete"] and not v["truncated"] and not v["corrupt"] and not v["missing"]
    assert b.summary["end"]["status"] == "ok", b.summary["end"]
    assert b.summary["end"]["unexpected_faults"] == 0
    assert b.run["exit_code"] == (1 if MODELS[model].arch == "x86_64" else 0)  # debug-exit 0 / PSCI off
    for s in b.summary["skips"]:
        assert s.get("reason"), s
    assert b.summary["begin"]["arch"] == MODELS[model].arch


@pytest.mark.parametrize("model", [c.name for c in configs.MODELS if c.arch == "x86_64"])
def test_x86_model_caches_are_its_cpuid(request, model_boots, cpuid_dump, model):
    """The cache records equal the model's CPUID decoded per the SDM/APM (cpu_models.py), from
    QEMU's user-mode emulator of the same model; its identification leaves equal the boot's
    `plat kind=cpu` too, so user and system mode give this model the same CPUID."""
    cfg = MODELS[model]
    b = _run(request, model_boots, model).boot
    got = sorted(b.plats("cache"), key=cpu_models.cache_key)
    if cfg.qemu10:
        want = cpu_models.QEMU_10_X86[cfg.cpu]
    else:
        leaves = cpu_models.user_cpuid(cpuid_dump, cfg.cpu)
        want = cpu_models.x86_caches(leaves)
        cpu = b.plat("cpu")
        for k, v in cpu_models.x86_ident(leaves).items():
            got_v = cpu[k]
            assert (int(got_v, 16) if isinstance(got_v, str) and k.startswith("max") else got_v) == v, (k, got_v, v)
    want = sorted(want, key=cpu_models.cache_key)
    for c in got:
        if c.get("geometry") == "unknown":
            _assert_refused_as_documented(b.plat("cpu"), c)
    assert [_as_described(c) for c in got] == want


# AMD family 17h and later: CPUID 0x80000006's L3 is the package's, believed only beside 0x8000001D
# (arch/x86_64/cache_judge.c, docs/protocol.md `plat kind=cache`); QEMU's EPYC models under TCG
# leave 0x8000001D empty, so their L3 is refused with the CPUID size kept as reported_size.
AMD_LEGACY_L3_FAMILY = 0x17


def _assert_refused_as_documented(cpu, c):
    assert cpu["vendor"] == "AuthenticAMD" and int(cpu["family"]) >= AMD_LEGACY_L3_FAMILY, (cpu, c)
    assert c["level"] == 3 and c["source"] == "cpuid80000006", c
    assert c["reason"].startswith("cache geometry refused:") and "size" not in c, c


def _as_described(c):
    """A cache record as the CPUID described it: a refused level's reported_size is the size."""
    c = {k: v for k, v in c.items() if k != "seq"}
    if c.get("geometry") == "unknown":
        c["size"] = c.pop("reported_size")
        del c["geometry"], c["reason"]
    return c


@pytest.mark.parametrize("model", [c.name for c in configs.MODELS if c.arch == "aarch64"])
def test_a64_model_caches_are_its_ccsidr(request, model_boots, model):
    """The cache records, CLIDR_EL1, CTR_EL0 and the DC ZVA block equal QEMU 7.2's values for the
    model, decoded per the Arm ARM (cpu_models.py)."""
    cfg = MODELS[model]
    b = _run(request, model_boots, model).boot
    clidr, _, ctr, dczid = cpu_models.A64_MODELS[cfg.cpu]
    ident = b.plat("aarch64_id")
    ident = ident[0] if isinstance(ident, list) else ident
    assert int(ident["clidr"], 16) == clidr
    ctl = b.plat("cache_ctl")
    ctl = ctl[0] if isinstance(ctl, list) else ctl
    assert ctl["ccidx"] == (cfg.cpu in cpu_models.A64_CCIDX)  # which CCSIDR layout was read
    got = sorted(b.plats("cache"), key=cpu_models.cache_key)
    want = sorted(cpu_models.a64_caches(cfg.cpu), key=cpu_models.cache_key)
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want):
        assert {k: g.get(k) for k in w} == w, (g, w)
        assert "geometry" not in g  # a real core's geometry is believed
    if ctr is not None:
        assert int(ctl["ctr"], 16) == ctr
    assert int(ctl["dczid"], 16) == dczid
    # the firmware's decode of whatever CTR_EL0 / DCZID_EL0 it read, against the Arm ARM's layout
    want_ctl = cpu_models.a64_ctr(int(ctl["ctr"], 16), int(ctl["dczid"], 16))
    assert {k: ctl[k] for k in want_ctl} == want_ctl


@pytest.mark.parametrize("model", [c.name for c in configs.MODELS if c.arch == "aarch64"])
def test_a64_model_is_known_emulated(request, model_boots, model):
    """Every Arm model is QEMU TCG's and the firmware must know it (plat kind=emulator,
    bench/facts/aarch64/emulator.h), else its cache checks judge an emulator's timing as a core's:
    `max` by MIDR implementer 0x00, a named core (the real core's MIDR) by QEMU's board with a PMU
    lacking L1D_CACHE and L1D_CACHE_REFILL, which its TRM's event table lists."""
    cfg = MODELS[model]
    b = _run(request, model_boots, model).boot
    em, pmu, ident = (b.plats(k)[0] for k in ("emulator", "pmu", "aarch64_id"))
    midr = int(ident["midr"], 16)
    assert em["emulated"] and em["qemu_board"], em
    if cfg.cpu == "max":
        assert em["sign"] == "midr_software" and midr >> 24 == 0, (em, hex(midr))
    else:
        assert midr >> 24 == 0x41 and em["sign"] == "qemu_board_pmu", (em, hex(midr))
        assert int(pmu["pmceid0"], 16) & 0x18 == 0, pmu  # L1D_CACHE_REFILL (3), L1D_CACHE (4)
    assert em["reason"]


def _cpu_names(arch, qemu=None, datadir=None):
    cmd = [qemu or QEMU_BIN[arch]] + (["-L", datadir] if datadir else []) + ["-cpu", "help"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
    return {w for line in out.splitlines() for w in line.split()[:2]}


@pytest.mark.parametrize("arch", ["x86_64", "aarch64"])
def test_model_table_matches_qemu(arch):
    """The table's claims about QEMU: a model booted on 7.2 is in 7.2's list; a QEMU 10 model is
    not (else it would boot on 7.2); a model listed as lacking is in neither QEMU we boot."""
    names = _cpu_names(arch)
    for c in configs.MODELS:
        if c.arch == arch:
            assert (c.cpu in names) != c.qemu10, (c.cpu, "qemu10" if c.qemu10 else "7.2")
    for a, cpu, why in configs.MODELS_LACKING:
        if a == arch:
            assert cpu not in names and why
