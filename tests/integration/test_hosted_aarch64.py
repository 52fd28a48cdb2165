"""The hosted build for AArch64 Linux (build/hosted-aarch64/baremetric, `make hosted-aarch64`),
cross-compiled with Debian's gcc-aarch64-linux-gnu and run here under qemu-aarch64 (QEMU user mode).

The emulator's timing is nobody's CPU's, so this asserts structure only: the stream complete and
valid (sequence and checksums), the EL0 environment's facts (EL0, no PMU registers, the generic
timer's rate from CNTFRQ_EL0), each probe asked for either measured or skipped with a reason, the
known-answer checks of the kernels (bytes written, flops) passing, and the run saying it is
emulated: in the stream (plat kind=emulator), on the summary (stderr) and on the harness's first
screen. Known answers come from the same run (CNTFRQ_EL0 in aarch64_id) or from what this test does
(it starts qemu-aarch64 itself, so the process is emulated). Skipped, with the reason, where the
cross compiler or qemu-aarch64 is missing."""

import os
import shutil
import subprocess

import pytest

from bmharness.analysis import archinfo, headline
from bmharness.stream import parse
from conftest import HostedRun as Run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "build", "hosted-aarch64", "baremetric")
CROSS_CC = "aarch64-linux-gnu-gcc"
QEMU = "qemu-aarch64"
BUILD_TIMEOUT_S = 600
RUN_TIMEOUT_S = 120

# Short: a 64 MiB arena (pre-faulting the default 640 MiB takes ~20 s under the emulator), sweeps
# to 1 MiB, 4 samples per set.
PROBES = ("timer", "spin", "latency", "membw", "flops", "smp_hello", "irq_exception", "fault_ud2",
          "pmu_check")
ARGS = ["probes=" + ",".join(PROBES), "samples=4", "timer_samples=256", "mem_max_mb=1",
        "arena_mb=64", "irq_samples=200"]
# Registers and records the bare-metal AArch64 build has and a process at EL0 must not touch.
FIRMWARE_ONLY = ("el2", "mmu", "sysreg", "sysregs", "psci", "firmware", "memmap", "acpi", "ebs")


@pytest.fixture(scope="module")
def a64_bin():
    missing = [t for t in (CROSS_CC, QEMU) if not shutil.which(t)]
    if missing:
        pytest.skip("%s not installed (Debian: gcc-aarch64-linux-gnu, qemu-user; make "
                    "deps-hosted-aarch64)" % " and ".join(missing))
    r = subprocess.run(["make", "-C", ROOT, "hosted-aarch64"], capture_output=True, text=True,
                       timeout=BUILD_TIMEOUT_S)
    if r.returncode != 0:
        pytest.fail("make hosted-aarch64 failed:\n%s%s" % (r.stdout[-3000:], r.stderr[-3000:]))
    assert os.access(BIN, os.X_OK), BIN
    return BIN


@pytest.fixture(scope="module")
def run(a64_bin, tmp_path_factory):
    return Run.start([QEMU, a64_bin] + ARGS, str(tmp_path_factory.mktemp("hosted_a64")), RUN_TIMEOUT_S)


def test_elf_is_aarch64(a64_bin):
    with open(a64_bin, "rb") as fh:
        head = fh.read(20)
    assert head[:4] == b"\x7fELF" and head[4] == 2  # 64-bit
    assert int.from_bytes(head[18:20], "little") == 183  # e_machine EM_AARCH64 (ELF spec)


def test_run_completes(run):
    v = run.summary["validation"]
    assert run.summary["ok"], v["problems"]
    assert v["complete"] and not v["truncated"]
    assert not v["corrupt"] and not v["missing"] and not v["duplicates"]  # checksums, sequence
    begin = run.summary["begin"]
    assert begin["arch"] == "aarch64" and begin["env"] == "hosted" and begin["proto"] == 2
    end = run.summary["end"]
    assert end["status"] == "ok" and end["records"] == end["seq"]
    assert end["faults"] == 0 and end["unexpected_faults"] == 0
    assert end["skips"] == len(run.summary["skips"])
    assert run.rc == 0, run.stderr[-2000:]


def test_stdout_records_stderr_summary(run):
    lines = run.stdout.split("\n")
    assert lines[-1] == ""
    assert all(line.startswith("@BM ") for line in lines[:-1])
    assert "status: ok" in run.stderr
    assert "generic timer MHz" in run.stderr and "timer overhead (ticks)" in run.stderr


def test_says_it_is_emulated(run):
    em = run.plat("emulator")
    assert em["emulated"] == 1 and em["reason"]  # this test started it under qemu-aarch64
    assert em["cpuinfo"] in ("foreign", "arm64", "unreadable")
    assert "EMULATED CPU" in run.stderr
    assert any(m["level"] == "warn" and "EMULATED" in m["text"] for m in run.summary["messages"])
    # the harness's first screen: the EMULATED banner
    assert archinfo.emulated_cpu(run.summary)
    assert headline.emulation(run.summary)["evidence"]


def test_el0_facts(run):
    ident = run.plat("aarch64_id")
    assert ident["el"] == 0  # a Linux process: EL0
    assert int(str(ident["clidr"]), 0) == 0  # CLIDR_EL1 is EL1's: not read
    tsc = run.plat("tsc")
    assert tsc["source"] == "cntfrq" and tsc["hz"] == ident["cntfrq"] > 0
    pmu = run.plat("pmu")
    assert pmu["present"] == 0 and "EL0" in pmu["reason"]
    assert run.plat("cpu")["ucode"] == "unreadable"
    simd = run.plat("simd")
    assert simd["w128"] == 1  # Linux gives every task FP/SIMD
    assert "cpacr" not in simd and "cptr_el2" not in simd  # the kernel's registers: not read
    assert run.plat("os")["sysname"] == "Linux"
    for kind in FIRMWARE_ONLY:
        assert kind not in run.summary["platform"], "plat kind=%s needs EL1 or firmware" % kind


def test_probes_ran_or_skipped_with_reason(run):
    ran = {s["name"] for s in run.summary["sets"]}
    skipped = {s["probe"] for s in run.summary["skips"]}
    for name in PROBES:
        assert name in ran or name in skipped, "probe %s neither ran nor skipped" % name
    for s in run.summary["skips"]:
        assert s.get("reason"), s
    # what EL0 on the emulator must be able to run
    assert {"timer", "spin", "latency", "membw", "flops", "irq_exception"} <= ran
    # recovery points need vectors of our own: a process has none
    assert "fault_ud2" in skipped and "fault_ud2" not in ran


def test_timer_methods(run):
    methods = {s["params"].get("method") for s in run.sets("timer")}
    assert {"cntvct", "isb_cntvct", "begin_end"} <= methods
    skipped = {s.get("method"): s["reason"] for s in run.summary["skips"] if s["probe"] == "timer"}
    assert set(skipped) == {"pmccntr", "isb_pmccntr"}  # PMCCNTR_EL0 is the kernel's at EL0


def test_kernels_known_answers(run):
    checks = [c for c in run.summary["checks"] if c["probe"] in ("membw", "flops")]
    names = {c["name"] for c in checks}
    assert {"membw_kernel_exact", "flops_exact"} <= names
    bad = [c for c in checks if c["status"] != "pass"]
    assert not bad, bad
    assert all(c["status"] == "pass" for c in run.summary["checks"])


def test_exception_round_trip(run):
    kinds = {s["params"]["kind"]: s for s in run.sets("irq_exception")}
    assert set(kinds) == {"brk", "udf"}  # SIGTRAP / SIGILL, resumed past the instruction
    assert kinds["brk"]["params"]["vector"] == 0x3C and kinds["udf"]["params"]["vector"] == 0x00
    assert all(s["n"] > 0 for s in kinds.values())


# The caches of an Arm Neoverse N1 core (Arm Neoverse N1 TRM, 100616: L1 data and instruction
# 64 KiB 4-way, L2 1 MiB 8-way, 64-byte lines) as the kernel's cacheinfo would list them.
N1_CACHES = [
    {"level": 1, "type": "Data", "size": "64K", "ways": 4, "sets": 256},
    {"level": 1, "type": "Instruction", "size": "64K", "ways": 4, "sets": 256},
    {"level": 2, "type": "Unified", "size": "1024K", "ways": 8, "sets": 2048},
]
TYPE_NAME = {"Data": "data", "Instruction": "inst", "Unified": "unified"}
LINE = 64


def test_caches_from_sysfs(a64_bin, tmp_path):
    """CLIDR/CCSIDR are EL1's: the caches come from the kernel's cacheinfo. This VM has none, so the
    test writes an N1's into a directory bind-mounted over the pinned CPU's sysfs node in a private
    mount namespace (root only) and expects exactly those as plat kind=cache source=sysfs, and
    cachefill to fill them (its cold/warm checks skip: the emulator models no caches)."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare(1) for a private mount namespace")
    cpu = max(os.sched_getaffinity(0))
    node = "/sys/devices/system/cpu/cpu%d" % cpu
    if not os.path.isdir(node):
        pytest.skip("no %s to mount over" % node)
    fake = tmp_path / "cpu"
    for i, c in enumerate(N1_CACHES):
        d = fake / "cache" / ("index%d" % i)
        d.mkdir(parents=True)
        files = {"level": c["level"], "type": c["type"], "size": c["size"],
                 "coherency_line_size": LINE, "ways_of_associativity": c["ways"],
                 "number_of_sets": c["sets"], "shared_cpu_list": cpu}
        for name, value in files.items():
            (d / name).write_text("%s\n" % value)
    script = 'mount --bind "$1" "$2" && exec "$3" "$4" probes=timer,cachefill samples=4 ' \
             'timer_samples=64 arena_mb=64'
    p = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                        str(fake), node, QEMU, a64_bin], capture_output=True,
                       env=dict(os.environ, BAREMETRIC_CPU=str(cpu)), timeout=RUN_TIMEOUT_S)
    if p.returncode != 0 and not p.stdout:
        pytest.skip("private mount namespace refused here: %s" % p.stderr.decode()[-300:])
    log = tmp_path / "hosted.log"
    log.write_bytes(p.stdout)
    r = Run(str(tmp_path), p.returncode, p.stdout.decode("latin-1"), p.stderr.decode("latin-1"),
            parse.parse_log(str(log), str(tmp_path / "parsed")))
    assert r.summary["ok"] and r.summary["end"]["status"] == "ok", r.summary["validation"]
    got = [(c["level"], c["type"], c["size"], c["line"], c["ways"], c["sets"], c["source"])
           for c in r.plats("cache")]
    want = [(c["level"], TYPE_NAME[c["type"]], int(c["size"][:-1]) * 1024, LINE, c["ways"],
             c["sets"], "sysfs") for c in N1_CACHES]
    assert got == want
    filled = {(s["params"]["level"], s["params"]["type"]) for s in r.sets("cachefill")}
    assert filled == {(1, "data"), (1, "inst"), (2, "unified")}
    for c in r.summary["checks"]:
        if c["name"] == "cold_slower_than_warm":
            assert c["status"] == "skip" and "emulated" in c["reason"]
