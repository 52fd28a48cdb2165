"""AArch64 caches and memory kernels (issue 12): one boot of the USB image under
qemu-system-aarch64 -machine virt,gic-version=3 -cpu max (TCG: SVE, DC ZVA, no caches) running
`membw` (every kernel) and `cachefill`, small sweep, few samples (~15 s). Checks the cache records
(CLIDR/CCSIDR geometry, CTR_EL0 and DCZID_EL0 decoded, consistent with the raw registers), SVE
enabled exactly when ID_AA64PFR0_EL1 says the CPU has it, the AArch64 kernel sets (load/store
pair, DC ZVA, SVE) complete over the sweep or skipped with a reason, and the cache fill's data and
instruction chains (generated code, DC CVAU / IC IVAU) timed cold and warm for every cache.
Structure and sanity ranges only: under TCG the numbers are emulation numbers."""

import os

from bmharness import stats
from bmharness.stream import parse
from conftest import check_core_clock_sets

from configs import CONFIGS  # the boot configurations (configs.py)

OPTS = CONFIGS["a64mem"].options
SAMPLES = OPTS["samples"]
MEM_MAX_MB = OPTS["mem_max_mb"]
SVE_VL_MAX_BITS = 2048
# (kernel, width, insn) of arch/aarch64/simd.c's table
PAIR_KERNELS = [("read", "pair64", "ldp_x"), ("write", "pair64", "stp_x"), ("copy", "pair64", "ldp_x,stp_x"),
                ("read", "pair128", "ldp_q"), ("write", "pair128", "stp_q"), ("copy", "pair128", "ldp_q,stp_q")]
SVE_KERNELS = [("read", "sve", "ld1d"), ("write", "sve", "st1d"), ("copy", "sve", "ld1d,st1d"),
               ("write_nt", "sve", "stnt1d"), ("copy_nt", "sve", "ld1d,stnt1d")]
ZVA_KERNEL = ("write", "zva", "dc_zva")


def as_list(x):
    return x if isinstance(x, list) else [x]


def pow2(n):
    return n > 0 and n & (n - 1) == 0


def test_run_completes(a64mem):
    v = a64mem.summary["validation"]
    assert not a64mem.run["timed_out"] and a64mem.run["exit_code"] == 0
    assert a64mem.summary["ok"], v
    assert v["complete"] and not v["corrupt"] and not v["missing"]
    assert a64mem.summary["end"]["status"] == "ok"
    assert a64mem.summary["faults"] == []  # generated code ran, no stray UDF, no trapped SVE / DC ZVA
    assert a64mem.summary["begin"]["arch"] == "aarch64"


def test_cache_records(a64mem):
    p = a64mem.summary["platform"]
    caches = as_list(p["cache"])
    ident = as_list(p["aarch64_id"])[0]
    levels = sorted({c["level"] for c in caches})
    assert levels == list(range(1, len(levels) + 1))  # CLIDR: no gaps
    for c in caches:
        assert c["type"] in ("data", "inst", "unified") and c["source"] == "ccsidr"
        assert pow2(c["line"]) and 16 <= c["line"] <= 2048
        if c.get("geometry") == "unknown":  # a hypervisor's stand-in: no size, a reason
            assert "size" not in c and c["reason"], c
        else:
            assert c["size"] == c["line"] * c["ways"] * c["sets"], c
            assert not (c["ways"] == 1 and c["sets"] == 1), c
    ctl = as_list(p["cache_ctl"])[0]
    assert ctl["ctr"] == ident["ctr"]  # the same CTR_EL0 as the raw record
    ctr = int(ctl["ctr"], 16)
    assert ctl["iminline"] == 4 << (ctr & 0xF) and ctl["dminline"] == 4 << ((ctr >> 16) & 0xF)
    assert ctl["idc"] == (ctr >> 28) & 1 and ctl["dic"] == (ctr >> 29) & 1
    assert ctl["l1ip"] in ("vpipt", "aivivt", "vipt", "pipt")
    # CTR_EL0's minimum lines are no larger than any cache's line of that kind
    d_lines = [c["line"] for c in caches if c["type"] in ("data", "unified")]
    i_lines = [c["line"] for c in caches if c["type"] in ("inst", "unified")]
    assert ctl["dminline"] <= min(d_lines) and ctl["iminline"] <= min(i_lines)
    for g in ("cwg", "erg"):
        assert ctl[g] == 0 or (pow2(ctl[g]) and ctl[g] <= 2048)
    dczid = int(ctl["dczid"], 16)
    assert ctl["zva_block"] == 4 << (dczid & 0xF) and ctl["zva_prohibited"] == (dczid >> 4) & 1
    assert 16 <= ctl["zva_block"] <= 2048
    assert ctl["ccidx"] == int((int(ident["id_aa64mmfr2"], 16) >> 20) & 0xF != 0)


def test_sve_enabled_when_present(a64mem):
    p = a64mem.summary["platform"]
    ident = as_list(p["aarch64_id"])[0]
    simd = as_list(p["simd"])[0]
    present = (int(ident["id_aa64pfr0"], 16) >> 32) & 0xF != 0
    assert simd["sve_present"] == int(present)
    assert simd["w64"] == 1 and simd["w128"] == 1
    if present:
        assert simd["sve"] == 1
        assert simd["sve_vl_bits"] % 128 == 0 and 128 <= simd["sve_vl_bits"] <= SVE_VL_MAX_BITS
        if ident["el"] == 1:
            assert (int(simd["cpacr"], 16) >> 16) & 3 == 3  # CPACR_EL1.ZEN: SVE untrapped at EL1
    else:
        assert simd["sve"] == 0 and simd["sve_reason"]


def membw_sizes(a64mem):
    """The sweep's sizes, from the X-register read kernel (shared with x86)."""
    sizes = sorted(int(s["params"]["size"]) for s in a64mem.sets("membw", kernel="read", width=64))
    assert len(sizes) >= 4 and sizes[-1] == MEM_MAX_MB << 20
    return sizes


def skips_by_kernel(a64mem):
    return {(k.get("kernel"), str(k.get("width"))): k["reason"] for k in a64mem.summary["skips"]
            if k["probe"] == "membw" and "kernel" in k}


def check_kernel_sets(a64mem, kernel, width, insn, sizes):
    sets = a64mem.sets("membw", kernel=kernel, width=width)
    assert sorted(int(s["params"]["size"]) for s in sets) == sizes, (kernel, width)
    hz = a64mem.summary["platform"]["tsc"]["hz"]
    for s in sets:
        prm = s["params"]
        assert s["complete"] and s["n"] == s["received"] == SAMPLES
        assert prm["insn"] == insn
        r, w = (1, 0) if kernel == "read" else (0, 1) if kernel.startswith("write") else (1, 1)
        assert prm["read_bytes"] == r * prm["size"] and prm["write_bytes"] == w * prm["size"]
        values = parse.read_raw(os.path.join(a64mem.out_dir, "parsed", s["raw_file"]))[1]
        med = stats.median(values)
        gbps = prm["bytes_per_op"] * s["iters"] / (max(med - s["overhead"], 1) / hz) / 1e9
        assert 0.01 <= gbps <= 10000, (prm, gbps)
    return sets


def test_pair_kernels(a64mem):
    sizes = membw_sizes(a64mem)
    for k, w, insn in PAIR_KERNELS:
        check_kernel_sets(a64mem, k, w, insn, sizes)


def test_sve_kernels(a64mem):
    sizes = membw_sizes(a64mem)
    simd = as_list(a64mem.summary["platform"]["simd"])[0]
    skips = skips_by_kernel(a64mem)
    for k, w, insn in SVE_KERNELS:
        if simd["sve"]:
            for s in check_kernel_sets(a64mem, k, w, insn, sizes):
                assert s["params"]["vl_bits"] == simd["sve_vl_bits"]
            assert (k, w) not in skips
        else:
            assert not a64mem.sets("membw", kernel=k, width=w) and skips[(k, w)] == simd["sve_reason"]


def test_dc_zva(a64mem):
    ctl = as_list(a64mem.summary["platform"]["cache_ctl"])[0]
    k, w, insn = ZVA_KERNEL
    if ctl["zva_prohibited"]:
        assert "DZP" in skips_by_kernel(a64mem)[(k, w)] and not a64mem.sets("membw", kernel=k, width=w)
        return
    sizes = [s for s in membw_sizes(a64mem) if s % ctl["zva_block"] == 0]
    for s in check_kernel_sets(a64mem, k, w, insn, sizes):
        assert s["params"]["block"] == ctl["zva_block"]


def test_kernels_exact(a64mem):
    """Every AArch64 kernel that ran passed its known-answer check first (bench/probes/mem/membw_verify.c):
    stores rewrite every byte of the region, copies leave the source's bytes, loads and guards
    stay untouched."""
    checks = {(c["kernel"], str(c["width"])): c for c in a64mem.summary["checks"]
              if c["name"] == "membw_kernel_exact"}
    ran = {(s["params"]["kernel"], str(s["params"]["width"])) for s in a64mem.sets("membw")
           if "insn" in s["params"]}
    assert ran and set(checks) == ran
    for key, c in checks.items():
        assert c["status"] == "pass" and c["measured"] == 0 == c["expected"], c
        assert c["bytes"] % c["guard"] == 0 and c["bytes"] > 4096, c


def test_no_fixed_wide_registers(a64mem):
    """256/512-bit widths stay skips pointing at width=sve; rep kernels are x86's."""
    skips = skips_by_kernel(a64mem)
    for w in ("256", "512"):
        for k in ("read", "write", "copy", "write_nt", "copy_nt"):
            assert "width=sve" in skips[(k, w)]
            assert not a64mem.sets("membw", kernel=k, width=w)
    assert "rep stosb/movsb" in skips[("rep_stosb", "rep")]


def test_cachefill_data_and_instruction(a64mem):
    p = a64mem.summary["platform"]
    caches = as_list(p["cache"])
    assert p["alloc"]["exec_arena"] > 0
    # no probe or level skips (the counter skips, ctr_set=..., say the PMU is not ported yet)
    assert not [k for k in a64mem.summary["skips"] if k["probe"] == "cachefill" and "ctr_set" not in k]
    sets = a64mem.sets("cachefill")
    assert len(sets) == 2 * len(caches)
    for c in caches:
        got = [s for s in sets if s["params"]["level"] == c["level"] and s["params"]["type"] == c["type"]]
        assert sorted(s["params"]["state"] for s in got) == ["cold", "warm"], c
        for s in got:
            prm = s["params"]
            assert prm["size"] == c["size"] and prm["line"] == c["line"]
            assert s["iters"] == c["size"] // c["line"]  # one load / one branch per line
            assert prm["evict"] == "dc_civac"  # by address: set/way is never trusted on AArch64
            assert s["complete"] and s["n"] == s["received"] == SAMPLES
            values = parse.read_raw(os.path.join(a64mem.out_dir, "parsed", s["raw_file"]))[1]
            assert min(values) > 0  # a fill takes time
    assert any(s["params"]["type"] == "inst" for s in sets)  # the generated branch chain ran
    checks = [k for k in a64mem.summary["checks"] if k["name"] == "cold_slower_than_warm"]
    assert len(checks) == len(caches) and all(k["status"] == "skip" and k["reason"] for k in checks), checks


def test_core_clock_beside_every_set(a64mem):
    """The add chain ran beside every membw set (TCG's clock: no verdict on its rate)."""
    check_core_clock_sets(a64mem.sets("membw"))
