"""Probe `prim` on bare-metal x86_64 (QEMU TCG, OVMF, -icount: configs.py icount).
TCG's x86 has no PMU, but under -icount the TSC counts guest instructions (QEMU's icount: one
instruction, one step of virtual time), so each fixed-path kernel's time per iteration over its
static instruction count (arch/x86_64/include/cpu/prim_ops.h) must be the same for every kernel:
the known answer, within 2% (the runner's overhead is taken off; what is left is the timing reads'
own instructions spread over the iterations). The OS primitives: a skip each, with the reason."""

from bmharness.analysis import prim_costs

FIXED_PATH = ("int_dep", "int_indep", "load", "store", "branch", "indirect", "call", "fp_add")
OS_KINDS = ("syscall", "page_fault", "ctx_switch")
SAME_WITHIN = 0.02


def test_time_per_instruction_is_the_same_for_every_kernel(icount):
    b = icount
    assert not b.run["timed_out"] and b.summary["ok"], b.summary["validation"]["problems"]
    sets = prim_costs.prim_sets(b.summary)
    per_insn = {}
    for name in FIXED_PATH:
        s = sets[name]
        p = s["params"]
        per_insn[name] = s["stats"]["per_op"]["median"] / p["insns_per_iter"]
    ref = per_insn["int_dep"]
    assert ref > 0
    off = {n: v / ref - 1 for n, v in per_insn.items() if abs(v / ref - 1) > SAME_WITHIN}
    assert not off, (off, per_insn)


def test_os_primitives_skipped_with_reason(icount):
    skips = {s.get("prim"): s for s in icount.summary["skips"] if s.get("probe") == "prim"}
    for kind in OS_KINDS:
        assert kind in skips and "bare metal" in skips[kind]["reason"], skips
