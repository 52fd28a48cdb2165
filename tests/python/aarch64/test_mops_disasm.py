"""The FEAT_MOPS kernels (arch/aarch64/mops.S) are written as .inst words: check that objdump
decodes each word to the instruction its comment names (CPYP/CPYM/CPYE, SETP/SETM/SETE with the
kernel's registers, in prologue-main-epilogue order), that the words equal the Arm ARM's layout
(sz 011 o0 01 op1 0 Rs op2 01 Rn Rd) computed here, and — where the assembler knows FEAT_MOPS —
what it assembles from the mnemonics. Skipped without the aarch64 cross tools."""

import os
import re
import shutil
import subprocess

import pytest
import disasm

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
CC, OBJDUMP = "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-objdump"

# kernel -> the three MOPS instructions in order, as objdump prints them
EXPECT = {
    "bw_write_mops": ["setp\t[x9]!, x10!, x11", "setm\t[x9]!, x10!, x11", "sete\t[x9]!, x10!, x11"],
    "bw_copy_mops": ["cpyp\t[x9]!, [x8]!, x10!", "cpym\t[x9]!, [x8]!, x10!", "cpye\t[x9]!, [x8]!, x10!"],
    "a64_mops_probe": ["setp\t[x0]!, x1!, x2", "setm\t[x0]!, x1!, x2", "sete\t[x0]!, x1!, x2"],
}


def arm_arm_word(insn):
    """The encoding of one MOPS instruction from the Arm ARM's field layout."""
    m = re.fullmatch(r"(set|cpy)([pme])\t\[x(\d+)\]!, (?:\[x(\d+)\]!|x(\d+)!), x(\d+)!?", insn)
    kind, stage, rd = m.group(1), "pme".index(m.group(2)), int(m.group(3))
    if kind == "set":  # SETP [Xd]!, Xn!, Xs: o0=0, op1=11, op2 = 0000/0100/1000
        rn, rs = int(m.group(5)), int(m.group(6))
        return 0x19000000 | 3 << 22 | rs << 16 | (stage * 4) << 12 | 1 << 10 | rn << 5 | rd
    rs, rn = int(m.group(4)), int(m.group(6))  # CPYP [Xd]!, [Xs]!, Xn!: o0=1, op1 = 00/01/10
    return 0x1D000000 | stage << 22 | rs << 16 | 1 << 10 | rn << 5 | rd


def disassemble(obj):
    return disasm.disassemble(obj, objdump=OBJDUMP, relocs=False, raw=True)


@pytest.fixture(scope="module")
def mops(tmp_path_factory):
    if not shutil.which(CC) or not shutil.which(OBJDUMP):
        pytest.skip("the aarch64 cross tools are not installed")
    obj = str(tmp_path_factory.mktemp("mops") / "mops.o")
    subprocess.run([CC, "-c", os.path.join(ROOT, "arch/aarch64/mops.S"), "-o", obj], check=True)
    return disassemble(obj)


def test_kernels_are_the_mops_triples(mops):
    for name, want in EXPECT.items():
        body = mops.get(name)
        assert body, "%s missing" % name
        got = [(w, t) for w, t in body if re.match(r"(set|cpy)[pme]\t", t)]
        assert [t for _, t in got] == want, (name, got)
        for w, t in got:
            assert w == arm_arm_word(t), (name, t, hex(w), hex(arm_arm_word(t)))
    # the probe's SETP is its first instruction: the vectors recognise a fault by ELR there
    assert mops["a64_mops_probe"][0][1] == EXPECT["a64_mops_probe"][0]
    # each kernel loops over its passes and returns
    for name in ("bw_write_mops", "bw_copy_mops"):
        texts = [t for _, t in mops[name]]
        assert any(t.startswith("subs\tx3, x3, #0x1") for t in texts) and any(t.startswith("b.ne") for t in texts)
        assert "ret" in texts


def test_words_match_the_assembler(tmp_path, mops):
    src = tmp_path / "m.S"
    src.write_text("".join("\t%s\n" % t for want in EXPECT.values() for t in want))
    obj = str(tmp_path / "m.o")
    res = subprocess.run([CC, "-march=armv8.8-a", "-c", str(src), "-o", obj], capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip("this assembler does not know FEAT_MOPS: %s" % res.stderr.strip()[:120])
    words = [w for body in disassemble(obj).values() for w, _ in body]
    if not words:  # no symbol: objdump lists the section under its name
        out = subprocess.run([OBJDUMP, "-d", obj], check=True, capture_output=True, text=True).stdout
        words = [int(m.group(1), 16) for m in re.finditer(r"^\s+[0-9a-f]+:\t([0-9a-f]{8})", out, re.M)]
    ours = [arm_arm_word(t) for want in EXPECT.values() for t in want]
    assert words == ours
