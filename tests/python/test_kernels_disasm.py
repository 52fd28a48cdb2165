"""The bandwidth kernels do what their names say: check the disassembly of the assembled kernels
and of the library-routine wrappers as the firmware build compiles them, so no kernel is an empty
loop and no compiler rewrote memset/memcpy behind our back."""

import os
import re
import shutil
import subprocess

import pytest

from disasm import disassemble

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# kernel symbol -> instruction that must appear in its body
EXPECT = {
    "bw_read_64": r"mov\s+0x8\(%r8\),%r11", "bw_write_64": r"mov\s+%rax,0x8\(%r9\)",
    "bw_copy_64": r"mov\s+%rax,0x10\(%r9\)", "bw_write_nt_64": r"movnti", "bw_copy_nt_64": r"movnti",
    "bw_read_128": r"movdqa\s+0x10\(%r8\),%xmm1", "bw_write_128": r"movdqa\s+%xmm0,",
    "bw_copy_128": r"movdqa\s+%xmm3,", "bw_write_nt_128": r"movntdq\s+%xmm0",
    "bw_copy_nt_128": r"movntdq\s+%xmm3", "bw_read_256": r"vmovdqa\s+0x20\(%r8\),%ymm1",
    "bw_write_256": r"vmovdqa\s+%ymm0,", "bw_copy_256": r"vmovdqa\s+%ymm3,",
    "bw_write_nt_256": r"vmovntdq\s+%ymm0", "bw_copy_nt_256": r"vmovntdq\s+%ymm3",
    "bw_read_512": r"vmovdqa64\s+0x40\(%r8\),%zmm1", "bw_write_512": r"vmovdqa64\s+%zmm0,",
    "bw_copy_512": r"vmovdqa64\s+%zmm3,", "bw_write_nt_512": r"vmovntdq\s+%zmm0",
    "bw_copy_nt_512": r"vmovntdq\s+%zmm3", "bw_rep_stosb": r"rep stos", "bw_rep_movsb": r"rep movsb",
    "arch_chase": r"mov\s+\(%rax\),%rax",
}


@pytest.fixture(scope="module")
def tools():
    if not shutil.which("gcc") or not shutil.which("objdump"):
        pytest.skip("gcc/objdump not installed")


def test_asm_kernels_do_their_work(tools, tmp_path):
    obj = str(tmp_path / "membw.o")
    subprocess.run(["gcc", "-c", os.path.join(ROOT, "arch/x86_64/membw.S"), "-o", obj], check=True)
    funcs = disassemble(obj)
    for name, insn in EXPECT.items():
        body = funcs.get(name)
        assert body, "kernel %s missing" % name
        text = "\n".join(body)
        assert re.search(insn, text), "%s lacks %s" % (name, insn)
        # a loop: a conditional branch back into the function, and a return
        assert re.search(r"\bj(nz|ne)\b", text), "%s has no loop" % name
        assert any(i.startswith("ret") for i in body), name
    # every block kernel steps 256 bytes per iteration over both pointers
    for name in EXPECT:
        if name.startswith("bw_") and "rep" not in name:
            text = "\n".join(funcs[name])
            assert "add    $0x100,%r8" in text and "add    $0x100,%r9" in text, name


def test_library_wrappers_call_the_library(tools, tmp_path):
    """Compiled with the firmware's flags, lib_memset/lib_memcpy must call memset/memcpy in their
    loop: neither inlined into a store loop nor hoisted out of it."""
    obj = str(tmp_path / "membw_c.o")
    flags = ["-std=gnu11", "-O2", "-ffreestanding", "-fno-builtin", "-fpic", "-mno-red-zone",
             "-mgeneral-regs-only", "-fno-tree-loop-distribute-patterns", "-I", ROOT, "-I", os.path.join(ROOT, "arch/x86_64/include"),
             "-I", "/usr/include/efi", "-I", "/usr/include/efi/x86_64"]
    subprocess.run(["gcc"] + flags + ["-c", os.path.join(ROOT, "bench/probes/mem/membw.c"), "-o", obj], check=True)
    funcs = disassemble(obj)
    for wrapper, callee in (("lib_memset", "memset"), ("lib_memcpy", "memcpy")):
        text = "\n".join(funcs[wrapper])
        # the call's relocation names the library routine
        assert re.search(r"R_X86_64_\w+\s+%s\b" % callee, text), "%s does not call %s:\n%s" % (wrapper, callee, text)
        assert re.search(r"\bj(nz|ne|ae|a|b|be)\b", text), "%s lost its loop" % wrapper
