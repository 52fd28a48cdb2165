"""Probe `prim` on bare-metal AArch64 (QEMU TCG, AAVMF, -icount shift=0: configs.py a64el2pmu),
where the PMU's instruction counter counts exactly: each kernel with a fixed path retires its
static instruction count per iteration (arch/aarch64/include/cpu/prim_ops.h, counted in
arch/aarch64/prim_ops.S), the known answer of analysis/prim_costs.checks within half an
instruction per iteration after the counter reads' own overhead. The OS primitives have no OS
here: each is a skip with the reason, never a zero."""

from bmharness.analysis import prim_costs

FIXED_PATH = ("int_dep", "int_indep", "load", "store", "branch", "indirect", "call", "fp_add")
OS_KINDS = ("syscall", "page_fault", "ctx_switch")


def test_instructions_per_iteration_are_the_static_counts(a64el2pmu):
    b = a64el2pmu
    assert not b.run["timed_out"] and b.summary["ok"], b.summary["validation"]["problems"]
    sets = prim_costs.prim_sets(b.summary)
    assert set(FIXED_PATH) <= set(sets), sorted(sets)
    chk = {c["check"]: c for c in prim_costs.checks(b.summary, emulated=True)}
    for name in FIXED_PATH:
        c = chk.get("insns_per_iter." + name)
        assert c, "no instruction count for %s: %s" % (name, sets[name].get("counters"))
        assert c["status"] == "pass", c
    assert "dep_add_pmu_cycles" not in chk  # TCG's cycle counter is emulated time


def test_os_primitives_skipped_with_reason(a64el2pmu):
    skips = {s.get("prim"): s for s in a64el2pmu.summary["skips"] if s.get("probe") == "prim"}
    for kind in OS_KINDS:
        assert kind in skips and "bare metal" in skips[kind]["reason"], skips
