"""Known answers for the QEMU CPU model boots (test_cpu_models.py): the cache records each model's
firmware boot must give, derived without the firmware's own decoder.

x86: the model's CPUID as QEMU's user-mode emulator gives it (tools/cpuid_dump.c run under
`qemu-x86_64 -cpu MODEL`, Debian qemu-user; the same CPU model code as the system emulator),
decoded here from the vendors' manuals:
  - Intel SDM vol. 2A, CPUID leaf 04H "Deterministic Cache Parameters" (Table 3-8): EAX[4:0] type
    (1 data, 2 instruction, 3 unified, 0 no more), EAX[7:5] level, EAX[9] fully associative,
    EAX[25:14] logical processors sharing - 1; EBX[11:0] line - 1, EBX[21:12] partitions - 1,
    EBX[31:22] ways - 1; ECX sets - 1; size = ways x partitions x line x sets.
  - AMD APM vol. 3 (24594) appendix E: Fn8000_001D "Cache Topology Information" has leaf 4's
    layout and is reserved unless Fn8000_0001 ECX[22] TopologyExtensions is set; Fn8000_0005
    ECX/EDX (L1 data / instruction: size KiB [31:24], associativity [23:16] with FFh = fully,
    line [7:0]); Fn8000_0006 ECX (L2: size KiB [31:16], associativity code [15:12], line [7:0])
    and EDX (L3: size in 512 KiB units [31:18], associativity code [15:12], line [7:0]), the
    codes in the table "L2/L3 Cache and TLB Associativity Field Encoding".
  Which leaves describe the caches: Intel's leaf 4 where the maximum standard leaf reaches it;
  else (AMD) 0x8000001D where TopologyExtensions says it is valid; else 0x80000005/6.
  Models QEMU 7.2 lacks (QEMU 10 boots) have no user-mode emulator here: their known answer is
  QEMU 10.0's model definition (QEMU_10_X86 below).

AArch64: CLIDR_EL1 and CCSIDR_EL1 are EL1 registers (no user-mode reading), so the values are
those QEMU 7.2 gives each model (target/arm/cpu64.c at tag v7.2.0: aarch64_a57_initfn,
aarch64_a53_initfn, aarch64_a72_initfn, aarch64_a76_initfn, aarch64_neoverse_n1_initfn, and
aarch64_max_tcg_initfn, which starts from the A57's caches and clears CLIDR_EL1.LoUIS/LoUU for
FEAT_S2FWB), each copied from the core's Technical Reference Manual (the A76's says
"From B2.18 CCSIDR_EL1", the N1's "From B2.23"), decoded per the Arm ARM (DDI 0487) D19.2: CLIDR_EL1.Ctype<n> [3n+2:3n]
(1 instruction only, 2 data only, 3 separate, 4 unified, 0 none and none further out); CCSIDR_EL1
without FEAT_CCIDX: LineSize [2:0] = log2(bytes) - 4, Associativity [12:3] = ways - 1, NumSets
[27:13] = sets - 1, with FEAT_CCIDX Associativity [23:3] and NumSets [55:32]; selected by
CSSELR_EL1 = (level - 1) << 1 | InD. QEMU 7.2 has no neoverse-v1: its values are QEMU 10.0's."""

import os
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
CPUID_DUMP_SRC = os.path.join(HERE, "tools", "cpuid_dump.c")

# ---- x86 ----------------------------------------------------------------------------------------

LEAF_CACHE_PARAMS = 0x4
LEAF_EXT_FEATURES = 0x80000001
LEAF_AMD_L1 = 0x80000005
LEAF_AMD_L2L3 = 0x80000006
LEAF_AMD_CACHE_TOPO = 0x8000001D
ECX_TOPOEXT = 1 << 22
DET_TYPES = {1: "data", 2: "inst", 3: "unified"}
# APM: L2/L3 associativity field encoding (0 disabled, 7 and 9 reserved / "see 0x8000001D",
# F fully associative); the records give a fully associative cache 0 ways.
AMD_ASSOC = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 8: 16, 0xA: 32, 0xB: 48, 0xC: 64, 0xD: 96, 0xE: 128, 0xF: 0}
AMD_L1_FULLY = 0xFF


def bits(v, lo, hi):
    return (v >> lo) & ((1 << (hi - lo + 1)) - 1)


def build_cpuid_dump(out_dir):
    """Compile tools/cpuid_dump.c (static, so qemu-x86_64 needs no library path). Returns the
    binary, or None and the reason."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if not cc:
        return None, "no C compiler to build tools/cpuid_dump.c"
    exe = os.path.join(out_dir, "cpuid_dump")
    p = subprocess.run([cc, "-O2", "-static", "-o", exe, CPUID_DUMP_SRC], capture_output=True, text=True)
    if p.returncode != 0:
        return None, "building cpuid_dump failed: %s" % p.stderr.strip()[-300:]
    return exe, None


def user_cpuid(exe, model, qemu_user="qemu-x86_64"):
    """{(leaf, subleaf): (eax, ebx, ecx, edx)} of `model` under QEMU's user-mode emulator."""
    p = subprocess.run([qemu_user, "-cpu", model, exe], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise RuntimeError("%s -cpu %s: rc %d %s" % (qemu_user, model, p.returncode, p.stderr.strip()[-300:]))
    leaves = {}
    for line in p.stdout.splitlines():
        f = line.split()
        leaves[(int(f[0], 16), int(f[1]))] = tuple(int(x, 16) for x in f[2:6])
    return leaves


def vendor(leaves):
    _, b, c, d = leaves[(0, 0)]
    return b"".join(x.to_bytes(4, "little") for x in (b, d, c)).decode("ascii")


def _deterministic(leaves, leaf, source):
    out = []
    for sub in range(16):
        a, b, c, _ = leaves.get((leaf, sub), (0, 0, 0, 0))
        if bits(a, 0, 4) == 0:
            break
        line, parts, ways, sets = bits(b, 0, 11) + 1, bits(b, 12, 21) + 1, bits(b, 22, 31) + 1, c + 1
        out.append({"level": bits(a, 5, 7), "type": DET_TYPES[bits(a, 0, 4)], "size": ways * parts * line * sets,
                    "line": line, "ways": 0 if bits(a, 9, 9) else ways, "sets": sets,
                    "shared_by": bits(a, 14, 25) + 1, "source": source})
    return out


def _legacy_amd(leaves):
    out = []
    max_ext = leaves[(0x80000000, 0)][0]

    def add(level, kind, size, line, ways):
        if size:  # a size of 0: no such cache
            out.append({"level": level, "type": kind, "size": size, "line": line, "ways": ways,
                        "sets": size // (ways * line) if ways and line else 0,
                        "source": "cpuid%x" % (LEAF_AMD_L1 if level == 1 else LEAF_AMD_L2L3)})

    if max_ext >= LEAF_AMD_L1:
        _, _, c, d = leaves[(LEAF_AMD_L1, 0)]
        for kind, r in (("data", c), ("inst", d)):
            assoc = bits(r, 16, 23)
            add(1, kind, bits(r, 24, 31) << 10, bits(r, 0, 7), 0 if assoc == AMD_L1_FULLY else assoc)
    if max_ext >= LEAF_AMD_L2L3:
        _, _, c, d = leaves[(LEAF_AMD_L2L3, 0)]
        add(2, "unified", bits(c, 16, 31) << 10, bits(c, 0, 7), AMD_ASSOC.get(bits(c, 12, 15), 0))
        add(3, "unified", bits(d, 18, 31) * (512 << 10), bits(d, 0, 7), AMD_ASSOC.get(bits(d, 12, 15), 0))
    return out


def x86_caches(leaves):
    """The cache records a firmware reading these CPUID leaves must emit (see the module doc)."""
    max_std, max_ext = leaves[(0, 0)][0], leaves[(0x80000000, 0)][0]
    v = vendor(leaves)
    if v == "GenuineIntel" and max_std >= LEAF_CACHE_PARAMS:
        found = _deterministic(leaves, LEAF_CACHE_PARAMS, "cpuid4")
        if found:
            return found
    if v == "AuthenticAMD" and max_ext >= LEAF_AMD_CACHE_TOPO and leaves[(LEAF_EXT_FEATURES, 0)][2] & ECX_TOPOEXT:
        found = _deterministic(leaves, LEAF_AMD_CACHE_TOPO, "cpuid8000001d")
        if found:
            return found
    return _legacy_amd(leaves)


def x86_ident(leaves):
    """What the firmware's plat kind=cpu says of the same leaves: vendor, the maximum standard and
    extended leaves, family/model/stepping from leaf 1 EAX (SDM vol. 2A, CPUID 01H: the extended
    family adds when the family is 0Fh, the extended model when it is 06h or 0Fh)."""
    a = leaves[(1, 0)][0]
    fam, model = bits(a, 8, 11), bits(a, 4, 7)
    if fam == 0xF:
        fam += bits(a, 20, 27)
    if bits(a, 8, 11) in (0x6, 0xF):
        model |= bits(a, 16, 19) << 4
    return {"vendor": vendor(leaves), "max_leaf": leaves[(0, 0)][0], "max_ext_leaf": leaves[(0x80000000, 0)][0],
            "family": fam, "model": model, "stepping": bits(a, 0, 3)}


# QEMU 10.0 models (no user-mode emulator of that version here): their caches as QEMU 10.0.2's
# target/i386/cpu.c defines them, in the leaves the firmware reads under TCG.
#  - SapphireRapids (-v1..-v3) carries no .cache_info in 10.0 (xeon_spr_cache_info arrived after
#    10.0), so leaf 4 gives QEMU's legacy Intel caches, the same ones as every older Intel model:
#    legacy_l1d_cache / legacy_l1i_cache 32 KiB 8-way 64 sets, legacy_l2_cache 4 MiB 16-way 4096
#    sets, legacy_l3_cache 16 MiB 16-way 16384 sets, 64-byte lines, each shared by 1 with -smp 1.
#  - EPYC-Genoa: epyc_genoa_cache_info (L1d 32 KiB 8-way, L1i 32 KiB 8-way, L2 1 MiB 8-way,
#    L3 32 MiB 16-way, 64-byte lines); TCG drops TopologyExtensions (as for every EPYC model
#    here), so 0x80000005/6 encode them.
def _rec(level, kind, size, ways, source, shared_by=None, line=64):
    r = {"level": level, "type": kind, "size": size, "line": line, "ways": ways, "sets": size // (ways * line),
         "source": source}
    if shared_by is not None:
        r["shared_by"] = shared_by
    return r


KIB, MIB = 1 << 10, 1 << 20
QEMU_10_X86 = {
    "SapphireRapids": [_rec(1, "data", 32 * KIB, 8, "cpuid4", 1), _rec(1, "inst", 32 * KIB, 8, "cpuid4", 1),
                       _rec(2, "unified", 4 * MIB, 16, "cpuid4", 1), _rec(3, "unified", 16 * MIB, 16, "cpuid4", 1)],
    "EPYC-Genoa": [_rec(1, "data", 32 * KIB, 8, "cpuid80000005"), _rec(1, "inst", 32 * KIB, 8, "cpuid80000005"),
                   _rec(2, "unified", 1 * MIB, 8, "cpuid80000006"), _rec(3, "unified", 32 * MIB, 16, "cpuid80000006")],
}

# ---- AArch64 ------------------------------------------------------------------------------------

# model: (CLIDR_EL1, {CSSELR_EL1 value: CCSIDR_EL1}, CTR_EL0, DCZID_EL0), QEMU 7.2 (module doc).
_A57_CCSIDR = {0: 0x701FE00A, 1: 0x201FE012, 2: 0x70FFE07A}  # 32 KiB L1D, 48 KiB L1I, 2 MiB L2
_A76_CCSIDR = {0: 0x701FE01A, 1: 0x201FE01A, 2: 0x707FE03A}  # 64 KiB L1D, 64 KiB L1I, 512 KiB L2
_N1_CCSIDR = {0: 0x701FE01A, 1: 0x201FE01A, 2: 0x70FFE03A}  # the same L1s, 1 MiB L2 (8-way, 2048 sets)
A64_MODELS = {
    "cortex-a53": (0x0A200023, {0: 0x700FE01A, 1: 0x201FE00A, 2: 0x707FE07A}, 0x84448004, 0x4),
    "cortex-a57": (0x0A200023, _A57_CCSIDR, 0x8444C004, 0x4),
    "cortex-a72": (0x0A200023, {0: 0x701FE00A, 1: 0x201FE012, 2: 0x707FE07A}, 0x8444C004, 0x4),
    "cortex-a76": (0x82000023, _A76_CCSIDR, 0x8444C004, 0x4),
    "neoverse-n1": (0x82000023, _N1_CCSIDR, 0x8444C004, 0x4),
    # max: the A57's caches; CLIDR_EL1.LoUIS [23:21] and LoUU [29:27] cleared (FEAT_S2FWB). Its
    # CTR_EL0 gains DIC/IDC and other fields with the features max adds: not pinned here.
    "max": (0x0A200023 & ~(7 << 21) & ~(7 << 27), _A57_CCSIDR, None, 0x4),
    # QEMU 10.0 (target/arm/tcg/cpu64.c, aarch64_neoverse_v1_initfn, from the Neoverse-V1 TRM):
    # FEAT_CCIDX, so CCSIDR_EL1 in the 64-bit layout: L1D and L1I 64 KiB 4-way, L2 1 MiB 8-way,
    # 64-byte lines (make_ccsidr(CCSIDR_FORMAT_CCIDX, ...)); CTR_EL0 with DIC and IDC set.
    "neoverse-v1": (0x82000023, {0: 0x000000FF0000001A, 1: 0x000000FF0000001A, 2: 0x000007FF0000003A},
                    0xB444C004, 0x4),
}
A64_CCIDX = {"neoverse-v1"}  # ID_AA64MMFR2_EL1.CCIDX != 0: CCSIDR_EL1's 64-bit layout
A64_CTYPES = {1: ("inst",), 2: ("data",), 3: ("inst", "data"), 4: ("unified",)}


def a64_ccsidr(v, ccidx=False):
    """FEAT_CCIDX's layout: Associativity [23:3], NumSets [55:32]."""
    line = 1 << (bits(v, 0, 2) + 4)
    if ccidx:
        ways, sets = bits(v, 3, 23) + 1, bits(v, 32, 55) + 1
    else:
        ways, sets = bits(v, 3, 12) + 1, bits(v, 13, 27) + 1
    return {"line": line, "ways": ways, "sets": sets, "size": line * ways * sets}


def a64_caches(model):
    clidr, ccsidr, _, _ = A64_MODELS[model]
    out = []
    for n in range(7):
        ctype = bits(clidr, 3 * n, 3 * n + 2)
        if ctype == 0:
            break
        for kind in A64_CTYPES[ctype]:
            g = a64_ccsidr(ccsidr[n << 1 | (kind == "inst")], model in A64_CCIDX)
            out.append(dict(g, level=n + 1, type=kind, source="ccsidr"))
    return out


def a64_ctr(ctr, dczid):
    """CTR_EL0 (Arm ARM D19.2: IminLine [3:0], DminLine [19:16], ERG [23:20], CWG [27:24], each
    log2 of 4-byte words, 0 = not given for ERG/CWG) and DCZID_EL0 (BS [3:0] log2 words, DZP [4])."""
    words = lambda f: 4 << f  # noqa: E731
    return {"iminline": words(bits(ctr, 0, 3)), "dminline": words(bits(ctr, 16, 19)),
            "erg": words(bits(ctr, 20, 23)) if bits(ctr, 20, 23) else 0,
            "cwg": words(bits(ctr, 24, 27)) if bits(ctr, 24, 27) else 0,
            "zva_block": words(bits(dczid, 0, 3)), "zva_prohibited": bits(dczid, 4, 4)}


def cache_key(c):
    return (c["level"], c["type"])
