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
pipes), and no row here says which they are."""

import os
import subprocess

import pytest

from conftest import ROOT, check_flops
from bmharness.analysis import core_clock
from bmharness.stream import parse

BIN = os.path.join(ROOT, "build", "hosted", "baremetric")
FMA_PER_CYCLE = (1.8, 2.1)
AMD_TWO_FMA_PIPES = {0x19, 0x1A}
CHAINS = 12


def _cpu():
    fields = {}
    with open("/proc/cpuinfo") as fh:
        for line in fh:
            if ":" in line:
                k, v = (x.strip() for x in line.split(":", 1))
                fields.setdefault(k, v)
    return fields.get("vendor_id"), int(fields.get("cpu family", "0"))


class _Boot:
    def __init__(self, summary):
        self.summary = summary

    def sets(self, name):
        return [s for s in self.summary["sets"] if s["name"] == name]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    if not os.path.exists(BIN):
        pytest.fail("%s missing: run `make hosted` (make integration does)" % BIN)
    out = tmp_path_factory.mktemp("flops")
    log = out / "hosted.log"
    with open(log, "wb") as fh:
        subprocess.run([BIN, "probes=flops", "samples=16"], stdout=fh, check=True, timeout=300)
    summary = parse.parse_log(str(log), str(out / "parsed"))
    assert summary["ok"], summary["validation"]
    return summary, str(out / "parsed")


def test_every_kernel_exact_or_skipped(run):
    summary, _ = run
    boot = _Boot(summary)
    ran = {(s["params"]["kernel"], str(s["params"]["width"])) for s in boot.sets("flops")}
    skipped = {(k["kernel"], str(k["width"])) for k in summary["skips"] if k["probe"] == "flops"}
    assert ("mul_add", "64") in ran and ("mul_add", "128") in ran  # SSE2: every x86-64 CPU
    check_flops(boot, ran, skipped)


def test_fma_two_per_core_cycle_on_amd_zen(run):
    vendor, family = _cpu()
    if vendor != "AuthenticAMD" or family not in AMD_TWO_FMA_PIPES:
        pytest.skip("no documented FMA throughput here for %s family %#x" % (vendor, family))
    summary, out_dir = run
    fma = [s for s in summary["sets"] if s["name"] == "flops" and s["params"]["kernel"] == "fma"
           and str(s["params"]["width"]) in ("64", "128", "256")]
    if not fma:
        pytest.skip("no FMA kernel ran (FMA3 or AVX state missing)")
    got = {}
    for s in fma:
        clk = core_clock.set_clock(s, s["tsc_hz"], out_dir)
        per_op_tsc = s["stats"]["per_op"]["median"]  # (sample - overhead) / iters, TSC ticks
        got[str(s["params"]["width"])] = CHAINS / (per_op_tsc * clk["hz"] / s["tsc_hz"])
    bad = {w: round(v, 3) for w, v in got.items() if not FMA_PER_CYCLE[0] <= v <= FMA_PER_CYCLE[1]}
    assert not bad, "FMA instructions per core cycle %s outside %s (all: %s)" % (bad, FMA_PER_CYCLE, got)
