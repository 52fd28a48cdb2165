"""The CPU is chosen by the build, not by the sources (docs/hacking.md, "Adding a CPU").

Outside a CPU folder (x86_64/, aarch64/: the names of mk/<cpu>.mk) no C, header, assembly or
X-macro file of the layers names a CPU in its code: no `#if defined(__x86_64__)` chain, no CPU
compiler macro, no CPU name or CPU-prefixed identifier (x86_..., a64_...) — comments and string
literals aside (they explain and document; a new CPU need not edit them). A contract arch/x.h gets
its CPU's part as <cpu/x.h>, which the CPU's make file's include path resolves to
arch/<cpu>/include/cpu/x.h; every CPU provides the same set of parts (test_layers.py resolves each
include for each CPU).

The count this file computes is the dry run of docs/hacking.md: the existing sources a third CPU
would have to edit. It is zero; the test fails with the list when it is not.
"""

import os
import re

import pytest

from test_layers import CPU_PART_RE, LAYERS, cpu_of, cpus, source_files

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Compiler macros that name a CPU (GCC's and Clang's predefined ones for the CPUs a port might
# add), besides __<cpu>__ for each CPU the build knows.
CPU_MACROS = ("__x86_64__", "__amd64__", "__i386__", "__aarch64__", "__arm__", "__riscv",
              "__riscv_xlen", "__powerpc64__", "__loongarch64", "__s390x__")
# Identifier prefixes of CPU-private code (arch/x86_64: x86_*, X86_*; arch/aarch64: a64_*, A64_*,
# aarch64_*): a neutral file calling one names a CPU as surely as an #if does.
CPU_PREFIXES = ("x86_", "X86_", "a64_", "A64_", "aarch64_")
PREPROC_RE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif)\b")


def strip_comments_and_strings(text):
    """The code of a C-like file: comments and string/character literals replaced by nothing
    (newlines kept, so line numbers stay)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text[i] in "\"'":
            quote, j = text[i], i + 1
            while j < n and text[j] != quote and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(quote * 2)
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def cpu_word_re(cpu_names):
    macros = set(CPU_MACROS) | {"__%s__" % c for c in cpu_names}
    words = sorted(macros | set(cpu_names), key=len, reverse=True)
    return re.compile(r"\b(%s)\w*|\b(%s)\w+" % ("|".join(map(re.escape, words)),
                                                 "|".join(map(re.escape, CPU_PREFIXES))))


def neutral_files(root, names):
    """The source files outside every CPU folder."""
    return [p for p in source_files(root) if cpu_of(p, names) is None]


def cpu_mentions(root):
    """(path, line, word, is_preprocessor) for each CPU named in the code of a CPU-neutral file."""
    names = cpus(root)
    word_re = cpu_word_re(names)
    found = []
    for path in neutral_files(root, names):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            code = strip_comments_and_strings(f.read())
        for n, line in enumerate(code.split("\n"), 1):
            for m in word_re.finditer(line):
                found.append((path, n, m.group(0), bool(PREPROC_RE.match(line))))
    return found


def cpu_part_sets(root):
    """{cpu: the names of its arch/<cpu>/include/cpu/ headers}."""
    out = {}
    for cpu in cpus(root):
        d = os.path.join(root, "arch", cpu, "include", "cpu")
        out[cpu] = sorted(f for f in os.listdir(d) if f.endswith(".h")) if os.path.isdir(d) else []
    return out


def contract_problems(root):
    """A neutral file includes only its own CPU part: arch/x.h includes <cpu/x.h>, nothing else
    does (bench/ and the environments include the contract arch/x.h)."""
    names = cpus(root)
    problems = []
    for path in neutral_files(root, names):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = CPU_PART_RE.match(line)
                if m and "arch/" + m.group(1)[len("cpu/"):] != path:
                    problems.append("%s:%d: #include <%s>: only arch/%s includes it (include the "
                                    "contract)" % (path, n, m.group(1), m.group(1)[len("cpu/"):]))
    return problems


def test_no_cpu_chain_outside_a_cpu_folder():
    chains = ["%s:%d: %s" % (p, n, w) for p, n, w, pre in cpu_mentions(REPO) if pre]
    assert not chains, "#if on a CPU outside a CPU folder (the include path picks the CPU):\n" + \
        "\n".join(chains)


def test_a_third_cpu_edits_no_existing_source():
    """The dry run of docs/hacking.md, computed: the CPU-neutral sources that name a CPU in their
    code (each one a file riscv64 would have to edit). Zero."""
    files = sorted({p for p, _n, _w, _pre in cpu_mentions(REPO)})
    detail = ["%s:%d: %s" % (p, n, w) for p, n, w, _pre in cpu_mentions(REPO)]
    assert len(files) == 0, "%d CPU-neutral files name a CPU:\n%s" % (len(files), "\n".join(detail))


def test_every_cpu_provides_the_same_parts():
    sets = cpu_part_sets(REPO)
    first = sorted(sets)[0]
    assert sets[first], "no CPU parts under arch/%s/include/cpu" % first
    for cpu, parts in sets.items():
        assert parts == sets[first], "arch/%s/include/cpu has %s, arch/%s/include/cpu has %s" % (
            cpu, parts, first, sets[first])
    # each part is the CPU's half of a contract of the same name
    for part in sets[first]:
        assert os.path.isfile(os.path.join(REPO, "arch", part)), "cpu/%s has no contract arch/%s" % (part, part)
    assert contract_problems(REPO) == []


# --- the checks themselves, on a made-up tree ----------------------------------------------------

def write(root, path, text):
    full = root / path
    full.parent.mkdir(parents=True, exist_ok=True)
    full.write_text(text)


@pytest.fixture
def tree(tmp_path):
    for cpu in ("x86_64", "aarch64", "hosted"):
        write(tmp_path, "mk/%s.mk" % cpu, "")
    for top in LAYERS:
        (tmp_path / top).mkdir(exist_ok=True)
    write(tmp_path, "arch/cycles.h", "/* x86_64: the TSC */\n#include <cpu/cycles.h>\n")
    write(tmp_path, "arch/x86_64/include/cpu/cycles.h", "#if defined(__x86_64__)\n#endif\n")
    write(tmp_path, "arch/aarch64/include/cpu/cycles.h", "")
    write(tmp_path, "bench/probe.c", 'const char *s = "on x86_64"; // aarch64 too\n')
    return tmp_path


def test_checks_pass_a_neutral_tree(tree):
    assert cpu_mentions(str(tree)) == []
    assert contract_problems(str(tree)) == []
    assert cpu_part_sets(str(tree)) == {"aarch64": ["cycles.h"], "x86_64": ["cycles.h"]}


def test_checks_find_a_chain_a_name_and_a_stray_part(tree):
    write(tree, "bench/clock.c", '#include "arch/cycles.h"\n#ifdef __aarch64__\nint x;\n'
          '#elif defined(__riscv)\n#endif\nvoid f(void) { x86_exception_hook(0); }\n')
    write(tree, "hosted/main.c", "#include <cpu/cycles.h>\nint a64_n;\n")
    found = cpu_mentions(str(tree))
    assert ("bench/clock.c", 2, "__aarch64__", True) in found
    assert ("bench/clock.c", 4, "__riscv", True) in found
    assert ("bench/clock.c", 6, "x86_exception_hook", False) in found
    assert ("hosted/main.c", 2, "a64_n", False) in found
    assert len(found) == 4
    assert contract_problems(str(tree)) == [
        "hosted/main.c:1: #include <cpu/cycles.h>: only arch/cycles.h includes it (include the contract)"]
