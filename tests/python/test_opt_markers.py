"""-O2 or -Os by marker (Makefile, "Optimisation by marker"): a firmware C file is built -Os unless
it carries a line `/* OPT_FAST: why */`. A file that reads the cycle counter or installs an
interrupt handler or EOI callback is timed, or on a timed path, unless it says otherwise: it must
carry OPT_FAST, or `/* OPT_SMALL: why */` stating why -Os cannot move a measurement. The built
objects (build/<cpu>/obj, when present) are checked too: gcc records its options in each object's
DW_AT_producer, so a timed file built -Os fails here whatever the Makefile meant."""

import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAYERS = ("lib", "arch", "drivers", "bench", "efi")
CPUS = ("x86_64", "aarch64")
MARKER = re.compile(r"^/\* (OPT_FAST|OPT_SMALL): (.+?) \*/$", re.M)
# Reading the cycle counter in a window, or being the interrupt path (arch/cycles.h, arch/irq.h).
TIMED = re.compile(r"\b(cycles_read|cycles_begin|cycles_end|time_op|irq_set_handler|irq_set_eoi)\s*\(")
PRODUCER = re.compile(rb"GNU C[0-9]+ [^\0]*")


def firmware_sources():
    """Every C file a firmware build of some CPU takes (the Makefile's rule: the layers' folders,
    hosted/ not among them)."""
    out = []
    for layer in LAYERS:
        for top, _dirs, files in os.walk(os.path.join(ROOT, layer)):
            out += [os.path.relpath(os.path.join(top, f), ROOT) for f in files if f.endswith(".c")]
    return sorted(out)


def markers(path):
    with open(os.path.join(ROOT, path)) as fh:
        text = fh.read()
    return text, MARKER.findall(text)


def test_timed_files_say_how_they_are_built():
    unmarked, doubled = [], []
    for path in firmware_sources():
        text, found = markers(path)
        if len(found) > 1:
            doubled.append(path)
        if TIMED.search(text) and not found:
            unmarked.append(path)
    assert not doubled, "more than one OPT_ marker: %s" % doubled
    assert not unmarked, ("these files read the cycle counter or install an interrupt handler but carry "
                          "neither /* OPT_FAST: why */ nor /* OPT_SMALL: why */: %s" % unmarked)


def test_every_cpu_has_fast_files():
    """The marker is the rule for every CPU: each CPU's folders hold fast (interrupt-path) files."""
    for cpu in CPUS:
        fast = [p for p in firmware_sources() if "/%s/" % cpu in p and ("OPT_FAST", ) == tuple(
            m[0] for m in markers(p)[1])]
        assert fast, "no OPT_FAST file in any %s/ folder" % cpu


def last_opt(producer):
    opts = re.findall(rb" -O([0-9sgz]?)\b", producer)
    return opts[-1].decode() if opts else None


@pytest.mark.parametrize("cpu", CPUS)
def test_built_objects_follow_the_markers(cpu):
    obj_root = os.path.join(ROOT, "build", cpu, "obj")
    if not os.path.isdir(obj_root):
        pytest.skip("build/%s/obj not built (make%s)" % (cpu, "" if cpu == "x86_64" else " ARCH=" + cpu))
    checked, wrong = 0, []
    for path in firmware_sources():
        obj = os.path.join(obj_root, path + ".o")
        if not os.path.exists(obj):
            continue
        with open(obj, "rb") as fh:
            producer = PRODUCER.search(fh.read())
        assert producer, "%s has no DW_AT_producer (built without -g?)" % obj
        kinds = [m[0] for m in markers(path)[1]]
        want = "2" if kinds == ["OPT_FAST"] else "s"
        got = last_opt(producer.group(0))
        checked += 1
        if got != want:
            wrong.append("%s: -O%s, marker %s" % (path, got, kinds or "none"))
    assert checked, "no object of a firmware source under %s" % obj_root
    assert not wrong, "objects built against their marker:\n" + "\n".join(wrong)
