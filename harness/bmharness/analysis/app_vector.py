"""An application's characterisation vector (hbench-OS ch. 4.1): how much of each primitive of the
machine vector (vector.py) one run of a program uses -- bytes moved through each data-movement
primitive, invocations of each discrete one -- measured once, on a reference machine, with
valgrind's cachegrind (Debian's valgrind), which simulates the program's first-level caches and
its last-level cache and counts:
  Ir (instructions), I1mr/ILmr (instruction fetches missing L1 / the last level),
  Dr/Dw (data reads/writes), D1mr/D1mw, DLmr/DLmw (those missing L1 / the last level).

The coefficients (names are the machine vector's):
- insn_ns: Ir. An instruction's own time covers its L1 hits: a load that hits L1 is an
  instruction, not extra traffic.
- L1 misses served by the last level: (D1mr - DLmr + I1mr - ILmr) lines read and (D1mw - DLmw)
  written, as bytes at the L2's rates (read_/write_ns_per_byte.L2). cachegrind simulates L1 and the
  last level only, so traffic from L2 and from L3 cannot be told apart: charged as the L2's, the
  nearer (a lower bound for a program that lives in L3).
- last-level misses: (DLmr + ILmr) lines read, DLmw written, as bytes at DRAM's rates.
With miss_model "latency" (a pointer-heavy program: each miss waits for the one before) the
read misses are charged per load instead: load_ns.L2 for L1 misses served by the last level,
load_ns.DRAM for last-level misses. Writes stay bandwidth.

No perf stat part: this machine's Linux sees no PMU (a perf-based vector where one exists is
left for later)."""

import json
import os
import re
import subprocess
import tempfile

FORMAT, VERSION = "baremetric-app-vector", 1
EVENTS = ("Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw")
MISS_MODELS = ("bandwidth", "latency")
DEFAULT_LINE = 64


class VectorError(Exception):
    """The program could not be characterised (the message says why)."""


def parse_cachegrind(text):
    """{events: {name: count}, line: D1 line bytes, desc: [lines], cmd} of a cachegrind.out file."""
    events, summary, desc, cmd = None, None, [], None
    for line in text.splitlines():
        if line.startswith("events:"):
            events = line.split(":", 1)[1].split()
        elif line.startswith("summary:"):
            summary = [int(x) for x in line.split(":", 1)[1].split()]
        elif line.startswith("desc:"):
            desc.append(line.split(":", 1)[1].strip())
        elif line.startswith("cmd:"):
            cmd = line.split(":", 1)[1].strip()
    if not events or summary is None:
        raise VectorError("no events/summary lines: not a cachegrind output file")
    if len(summary) != len(events):
        raise VectorError("summary has %d counts for %d events" % (len(summary), len(events)))
    counts = dict(zip(events, summary))
    missing = [e for e in EVENTS if e not in counts]
    if missing:
        raise VectorError("cachegrind counted no %s: run it with --cache-sim=yes"
                          % ", ".join(missing))
    line = DEFAULT_LINE
    for d in desc:
        m = re.match(r"D1 cache:\s+\d+ B, (\d+) B", d)
        if m:
            line = int(m.group(1))
    return {"events": counts, "line": line, "desc": desc, "cmd": cmd}


def app_vector(cg, miss_model="bandwidth", seconds=None, command=None):
    """The vector dict from parse_cachegrind()'s result."""
    if miss_model not in MISS_MODELS:
        raise VectorError("miss model %r: one of %s" % (miss_model, ", ".join(MISS_MODELS)))
    e, line = cg["events"], cg["line"]
    llc_reads = e["DLmr"] + e["ILmr"]
    l1_reads = max(0, e["D1mr"] - e["DLmr"]) + max(0, e["I1mr"] - e["ILmr"])
    uses = {"insn_ns": e["Ir"],
            "write_ns_per_byte.L2": max(0, e["D1mw"] - e["DLmw"]) * line,
            "write_ns_per_byte.DRAM": e["DLmw"] * line}
    if miss_model == "latency":
        uses["load_ns.L2"] = l1_reads
        uses["load_ns.DRAM"] = llc_reads
    else:
        uses["read_ns_per_byte.L2"] = l1_reads * line
        uses["read_ns_per_byte.DRAM"] = llc_reads * line
    return {"format": FORMAT, "format_version": VERSION, "tool": "cachegrind",
            "command": command or cg.get("cmd"), "miss_model": miss_model,
            "line_bytes": line, "events": e, "cache_desc": cg.get("desc"),
            "reference_seconds": seconds, "uses": uses}


SYSFS_CACHE = "/sys/devices/system/cpu/cpu0/cache"


def _sysfs_size(text):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    return int(text.rstrip("KMG")) * mult


def last_level_option(root=SYSFS_CACHE):
    """cachegrind's --LL=size,assoc,line for this machine's last-level cache from sysfs, or None
    (no sysfs, or a geometry cachegrind cannot simulate: its sets must be a power of two).
    Valgrind's own CPUID reading can miss it (3.19 on an AMD VM made it 256 MiB direct-mapped)."""
    best = None
    try:
        for d in os.listdir(root):
            if not d.startswith("index"):
                continue
            read = lambda name: open(os.path.join(root, d, name)).read().strip()  # noqa: E731
            if read("type") == "Instruction":
                continue
            level = int(read("level"))
            geom = (_sysfs_size(read("size")), int(read("ways_of_associativity")),
                    int(read("coherency_line_size")))
            if best is None or level > best[0]:
                best = (level, geom)
    except (OSError, ValueError):
        return None
    if not best:
        return None
    size, ways, line = best[1]
    sets = size // (ways * line) if ways and line else 0
    if sets <= 0 or sets & (sets - 1) or sets * ways * line != size:
        return None
    return "--LL=%d,%d,%d" % (size, ways, line)


def characterise(cmd, miss_model="bandwidth", valgrind="valgrind", timeout=None,
                 ll=None):
    """Run cmd under cachegrind and return its vector. ll: the --LL option (default this
    machine's last level from sysfs, see last_level_option). Raises VectorError."""
    if not cmd:
        raise VectorError("no command to characterise (give it after --)")
    ll = last_level_option() if ll is None else ll
    with tempfile.TemporaryDirectory(prefix="bm-cg-") as tmp:
        out = os.path.join(tmp, "cachegrind.out")
        argv = [valgrind, "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=no",
                "--cachegrind-out-file=" + out] + ([ll] if ll else []) + list(cmd)
        try:
            p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               timeout=timeout)
        except FileNotFoundError:
            raise VectorError("%s not found: install Debian's valgrind" % valgrind)
        except subprocess.TimeoutExpired:
            raise VectorError("%s did not finish within %s s" % (" ".join(cmd), timeout))
        if not os.path.exists(out):
            raise VectorError("cachegrind wrote no output (exit %d): %s" % (
                p.returncode, p.stderr.decode(errors="replace")[-500:]))
        with open(out) as fh:
            cg = parse_cachegrind(fh.read())
        vec = app_vector(cg, miss_model, command=" ".join(cmd))
        vec["exit_code"] = p.returncode
        vec["ll_option"] = ll or "valgrind's own"
        return vec


def write_json(path, vec):
    with open(path, "w") as fh:
        json.dump(vec, fh, indent=1, sort_keys=True)
        fh.write("\n")


def load(path):
    with open(path) as fh:
        vec = json.load(fh)
    if vec.get("format") != FORMAT:
        raise ValueError("%s is not an application vector (format %r)" % (path, vec.get("format")))
    return vec
