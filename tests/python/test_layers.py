"""Includes go down only, and no unit includes itself round a circle (docs/hacking.md, rules 3 and 5).

Reads every `#include "..."` of the C, header and assembly files under the layers and checks:

1. Layers. Each file belongs to the layer of its top folder, bottom to top:
       lib (0) < arch (1) < drivers (2) < bench (3) < efi, hosted (4)
   A file may include headers of its own layer or of a layer below, never above. efi/ and
   hosted/ are two environments on the same level: neither includes the other.
2. CPU folders. A folder named after a CPU (x86_64/, aarch64/: the names of mk/<cpu>.mk) holds
   that CPU's code only.
   - A file inside one CPU's folder never includes a header inside another CPU's folder.
   - A CPU-neutral file (in no CPU folder) never includes a CPU folder's header: the build picks
     the CPU, not the file. A contract arch/x.h gets its CPU's part as `#include <cpu/x.h>`,
     which the include path the CPU's make file sets (-Iarch/<cpu>/include) resolves to
     arch/<cpu>/include/cpu/x.h; every CPU must have it (the check resolves it for each CPU).
     No `#if` on a CPU's compiler macro outside a CPU folder either: test_cpu_neutral.py. Files
     still waiting for a neutral form are listed, with the reason, in KNOWN_CPU_INCLUDES (an
     entry that no longer matches fails, so it goes when the file is fixed).
3. Paths. Every quoted include names a file of the tree by its path from the top (the build
   passes -I. for these), except the generated headers listed in GENERATED; the only angle
   includes of the tree are the CPU parts, <cpu/x.h>.
4. Circles. A unit is a file's path without the extension and without the CPU folders: x.c and
   x.h are one unit, and so are a contract arch/x.h, its CPU's part arch/<cpu>/include/cpu/x.h
   and the arch/<cpu>/x.c behind it (one contract, written per CPU), and x_internal.h (helpers private to x's .c files, e.g.
   arch/x86_64/pmu_internal.h) belongs to x. Unit A depends on unit B when a
   file of A includes a file of B. The graph is built once per CPU, from the files that CPU's
   build sees (the neutral ones and its own folders), so two CPUs' files never make a circle
   together. The test finds the strongly connected components of each graph; any with more than
   one unit is a circle and fails, unless it is listed in KNOWN_CYCLES (each entry names the
   branch that removes it; an entry that no longer matches a circle fails too, so it is deleted
   when that branch is merged).
5. Inline assembly (`__asm__`, `asm(`) is written only under arch/: everything else calls the
   small arch functions (arch/<cpu>/cpu.h and friends).

Every finding names the file, the line and the included header.
"""

import os
import re

import pytest

from scc import strongly_connected

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

LAYERS = {"lib": 0, "arch": 1, "drivers": 2, "bench": 3, "efi": 4, "hosted": 4}
SOURCE_EXTS = (".c", ".h", ".S", ".def")  # .def: X-macro tables included as data
# Quoted includes that are not files of the tree: made by the build (scripts/psf2c.py,
# scripts/gen_pmu_events.py).
GENERATED = {"font8x16.h", "pmu_events_tables.h", "pmu_events_tables.inc"}
# Circles being removed on another branch: frozenset of units -> the branch that removes it.
# (bench's runner -> counters -> suite -> profile -> runner circle, branch registry, is one of
# calls through bench/core/probe.h, not of includes: this test does not see it; the call graph of
# the built objects is checked by tests/integration/test_call_cycles.py.)
KNOWN_CYCLES = {}
# CPU-neutral files that include a CPU's header outside a selecting branch, and why (rule 2); an
# entry that no longer matches a finding fails, so it goes when the file is fixed.
KNOWN_CPU_INCLUDES = {}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
# A contract's CPU part, found through the include path -Iarch/<cpu>/include (docs/hacking.md).
CPU_PART_RE = re.compile(r'^\s*#\s*include\s+<(cpu/[^>]+)>')
CPU_PART_DIR = "arch/%s/include/"  # + "cpu/x.h"
CPU_PART_SUBDIRS = ["include", "cpu"]  # arch/<cpu>/include/cpu/x.h belongs to the unit arch/x
COND_OPEN_RE = re.compile(r"^\s*#\s*(if|ifdef|ifndef)\b(.*)$")
COND_ELIF_RE = re.compile(r"^\s*#\s*elif\b(.*)$")
COND_ELSE_RE = re.compile(r"^\s*#\s*else\b")
COND_END_RE = re.compile(r"^\s*#\s*endif\b")
ASM_RE = re.compile(r"\b(__asm__|__asm|asm)\s*(volatile\s*|__volatile__\s*|goto\s*)*\(")


def cpus(root):
    """The CPUs the build knows: mk/<cpu>.mk, hosted.mk aside (as the Makefile's CPUS)."""
    mk = os.path.join(root, "mk")
    return sorted(f[:-3] for f in os.listdir(mk) if f.endswith(".mk") and f != "hosted.mk")


def source_files(root):
    """Every C, header and assembly file under the layers, as paths from the top."""
    out = []
    for top in LAYERS:
        for dirpath, _dirs, files in os.walk(os.path.join(root, top)):
            for name in files:
                if name.endswith(SOURCE_EXTS):
                    out.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return sorted(out)


def cpu_of(path, cpu_names):
    """The CPU whose folder holds `path`, or None for a CPU-neutral file."""
    for part in path.split("/")[:-1]:
        if part in cpu_names:
            return part
    return None


def cpu_parts(root, path):
    """(line, "cpu/x.h") for each angle include of a CPU part in `path`."""
    found = []
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = CPU_PART_RE.match(line)
            if m:
                found.append((n, m.group(1)))
    return found


def scan(root, path):
    """(line, header, conditions) for each quoted include of `path`; conditions: the text of the
    branch of every enclosing #if/#ifdef (#ifndef and #else as None: they select nothing)."""
    found = []
    stack = []
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = COND_OPEN_RE.match(line)
            if m:
                kind, cond = m.group(1), m.group(2).strip()
                stack.append(cond if kind == "if" else (cond if kind == "ifdef" else None))
                continue
            m = COND_ELIF_RE.match(line)
            if m and stack:
                stack[-1] = m.group(1).strip()
                continue
            if COND_ELSE_RE.match(line) and stack:
                stack[-1] = None
                continue
            if COND_END_RE.match(line) and stack:
                stack.pop()
                continue
            m = INCLUDE_RE.match(line)
            if m:
                found.append((n, m.group(1), tuple(stack)))
    return found


def asm_lines(root, path):
    """Lines of a C file or header that write inline assembly (comments aside, roughly)."""
    out = []
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            code = line.split("//")[0]
            if code.lstrip().startswith(("*", "/*")):
                continue
            if ASM_RE.search(code):
                out.append(n)
    return out


INTERNAL = "_internal"  # x_internal.h: helpers private to unit x, shared by its .c files


def unit_of(path, cpu_names):
    """The unit a file belongs to: its path without the extension and the CPU folders."""
    if path.endswith(".def"):
        return path  # an X-macro table is data of its own, included by whoever expands it
    parts = path.split("/")
    dirs = [p for p in parts[:-1] if p not in cpu_names]
    if len(dirs) > 2 and dirs[-2:] == CPU_PART_SUBDIRS and len(dirs) != len(parts) - 1:
        dirs = dirs[:-2]  # a CPU part: one unit with its contract
    name = os.path.splitext(parts[-1])[0]
    if name.endswith(INTERNAL):
        name = name[:-len(INTERNAL)]
    return "/".join(dirs + [name])


def check_tree(root, known_cycles=None, known_cpu_includes=None):
    """Every finding of rules 1-5 under root, as lines of text (empty: the tree is clean)."""
    known_cycles = KNOWN_CYCLES if known_cycles is None else known_cycles
    known_cpu_includes = KNOWN_CPU_INCLUDES if known_cpu_includes is None else known_cpu_includes
    allowed_cpu_seen = set()
    cpu_names = cpus(root)
    files = source_files(root)
    present = set(files)
    problems = []
    edges = []  # (from file, to header, where)
    for path in files:
        top = path.split("/")[0]
        layer = LAYERS[top]
        my_cpu = cpu_of(path, cpu_names)
        if not path.startswith("arch/") and not path.endswith(".S"):
            for n in asm_lines(root, path):
                problems.append("%s:%d: inline assembly outside arch/" % (path, n))
        for n, header, conds in scan(root, path):
            where = '%s:%d: #include "%s"' % (path, n, header)
            if header not in present:
                if header not in GENERATED:
                    problems.append("%s: no such file in the tree (paths are from the top)" % where)
                continue
            htop = header.split("/")[0]
            hlayer = LAYERS.get(htop)
            if hlayer > layer:
                problems.append("%s: goes up a layer (%s %d -> %s %d)" % (where, top, layer, htop, hlayer))
            elif hlayer == layer and htop != top:
                problems.append("%s: %s/ and %s/ are separate environments" % (where, top, htop))
            hcpu = cpu_of(header, cpu_names)
            if hcpu is not None and hcpu != my_cpu:
                if my_cpu is not None:
                    problems.append("%s: a %s file includes a %s header" % (where, my_cpu, hcpu))
                elif path in known_cpu_includes:
                    allowed_cpu_seen.add(path)
                else:
                    problems.append("%s: a CPU-neutral file includes a %s header (a contract's CPU "
                                    "part comes through <cpu/...>, the build's include path)" % (where, hcpu))
            edges.append((path, header, where))
        for n, part in cpu_parts(root, path):
            where = "%s:%d: #include <%s>" % (path, n, part)
            if LAYERS["arch"] > layer:
                problems.append("%s: goes up a layer (%s %d -> arch 1)" % (where, top, layer))
            for cpu in ([my_cpu] if my_cpu else cpu_names):
                header = CPU_PART_DIR % cpu + part
                if header not in present:
                    problems.append("%s: no %s for the %s build" % (where, header, cpu))
                    continue
                edges.append((path, header, where))
    for path in sorted(set(known_cpu_includes) - allowed_cpu_seen):
        problems.append("KNOWN_CPU_INCLUDES entry %s includes no CPU header any more: remove it" % path)
    problems += check_circles(edges, cpu_names, known_cycles)
    return problems


def check_circles(edges, cpu_names, known_cycles):
    """The circles of the unit graph of each CPU's build, less the known ones."""
    circles = {}
    for cpu in cpu_names:
        graph, site = {}, {}
        for path, header, where in edges:
            if cpu_of(path, cpu_names) not in (None, cpu) or cpu_of(header, cpu_names) not in (None, cpu):
                continue
            a, b = unit_of(path, cpu_names), unit_of(header, cpu_names)
            graph.setdefault(a, set())
            if a != b:
                graph[a].add(b)
                site.setdefault((a, b), where)
        for comp in strongly_connected(graph):
            if len(comp) > 1:
                key = frozenset(comp)
                sites = sorted(site[(a, b)] for a in comp for b in graph[a] if b in comp)
                circles.setdefault(key, set()).update(sites)
    problems = []
    for key in sorted(circles, key=sorted):
        if key not in known_cycles:
            problems.append("include circle between %s:\n    %s"
                            % (", ".join(sorted(key)), "\n    ".join(sorted(circles[key]))))
    for key, branch in known_cycles.items():
        if key not in circles:
            problems.append("KNOWN_CYCLES entry %s (branch %s) matches no circle any more: remove it"
                            % (", ".join(sorted(key)), branch))
    return problems


def test_tree_includes_go_down_only_and_make_no_circle():
    problems = check_tree(REPO)
    assert not problems, "\n" + "\n".join(problems)


# --- the checker itself, on a made-up tree -------------------------------------------------------

def write(root, path, text):
    full = root / path
    full.parent.mkdir(parents=True, exist_ok=True)
    full.write_text(text)


@pytest.fixture
def tiny_tree(tmp_path):
    for cpu in ("x86_64", "aarch64", "hosted"):
        write(tmp_path, "mk/%s.mk" % cpu, "")
    write(tmp_path, "lib/fmt.h", "int fmt(void);\n")
    write(tmp_path, "lib/fmt.c", '#include "lib/fmt.h"\n')
    write(tmp_path, "arch/x86_64/tsc.h", "")
    write(tmp_path, "arch/aarch64/tsc.h", "")
    write(tmp_path, "arch/x86_64/include/cpu/cycles.h", '#include "arch/x86_64/tsc.h"\n')
    write(tmp_path, "arch/aarch64/include/cpu/cycles.h", '#include "arch/aarch64/tsc.h"\n')
    write(tmp_path, "arch/cycles.h", '#ifndef ARCH_CYCLES_H\n#include <cpu/cycles.h>\n#endif\n')
    write(tmp_path, "drivers/uart.h", '#include "lib/fmt.h"\n')
    write(tmp_path, "bench/probe.c", '#include "drivers/uart.h"\n#include "arch/cycles.h"\n')
    write(tmp_path, "efi/main.c", '#include "bench/probe.h"\n#include "font8x16.h"\n')
    write(tmp_path, "bench/probe.h", "")
    return tmp_path


def test_checker_passes_a_clean_tree(tiny_tree):
    assert check_tree(str(tiny_tree), known_cycles={}, known_cpu_includes={}) == []


def test_checker_reports_an_upward_include(tiny_tree):
    write(tiny_tree, "arch/x86_64/smp.c", '#include "arch/cycles.h"\n\n#include "drivers/uart.h"\n')
    problems = check_tree(str(tiny_tree), known_cycles={}, known_cpu_includes={})
    assert problems == ['arch/x86_64/smp.c:3: #include "drivers/uart.h": goes up a layer (arch 1 -> drivers 2)']


def test_checker_reports_environments_and_cpus(tiny_tree):
    write(tiny_tree, "hosted/main.c", '#include "efi/main.h"\n')
    write(tiny_tree, "efi/main.h", "")
    write(tiny_tree, "arch/aarch64/smp.c", '#include "arch/x86_64/tsc.h"\n')
    write(tiny_tree, "bench/clock.c", '#include "arch/x86_64/tsc.h"\n'
          '#if !defined(__aarch64__)\n#include "arch/aarch64/tsc.h"\n#endif\n'
          '#ifdef __x86_64__\n#include "arch/x86_64/tsc.h"\n#else\n#include "arch/aarch64/tsc.h"\n#endif\n')
    write(tiny_tree, "bench/run.c", '#include "bench/gone.h"\nvoid f(void) { __asm__ volatile("nop"); }\n')
    problems = "\n".join(check_tree(str(tiny_tree), known_cycles={}, known_cpu_includes={}))
    assert 'hosted/main.c:1: #include "efi/main.h": hosted/ and efi/ are separate' in problems
    assert 'arch/aarch64/smp.c:1: #include "arch/x86_64/tsc.h": a aarch64 file includes a x86_64' in problems
    assert 'bench/clock.c:1: #include "arch/x86_64/tsc.h": a CPU-neutral file' in problems
    assert 'bench/clock.c:3: #include "arch/aarch64/tsc.h": a CPU-neutral file' in problems
    assert 'bench/clock.c:8: #include "arch/aarch64/tsc.h": a CPU-neutral file' in problems
    assert 'bench/clock.c:6: #include "arch/x86_64/tsc.h": a CPU-neutral file' in problems  # no selectors
    assert 'bench/run.c:1: #include "bench/gone.h": no such file' in problems
    assert "bench/run.c:2: inline assembly outside arch/" in problems


def test_checker_resolves_cpu_parts_for_every_cpu(tiny_tree):
    # a contract whose part one CPU lacks; a CPU part from below arch/; a CPU part in a CPU folder
    # resolves for that CPU only
    write(tiny_tree, "arch/smp.h", "#include <cpu/smp.h>\n")
    write(tiny_tree, "arch/x86_64/include/cpu/smp.h", "")
    write(tiny_tree, "lib/clock.h", "#include <cpu/cycles.h>\n")
    write(tiny_tree, "arch/x86_64/smp.c", "#include <cpu/smp.h>\n")
    problems = check_tree(str(tiny_tree), known_cycles={}, known_cpu_includes={})
    assert problems == [
        "arch/smp.h:1: #include <cpu/smp.h>: no arch/aarch64/include/cpu/smp.h for the aarch64 build",
        "lib/clock.h:1: #include <cpu/cycles.h>: goes up a layer (lib 0 -> arch 1)"]


def test_checker_sees_circles_through_cpu_parts(tiny_tree):
    # a CPU part is one unit with its contract: a part that includes a unit which includes the
    # contract back makes a circle (of that CPU's build)
    write(tiny_tree, "arch/x86_64/include/cpu/cycles.h", '#include "arch/tsc_cal.h"\n')
    write(tiny_tree, "arch/tsc_cal.h", '#include "arch/cycles.h"\n')
    problems = check_tree(str(tiny_tree), known_cycles={}, known_cpu_includes={})
    assert len(problems) == 1 and problems[0].startswith("include circle between arch/cycles, arch/tsc_cal:")
    assert 'arch/x86_64/include/cpu/cycles.h:1: #include "arch/tsc_cal.h"' in problems[0]


def test_checker_reports_a_circle_and_stale_known_cycles(tiny_tree):
    write(tiny_tree, "arch/pmu.h", '#include "arch/quirks.h"\n')
    write(tiny_tree, "arch/pmu.c", '#include "arch/pmu.h"\n')
    write(tiny_tree, "arch/quirks.c", '#include "arch/pmu.h"\n')
    write(tiny_tree, "arch/quirks.h", "")
    problems = check_tree(str(tiny_tree), known_cycles={frozenset({"lib/a", "lib/b"}): "some-branch"},
                          known_cpu_includes={})
    assert problems[0].startswith("include circle between arch/pmu, arch/quirks:")
    assert 'arch/pmu.h:1: #include "arch/quirks.h"' in problems[0]
    assert 'arch/quirks.c:1: #include "arch/pmu.h"' in problems[0]
    assert problems[1] == "KNOWN_CYCLES entry lib/a, lib/b (branch some-branch) matches no circle any more: remove it"
    allowed = {frozenset({"arch/pmu", "arch/quirks"}): "some-branch"}
    assert check_tree(str(tiny_tree), known_cycles=allowed, known_cpu_includes={}) == []
    assert check_tree(str(tiny_tree), known_cycles=allowed, known_cpu_includes={"bench/x.h": "why"}) == [
        "KNOWN_CPU_INCLUDES entry bench/x.h includes no CPU header any more: remove it"]
