"""Probe `prim` (the machine vector's primitive costs, bench/probes/prim.c) in the hosted build:
on this machine's CPU, and the AArch64 build under qemu-aarch64 (user mode) where the cross
compiler and QEMU are installed.

Structure: every kind has its set (ten CPU kernels, three OS primitives: under Linux none is
skipped), each with its operations per iteration and, on a fixed path, its static instruction
count (arch/<cpu>/include/cpu/prim_ops.h); every coefficient is positive, its interval around it.
Known answers (docs/methods/vectors.md), natively only (an emulator has no branch predictor and
no cycle):
- a dependent add is one core cycle: the fastest sample against the fastest timing of the core
  clock beside the set (analysis/prim_costs.checks: 0.9-1.1);
- a random-outcome branch costs more than a fixed one: a predictor cannot learn the xorshift
  bits, so about half are mispredicted, each costing a pipeline refill (many cycles on any
  out-of-order core), where a predicted one costs about a cycle: invariant, not a timing.
No timing is compared with a constant."""

import os
import shutil
import subprocess

import pytest

from conftest import ROOT
from bmharness.analysis import prim_costs
from bmharness.stream import parse

pytestmark = pytest.mark.timing

BIN = os.path.join(ROOT, "build", "hosted", "baremetric")
A64_BIN = os.path.join(ROOT, "build", "hosted-aarch64", "baremetric")
KERNELS = ("int_dep", "int_indep", "load", "store", "branch", "branch_random", "indirect",
           "indirect_random", "call", "fp_add")
OS_KINDS = ("syscall", "page_fault", "ctx_switch")
FIXED_PATH = ("int_dep", "int_indep", "load", "store", "branch", "indirect", "call", "fp_add")
ARGS = ["probes=prim", "samples=16", "smp=0"]


def _run(argv, out):
    log = out / "hosted.log"
    with open(log, "wb") as fh:
        subprocess.run(argv, stdout=fh, stderr=subprocess.DEVNULL, check=True, timeout=600)
    summary = parse.parse_log(str(log), str(out / "parsed"))
    assert summary["ok"], summary["validation"]
    return summary


@pytest.fixture(scope="module")
def native(tmp_path_factory):
    if not os.path.exists(BIN):
        pytest.fail("%s missing: run `make hosted` (make integration does)" % BIN)
    return _run(["taskset", "-c", "0", BIN] + ARGS, tmp_path_factory.mktemp("prim"))


@pytest.fixture(scope="module")
def a64(tmp_path_factory):
    missing = [t for t in ("aarch64-linux-gnu-gcc", "qemu-aarch64") if not shutil.which(t)]
    if missing:
        pytest.skip("%s not installed (make deps-hosted-aarch64)" % " and ".join(missing))
    r = subprocess.run(["make", "-C", ROOT, "hosted-aarch64"], capture_output=True, text=True,
                       timeout=900)
    if r.returncode != 0:
        pytest.fail("make hosted-aarch64 failed:\n%s" % r.stderr[-3000:])
    return _run(["qemu-aarch64", A64_BIN] + ARGS + ["arena_mb=64"],
                tmp_path_factory.mktemp("prim_a64"))


def _pair_facts(sets):
    """What the miss coefficients were made of: said when one is missing (CI once lost
    branch_miss under qemu-aarch64 and the summary it printed did not say why)."""
    out = []
    for fixed, rnd, _ in prim_costs.PAIRS:
        f, r = sets.get(fixed), sets.get(rnd)
        out.append("%s %s / %s %s; fraction %s" % (
            fixed, f and (f["stats"]["per_op"], f.get("tsc_hz"), f.get("params")),
            rnd, r and (r["stats"]["per_op"], r.get("tsc_hz"), r.get("params")),
            f and r and prim_costs.miss_fraction(f, r)))
    return "\n".join(out)


def _structure(summary):
    sets = prim_costs.prim_sets(summary)
    assert sorted(sets) == sorted(KERNELS + OS_KINDS), sorted(sets)
    for name in KERNELS:
        p = sets[name]["params"]
        assert p["ops_per_iter"] == 16
        assert ("insns_per_iter" in p) == (name in FIXED_PATH), name
        assert p["outcome"] == ("random" if name.endswith("_random") else "fixed"
                                if name in ("branch", "indirect") else "none")
    assert sets["ctx_switch"]["params"]["ops_per_iter"] == 2
    assert not [s for s in summary.get("skips") or [] if s.get("probe") == "prim"
                and s.get("prim")], "an OS primitive was skipped under Linux"
    coefs = prim_costs.coefficients(summary)
    want = {"op_ns." + k for k in KERNELS + OS_KINDS if not k.endswith("_random")}
    want |= {"op_ns.branch_miss", "op_ns.indirect_miss"}
    assert set(coefs) == want, _pair_facts(sets)
    for name, c in coefs.items():
        assert c["value"] > 0 and c["lo"] <= c["value"] <= c["hi"], (name, c)
    return sets, coefs


def test_native_structure(native):
    _structure(native)


def test_native_dependent_add_is_one_core_cycle(native):
    chk = {c["check"]: c for c in prim_costs.checks(native)}
    assert "dep_add_core_cycles" in chk, "the int_dep set carries no core clock"
    assert chk["dep_add_core_cycles"]["status"] == "pass", chk["dep_add_core_cycles"]


def test_native_random_branches_cost_more(native):
    _, coefs = _structure(native)
    assert coefs["op_ns.branch_miss"]["value"] > 2 * coefs["op_ns.branch"]["value"]
    assert coefs["op_ns.indirect_miss"]["value"] > 2 * coefs["op_ns.indirect"]["value"]


def test_aarch64_structure_under_qemu_user(a64):
    sets, _ = _structure(a64)
    assert all(s["tsc_hz"] for s in sets.values())
