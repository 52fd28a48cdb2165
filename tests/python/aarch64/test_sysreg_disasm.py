"""The guarded system-register stubs (arch/aarch64/sysreg_stubs.S, built from the rows of
arch/aarch64/sysreg_table.h): assemble them with the cross compiler and let objdump — a decoder
independent of our table — name the register each stub accesses. Every row's read stub must be
`mrs x2, <name>` and its write stub `msr <name>, x0`, the access first (the EL1 vectors recognise
a fault by ELR = a stub's first instruction), stubs 16 bytes apart in table order. Skipped when
the cross tools are not installed (make installs them for ARCH=aarch64)."""

import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
CC, OBJDUMP, NM = "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-objdump", "aarch64-linux-gnu-nm"
TABLE = os.path.join(ROOT, "arch", "aarch64", "sysreg_table.h")
STUB_BYTES = 16
ROW = re.compile(r"\bX\((\w+),\s*(\w+),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+),")


def table_rows():
    rows = [m.groups() for m in ROW.finditer(open(TABLE).read())]
    return [(ident, name, tuple(int(x) for x in enc)) for ident, name, *enc in rows]


def disassemble(obj):
    out = subprocess.run([OBJDUMP, "-d", obj], check=True, capture_output=True, text=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:", line)
        if m:
            cur = m.group(2)
            funcs[cur] = {"addr": int(m.group(1), 16), "insns": []}
        elif cur and "\t" in line:
            parts = line.split("\t")
            funcs[cur]["insns"].append((parts[1].strip(), " ".join(p.strip() for p in parts[2:]).strip()))
    return funcs


@pytest.fixture(scope="module")
def stubs(tmp_path_factory):
    if not shutil.which(CC) or not shutil.which(OBJDUMP):
        pytest.skip("the aarch64 cross tools are not installed")
    obj = str(tmp_path_factory.mktemp("sr") / "sysreg_safe.o")
    subprocess.run([CC, "-I", ROOT, "-I", os.path.join(ROOT, "arch/aarch64/include"), "-c", os.path.join(ROOT, "arch/aarch64/sysreg_stubs.S"), "-o", obj],
                   check=True)
    return disassemble(obj)


def test_table_parsed():
    rows = table_rows()
    assert len(rows) >= 25
    names = [r[1] for r in rows]
    assert len(set(names)) == len(names)
    assert "pmcr_el0" in names and "amevcntr00_el0" in names and "cntvctss_el0" in names


def word(op0, op1, crn, crm, op2, rt, read):
    """MRS/MSR (register) as the Arm ARM lays it out: 1101010100 L 1 o0 op1 CRn CRm op2 Rt."""
    return (0xD5000000 | (1 << 21 if read else 0) | op0 << 19 | op1 << 16 | crn << 12 | crm << 8
            | op2 << 5 | rt)


def test_read_stubs_name_their_register(stubs):
    rows = table_rows()
    base = stubs["a64_sr_rd_" + rows[0][1]]["addr"]
    for i, (_, name, enc) in enumerate(rows):
        f = stubs.get("a64_sr_rd_" + name)
        assert f, "no read stub for %s" % name
        assert f["addr"] == base + i * STUB_BYTES, name
        raw, first = f["insns"][0]
        assert re.fullmatch(r"mrs\s+x2, %s" % name, first), (name, first)
        assert int(raw, 16) == word(*enc, rt=2, read=True), (name, raw)
        assert len(f["insns"]) == STUB_BYTES // 4
        assert f["insns"][-1][1] == "ret"


def test_write_stubs_name_their_register(stubs):
    rows = table_rows()
    base = stubs["a64_sr_wr_" + rows[0][1]]["addr"]
    for i, (_, name, enc) in enumerate(rows):
        f = stubs.get("a64_sr_wr_" + name)
        assert f, "no write stub for %s" % name
        assert f["addr"] == base + i * STUB_BYTES, name
        raw, first = f["insns"][0]
        assert re.fullmatch(r"msr\s+%s, x0" % name, first), (name, first)
        assert int(raw, 16) == word(*enc, rt=0, read=False), (name, raw)
        assert f["insns"][1][1] == "isb" and f["insns"][-1][1] == "ret"
