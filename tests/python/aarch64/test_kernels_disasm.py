"""The AArch64-only bandwidth kernels (arch/aarch64/membw.S: load/store pair, DC ZVA, SVE; and
simd.S's SVE vector-length read) do what their names and `insn` parameters say: assemble the file
with the cross compiler and check each kernel's disassembly for its instructions, so no kernel is
an empty loop or the wrong access. Skipped when the cross tools are not installed (make installs them for ARCH=aarch64)."""

import os
import re
import shutil
import subprocess

import pytest
import disasm

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
CC, OBJDUMP = "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-objdump"

# kernel symbol -> (instructions that must appear, instructions that must not)
EXPECT = {
    "bw_read_pair64": ([r"ldp\s+x11, x12, \[x8, #240\]"], [r"\bstr?\b", r"\bstp\b"]),
    "bw_write_pair64": ([r"stp\s+x3, x3, \[x9, #240\]"], [r"\bldp\b", r"\bldr\b"]),
    "bw_copy_pair64": ([r"ldp\s+x11, x12", r"stp\s+x11, x12, \[x9, #240\]"], []),
    "bw_read_pair128": ([r"ldp\s+q0, q1, \[x8, #224\]"], [r"\bstp\b"]),
    "bw_write_pair128": ([r"stp\s+q0, q0, \[x9, #224\]"], [r"\bldp\b"]),
    "bw_copy_pair128": ([r"ldp\s+q0, q1", r"stp\s+q0, q1, \[x9, #224\]"], []),
    "bw_write_zva": ([r"mrs\s+x12, dczid_el0", r"dc\s+zva, x9"], [r"\bstr\b", r"\bstp\b"]),
    # SVE: the 4-vector body under ptrue (vector-scaled offsets), then the whilelo-predicated tail
    "bw_read_sve": ([r"ptrue\s+p1\.d", r"ld1d\s+\{z3\.d\}, p1/z, \[x8, #3, mul vl\]", r"addvl\s+x8, x8, #4",
                     r"whilelo\s+p0\.d", r"ld1d\s+\{z0\.d\}, p0/z, \[x1, x10, lsl #3\]", r"b\.(first|mi)"],
                    [r"st1d", r"stnt1d"]),
    "bw_write_sve": ([r"st1d\s+\{z4\.d\}, p1, \[x9, #3, mul vl\]", r"st1d\s+\{z4\.d\}, p0, \[x0, x10"], [r"ld1d"]),
    "bw_copy_sve": ([r"ld1d\s+\{z3\.d\}, p1/z", r"st1d\s+\{z3\.d\}, p1", r"st1d\s+\{z0\.d\}, p0"], [r"stnt1d"]),
    "bw_write_nt_sve": ([r"stnt1d\s+\{z4\.d\}, p1, \[x9, #3, mul vl\]", r"stnt1d\s+\{z4\.d\}, p0"],
                        [r"ld1d", r"\bst1d"]),
    "bw_copy_nt_sve": ([r"ld1d\s+\{z3\.d\}, p1/z", r"stnt1d\s+\{z3\.d\}, p1", r"stnt1d\s+\{z0\.d\}, p0"],
                       [r"\bst1d"]),
}


def disassemble(obj):
    return disasm.disassemble(obj, objdump=OBJDUMP, relocs=False)


# The SVE vector-length read the SVE kernels' vl_bits come from (arch/aarch64/simd.S).
EXPECT_SIMD = {
    "arch_sve_vl_bytes": ([r"rdvl\s+x0, #1"], []),
}


@pytest.mark.parametrize("source, expect", [("arch/aarch64/membw.S", EXPECT), ("arch/aarch64/simd.S", EXPECT_SIMD)])
def test_a64_kernels_do_their_work(tmp_path, source, expect):
    if not shutil.which(CC) or not shutil.which(OBJDUMP):
        pytest.skip("the aarch64 cross tools are not installed")
    obj = str(tmp_path / "kernels.o")
    subprocess.run([CC, "-c", os.path.join(ROOT, source), "-o", obj], check=True)
    funcs = disassemble(obj)
    for name, (want, refuse) in expect.items():
        body = funcs.get(name)
        assert body, "kernel %s missing" % name
        text = "\n".join(body)
        for w in want:
            assert re.search(w, text), "%s lacks %s:\n%s" % (name, w, text)
        for r in refuse:
            assert not re.search(r, text), "%s has %s:\n%s" % (name, r, text)
        insns = [b for b in body if b != "nop"]  # .balign padding after the previous kernel
        assert insns[-1].startswith("ret"), name
