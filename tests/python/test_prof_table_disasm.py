"""The profiler's handler path stays short (issue 11: within a few hundred cycles, few cache lines):
compiled with the firmware's flags, prof_table_record and the eviction helper it calls contain no
division and call nothing but that helper, and their sizes stay within bounds fixed when they were
written; prof_period_next leaves its divisions to rand_below. The cycle figures themselves come
from tests/perf/prof_table_cost.sh."""

import os
import re
import shutil
import subprocess

import pytest

from disasm import disassemble

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FW_FLAGS = ["-std=gnu11", "-O2", "-ffreestanding", "-fno-builtin", "-fpic", "-mno-red-zone",
            "-mgeneral-regs-only", "-maccumulate-outgoing-args", "-fno-tree-loop-distribute-patterns",
            "-fno-strict-aliasing", "-I", ROOT, "-I", os.path.join(ROOT, "arch/x86_64/include")]
# Instruction-count bounds, fixed before the first measurement (about twice what the C needs).
MAX_RECORD_INSNS = 96
MAX_OVF_PUSH_INSNS = 64
DIV = re.compile(r"^\s*i?div")
CALL = re.compile(r"^\s*call")


def instructions(body):
    """Instruction lines only: no relocation lines, no padding."""
    return [i for i in body if not i.startswith("R_X86_64") and not re.match(r"(nop|data16|cs nop|xchg\s+%ax,%ax)", i)]


@pytest.fixture(scope="module")
def funcs(tmp_path_factory):
    if not shutil.which("gcc") or not shutil.which("objdump"):
        pytest.skip("gcc/objdump not installed")
    out, funcs = tmp_path_factory.mktemp("prof"), {}
    for src in ("bench/profile/table.c", "bench/profile/period.c"):
        obj = str(out / (os.path.basename(src) + ".o"))
        subprocess.run(["gcc"] + FW_FLAGS + ["-c", os.path.join(ROOT, src), "-o", obj], check=True)
        funcs.update(disassemble(obj))
    return funcs


def handler_path(funcs):
    """prof_table_record and the static helpers it calls (the eviction path), by name."""
    path, todo = {}, ["prof_table_record"]
    while todo:
        name = todo.pop()
        assert name in funcs, "%s not found in the object" % name
        path[name] = instructions(funcs[name])
        for insn in path[name]:
            m = re.match(r"call\s+[0-9a-f]+ <([^>+]+)", insn)
            if m and m.group(1) not in path:
                todo.append(m.group(1))
    return path


def test_handler_path_has_no_division(funcs):
    for name, body in handler_path(funcs).items():
        assert not [i for i in body if DIV.match(i)], "%s divides:\n%s" % (name, "\n".join(body))


def test_handler_path_calls_only_its_eviction_helper(funcs):
    path = handler_path(funcs)
    # a relocation on a call would be an external function (a library routine or an interposable
    # global): the handler path must stay inside this object's static code
    for name in path:
        relocs = [i for i in funcs[name] if i.startswith("R_X86_64")]
        assert not relocs, "%s refers to external symbols: %s" % (name, relocs)
    assert set(path) <= {"prof_table_record", "ovf_push"}, sorted(path)


def test_handler_path_is_short(funcs):
    path = handler_path(funcs)
    assert len(path["prof_table_record"]) <= MAX_RECORD_INSNS, len(path["prof_table_record"])
    if "ovf_push" in path:
        assert len(path["ovf_push"]) <= MAX_OVF_PUSH_INSNS, len(path["ovf_push"])


def test_period_draw_divides_only_in_rand_below(funcs):
    body = funcs["prof_period_next"]
    assert not [i for i in instructions(body) if DIV.match(i)], "\n".join(body)
    calls = [i for i in body if CALL.match(i) or "R_X86_64_PLT32" in i]
    assert any("rand_below" in i for i in calls), "\n".join(body)
