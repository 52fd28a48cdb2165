"""On this machine's real CPU (hosted build): the flops probe's FMA kernels against the vendor's
documented FMA throughput, per core cycle (the add-chain clock beside each set:
docs/methods/core_clock.md).

Known answer: AMD's Software Optimization Guides for family 19h (Zen 3: 56665; Zen 4: 57647) and
family 1Ah (Zen 5: 58455) give the floating-point unit two FMA pipes (FP0, FP1), each taking one
FMA of up to 256 bits (Zen 5: 512) per cycle, fully pipelined. Twelve independent chains cover
the FMA latency (4-5 cycles) times two pipes, so the scalar, 128- and 256-bit FMA kernels must
retire two FMA instructions per core cycle. Band fixed before the first measurement: 1.8-2.1
(the add-chain clock's own spread and a guest's interruptions below, nothing can exceed two
pipes above). Other vendors and families skip: Intel's cores differ (an E-core has two 128-bit
pipes), and no row here says which they are.

Judged on the median of RUNS runs per width: a guest shares its core's floating-point pipes with
whatever the host runs on the SMT sibling, and its clock is timed beside a set, not inside it.
Measured single runs here (each 3 widths): 6 runs with 16 of 18 within the band (one 256-bit at
1.77, one run at 2.13/2.18 for 64/128), 10 runs all within (lowest 1.83), and episodes of a second
or two where every sample of a set ran at 1.12-1.25 (uniformly, not a few disturbed samples: the
pipes were shared, the add chain, one dependent add per cycle, was not). So in a guest a median
below the band is an expected failure naming the values (the host's other tenants took the
pipes); above it, or below it on bare metal, is a failure."""

import os
import subprocess

import pytest

from conftest import ROOT, HostedRun, check_flops, xfail_in_guest
from bmharness import stats
from bmharness.analysis import core_clock
from bmharness.stream import parse

# Timing on this machine (FMA per core cycle): run last, alone (conftest.py).
pytestmark = pytest.mark.timing

BIN = os.path.join(ROOT, "build", "hosted", "baremetric")
FMA_PER_CYCLE = (1.8, 2.1)
AMD_TWO_FMA_PIPES = {0x19, 0x1A}
CHAINS = 12
RUNS = 5


def _cpu():
    fields = {}
    with open("/proc/cpuinfo") as fh:
        for line in fh:
            if ":" in line:
                k, v = (x.strip() for x in line.split(":", 1))
                fields.setdefault(k, v)
    return fields.get("vendor_id"), int(fields.get("cpu family", "0"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    if not os.path.exists(BIN):
        pytest.fail("%s missing: run `make hosted` (make integration does)" % BIN)
    out = []
    for i in range(RUNS):
        d = tmp_path_factory.mktemp("flops%d" % i)
        log = d / "hosted.log"
        with open(log, "wb") as fh:
            subprocess.run([BIN, "probes=flops", "samples=16"], stdout=fh, check=True, timeout=300)
        summary = parse.parse_log(str(log), str(d / "parsed"))
        assert summary["ok"], summary["validation"]
        out.append(HostedRun(str(d), 0, "", "", summary))
    return out


def test_every_kernel_exact_or_skipped(runs):
    for boot in runs:
        ran = {(s["params"]["kernel"], str(s["params"]["width"])) for s in boot.sets("flops")}
        skipped = {(k["kernel"], str(k["width"])) for k in boot.summary["skips"] if k["probe"] == "flops"}
        assert ("mul_add", "64") in ran and ("mul_add", "128") in ran  # SSE2: every x86-64 CPU
        check_flops(boot, ran, skipped)


def _fma_per_cycle(boot):
    got = {}
    for s in boot.sets("flops", kernel="fma"):
        if str(s["params"]["width"]) not in ("64", "128", "256"):
            continue
        clk = core_clock.set_clock(s, s["tsc_hz"], os.path.join(boot.out_dir, "parsed"))
        per_op_tsc = s["stats"]["per_op"]["median"]  # (sample - overhead) / iters, TSC ticks
        got[str(s["params"]["width"])] = CHAINS / (per_op_tsc * clk["hz"] / s["tsc_hz"])
    return got


def test_fma_two_per_core_cycle_on_amd_zen(runs):
    vendor, family = _cpu()
    if vendor != "AuthenticAMD" or family not in AMD_TWO_FMA_PIPES:
        pytest.skip("no documented FMA throughput here for %s family %#x" % (vendor, family))
    per_run = [_fma_per_cycle(r) for r in runs]
    if not per_run[0]:
        pytest.skip("no FMA kernel ran (FMA3 or AVX state missing)")
    got = {w: stats.median(r[w] for r in per_run) for w in per_run[0]}
    bad = {w: round(v, 3) for w, v in got.items() if not FMA_PER_CYCLE[0] <= v <= FMA_PER_CYCLE[1]}
    msg = "FMA instructions per core cycle (median of %d runs) %s outside %s (runs: %s)" % (
        RUNS, bad, FMA_PER_CYCLE, per_run)
    xfail_in_guest(bad and all(v < FMA_PER_CYCLE[0] for v in bad.values()),
                   "in a guest, pipes shared with the host's other work: " + msg)
    assert not bad, msg
