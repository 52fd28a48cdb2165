"""No call circle between units (issue 17: "No import circle, C or Python"), checked on the built objects.

tests/python/test_layers.py keeps the #include graph free of circles; this test looks at what the
objects link against, which includes do not show (a function declared in a contract header and
defined elsewhere, a symbol an assembly file uses). For each build (x86_64 and aarch64 firmware,
hosted), from `nm` on its objects under build/<build>/obj: a unit is a source path without its
extension (x.c and x.S are one unit: build/<build>/obj/x.c.o and x.S.o); unit A calls unit B when
an object of A has an undefined (U) symbol that an object of B defines (T, D, B, R, and the weak
and read-only kinds). The strongly connected components of that graph with more than one unit
are circles and fail, unless listed in KNOWN_CALL_CYCLES with the reason; an entry that matches
no circle any more fails too, so it goes when its circle is fixed.

It needs the builds: it runs in `make integration`, after `make image image-aarch64 hosted`, and
skips (saying which) when a build's objects are missing. Objects whose source is gone (a stale
object of a renamed file) are left out.
"""

import os
import shutil
import subprocess

import pytest

from scc import strongly_connected

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# build folder -> the nm that reads its objects
BUILDS = {"x86_64": "nm", "aarch64": "aarch64-linux-gnu-nm", "hosted": "nm"}
DEFINED_KINDS = set("TDBRVWGSiu")  # text, data, bss, read-only, weak, small data, ifunc, unique global

# Circles not fixed yet: (build, frozenset of units) -> why, or the branch that removes it.
# (bench's runner -> counters -> suite -> profile -> runner circle was fixed by branch registry.)
# (The vectors' circle, entry stubs <-> C handlers and traps <-> irq, was fixed by branch circles2:
# the stubs are the .S half of their C unit, and traps calls irq, not back.)
# (So was the job mailboxes' arch/priv/smp_jobs.c <-> efi/<cpu>/smp.c: now efi/smp.c, handed the
# per-CPU half's mailbox lookup and wake-up as an ops table.)
# (And AArch64's membw <-> simd: the SVE vector-length read moved from membw.S to simd.S.)
KNOWN_CALL_CYCLES = {}  # none left


def unit_of_object(rel):
    """build/<b>/obj/bench/core/runner.c.o -> bench/core/runner (and its source, bench/core/runner.c)."""
    source = rel[:-len(".o")]
    return os.path.splitext(source)[0], source


NM_BATCH = 256  # objects per nm run: one process per object was most of this test's time


def read_symbols(obj_dir, nm):
    """{unit: (defined symbols, undefined symbols)} of the objects under obj_dir whose source exists."""
    units, unit_of_path = {}, {}
    for dirpath, _dirs, files in os.walk(obj_dir):
        for name in sorted(files):
            if not name.endswith(".o"):
                continue
            path = os.path.join(dirpath, name)
            unit, source = unit_of_object(os.path.relpath(path, obj_dir).replace(os.sep, "/"))
            if not os.path.exists(os.path.join(ROOT, source)):
                continue  # stale: its source was renamed or removed
            unit_of_path[path] = unit
            units.setdefault(unit, (set(), set()))
    paths = list(unit_of_path)
    for i in range(0, len(paths), NM_BATCH):
        # -A: every line starts with its object's path and a colon (no path here has a colon)
        out = subprocess.run([nm, "-A"] + paths[i:i + NM_BATCH], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            path, _, rest = line.partition(":")
            defined, undefined = units[unit_of_path[path]]
            parts = rest.split()
            if len(parts) == 2 and parts[0] == "U":
                undefined.add(parts[1])
            elif len(parts) == 3 and parts[1] in DEFINED_KINDS:
                defined.add(parts[2])
    return units


def call_graph(units):
    """{unit: units it calls}, and (a, b) -> a few of the symbols behind the edge."""
    owner = {}
    for unit, (defined, _u) in units.items():
        for sym in defined:
            owner.setdefault(sym, set()).add(unit)
    graph, why = {u: set() for u in units}, {}
    for unit, (_d, undefined) in units.items():
        for sym in sorted(undefined):
            for other in owner.get(sym, ()):
                if other != unit:
                    graph[unit].add(other)
                    why.setdefault((unit, other), []).append(sym)
    return graph, why


def circles(graph):
    return [frozenset(c) for c in strongly_connected(graph) if len(c) > 1]


def check_build(build, graph, why, known):
    """Findings for one build: circles not in `known`, and `known` entries of this build that match none."""
    found = set(circles(graph))
    problems = []
    for comp in sorted(found, key=sorted):
        if (build, comp) in known:
            continue
        edges = ["%s -> %s: %s" % (a, b, ", ".join(why[(a, b)][:4]))
                 for a in sorted(comp) for b in sorted(graph[a]) if b in comp]
        problems.append("%s: call circle between %s:\n    %s"
                        % (build, ", ".join(sorted(comp)), "\n    ".join(edges)))
    for (kbuild, comp), reason in sorted(known.items(), key=lambda kv: (kv[0][0], sorted(kv[0][1]))):
        if kbuild == build and comp not in found:
            problems.append("%s: KNOWN_CALL_CYCLES entry %s (%s) matches no circle any more: remove it"
                            % (build, ", ".join(sorted(comp)), reason))
    return problems


@pytest.mark.parametrize("build", sorted(BUILDS))
def test_no_call_circle(build):
    obj_dir = os.path.join(ROOT, "build", build, "obj")
    nm = BUILDS[build]
    if not os.path.isdir(obj_dir) or not any(f.endswith(".o") for _d, _s, fs in os.walk(obj_dir) for f in fs):
        pytest.skip("build/%s/obj has no objects: build it first (make integration builds all three)" % build)
    if shutil.which(nm) is None:
        pytest.skip("%s is not installed: cannot read the %s objects" % (nm, build))
    graph, why = call_graph(read_symbols(obj_dir, nm))
    problems = check_build(build, graph, why, KNOWN_CALL_CYCLES)
    assert not problems, "\n" + "\n".join(problems)


# --- the checker itself, on made-up graphs ----------------------------------------------------

def test_scc_finder_on_a_tiny_graph():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}, "g": set()}
    comps = sorted(sorted(c) for c in strongly_connected(graph))
    assert comps == [["a", "b", "c"], ["d", "e"], ["f"], ["g"]]
    assert sorted(sorted(c) for c in circles(graph)) == [["a", "b", "c"], ["d", "e"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []   # a chain is no circle
    assert circles({"a": {"a"}}) == []                           # a unit calling itself is none


def test_graph_from_symbols_and_known_entries():
    units = {
        "lib/fmt": ({"fmt"}, set()),
        "arch/traps": ({"traps_catch_faults"}, {"fmt", "sysreg_fixup"}),
        "arch/sysreg": ({"sysreg_fixup", "sysreg_read"}, {"traps_catch_faults", "fmt"}),
        "efi/main": ({"efi_main"}, {"sysreg_read", "memcpy"}),   # memcpy: no unit here defines it
    }
    graph, why = call_graph(units)
    assert graph == {"lib/fmt": set(), "arch/traps": {"lib/fmt", "arch/sysreg"},
                     "arch/sysreg": {"arch/traps", "lib/fmt"}, "efi/main": {"arch/sysreg"}}
    problems = check_build("x", graph, why, {("x", frozenset({"lib/a", "lib/b"})): "some branch",
                                             ("y", frozenset({"lib/c", "lib/d"})): "another build"})
    assert problems[0] == ("x: call circle between arch/sysreg, arch/traps:\n"
                           "    arch/sysreg -> arch/traps: traps_catch_faults\n"
                           "    arch/traps -> arch/sysreg: sysreg_fixup")
    assert problems[1] == "x: KNOWN_CALL_CYCLES entry lib/a, lib/b (some branch) matches no circle any more: remove it"
    assert len(problems) == 2
    assert check_build("x", graph, why, {("x", frozenset({"arch/sysreg", "arch/traps"})): "why"}) == []


def test_object_names_map_to_units():
    assert unit_of_object("bench/core/runner.c.o") == ("bench/core/runner", "bench/core/runner.c")
    assert unit_of_object("arch/aarch64/sysreg_stubs.S.o") == ("arch/aarch64/sysreg_stubs",
                                                              "arch/aarch64/sysreg_stubs.S")
