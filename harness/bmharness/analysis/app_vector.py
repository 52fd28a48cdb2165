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

With --branch-sim=yes (the default since the per-kind model) cachegrind also simulates a branch
predictor and counts conditional branches Bc and their mispredictions Bcm, indirect branches Bi
(returns among them) and theirs Bim; the vector is then the per-kind model's (MODEL_PRIM), whose
coefficients are probe `prim`'s (prim_costs.py):
- op_ns.int_indep: Ir - Dr - Dw - Bc - Bi, the rest of the instructions (an x86 instruction with
  a memory operand is counted as its access only: the model's approximation);
- op_ns.load: Dr; op_ns.store: Dw (L1 hits: their misses are the traffic terms above);
- op_ns.branch: Bc - Bcm, op_ns.branch_miss: Bcm; op_ns.indirect: Bi - Bim, op_ns.indirect_miss:
  Bim (cachegrind's predictor is a simple one: its mispredictions stand for the machine's);
- op_ns.syscall, op_ns.page_fault, op_ns.ctx_switch: the operating system's counts, from
  `strace -f -c` (system calls) and GNU time's -v (minor + major page faults, voluntary +
  involuntary context switches), run once each beside cachegrind (os_counts()).
Without branch counts (an older file) the vector is the one-instruction model (MODEL_INSN):
insn_ns: Ir.

Start-up: subtract(vec, base) takes an empty program's vector (the same tools over /bin/true)
off a program's, so the counts are the program's own work (its time is taken off the measured
time the same way).

perf stat: where a PMU is visible (perf_counts()), its instructions, branches and branch-misses
are recorded beside cachegrind's as `perf` (this machine's Linux sees none: recorded as absent)."""

import json
import os
import re
import subprocess
import tempfile

FORMAT, VERSION = "baremetric-app-vector", 1
EVENTS = ("Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw")
BRANCH_EVENTS = ("Bc", "Bcm", "Bi", "Bim")
OS_COUNTS = ("syscalls", "page_faults", "ctx_switches")
MODEL_PRIM, MODEL_INSN = "prim", "insn"
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


def _uses(e, line, miss_model, os_counts):
    """{coefficient name: uses} from cachegrind's counts (and the OS counts, or None)."""
    llc_reads = e["DLmr"] + e["ILmr"]
    l1_reads = max(0, e["D1mr"] - e["DLmr"]) + max(0, e["I1mr"] - e["ILmr"])
    uses = {"write_ns_per_byte.L2": max(0, e["D1mw"] - e["DLmw"]) * line,
            "write_ns_per_byte.DRAM": e["DLmw"] * line}
    if miss_model == "latency":
        uses["load_ns.L2"] = l1_reads
        uses["load_ns.DRAM"] = llc_reads
    else:
        uses["read_ns_per_byte.L2"] = l1_reads * line
        uses["read_ns_per_byte.DRAM"] = llc_reads * line
    if not all(k in e for k in BRANCH_EVENTS):
        uses["insn_ns"] = e["Ir"]
        return uses, MODEL_INSN
    uses.update({
        "op_ns.int_indep": max(0, e["Ir"] - e["Dr"] - e["Dw"] - e["Bc"] - e["Bi"]),
        "op_ns.load": e["Dr"], "op_ns.store": e["Dw"],
        "op_ns.branch": max(0, e["Bc"] - e["Bcm"]), "op_ns.branch_miss": e["Bcm"],
        "op_ns.indirect": max(0, e["Bi"] - e["Bim"]), "op_ns.indirect_miss": e["Bim"]})
    if os_counts:
        uses.update({"op_ns.syscall": os_counts.get("syscalls", 0),
                     "op_ns.page_fault": os_counts.get("page_faults", 0),
                     "op_ns.ctx_switch": os_counts.get("ctx_switches", 0)})
    return uses, MODEL_PRIM


def app_vector(cg, miss_model="bandwidth", seconds=None, command=None, os_counts=None):
    """The vector dict from parse_cachegrind()'s result (and os_counts()'s, or None)."""
    if miss_model not in MISS_MODELS:
        raise VectorError("miss model %r: one of %s" % (miss_model, ", ".join(MISS_MODELS)))
    e, line = cg["events"], cg["line"]
    uses, model = _uses(e, line, miss_model, os_counts)
    return {"format": FORMAT, "format_version": VERSION, "tool": "cachegrind",
            "command": command or cg.get("cmd"), "miss_model": miss_model, "model": model,
            "line_bytes": line, "events": e, "cache_desc": cg.get("desc"), "os": os_counts,
            "reference_seconds": seconds, "uses": uses}


def subtract(vec, base):
    """vec less base (an empty program's vector, same tools): the program's own counts, each
    clipped at 0, the uses recomputed. The result names the base's command (`startup_subtracted`)."""
    e = {k: max(0, v - (base.get("events") or {}).get(k, 0)) for k, v in vec["events"].items()}
    os_counts = None
    if vec.get("os"):
        bos = base.get("os") or {}
        os_counts = {k: max(0, v - bos.get(k, 0)) for k, v in vec["os"].items()}
    out = dict(vec, events=e, os=os_counts, startup_subtracted=base.get("command"))
    out["uses"], out["model"] = _uses(e, vec["line_bytes"], vec["miss_model"], os_counts)
    return out


def parse_strace_summary(text):
    """Total system calls of a `strace -c -U calls,name` summary, or None."""
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1] == "total" and parts[0].isdigit():
            return int(parts[0])
    return None


def parse_time_v(text):
    """{page_faults, ctx_switches} from GNU time -v's report, or None."""
    got = {}
    for line in text.splitlines():
        m = re.match(r"\s*(Major|Minor) \(.*\) page faults:\s*(\d+)", line)
        if m:
            got["page_faults"] = got.get("page_faults", 0) + int(m.group(2))
        m = re.match(r"\s*(Voluntary|Involuntary) context switches:\s*(\d+)", line)
        if m:
            got["ctx_switches"] = got.get("ctx_switches", 0) + int(m.group(2))
    return got if len(got) == 2 else None


def os_counts(cmd, timeout=None, strace="strace", gnu_time="/usr/bin/time"):
    """{syscalls, page_faults, ctx_switches} of one run of cmd each under strace -f -c and GNU
    time -v (Debian's strace and time). Raises VectorError."""
    with tempfile.TemporaryDirectory(prefix="bm-os-") as tmp:
        st, tv = os.path.join(tmp, "strace.txt"), os.path.join(tmp, "time.txt")
        try:
            subprocess.run([strace, "-f", "-c", "-U", "calls,name", "-o", st] + list(cmd),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
            subprocess.run([gnu_time, "-v", "-o", tv] + list(cmd), stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=timeout)
        except FileNotFoundError as exc:
            raise VectorError("%s not found: install Debian's strace and time" % exc.filename)
        except subprocess.TimeoutExpired:
            raise VectorError("%s did not finish within %s s" % (" ".join(cmd), timeout))
        try:
            calls = parse_strace_summary(open(st).read())
            tvc = parse_time_v(open(tv).read())
        except OSError as exc:
            raise VectorError("no OS counts: %s" % exc)
    if calls is None or tvc is None:
        raise VectorError("strace -c or time -v gave no counts for %s" % " ".join(cmd))
    return dict(tvc, syscalls=calls)


PERF_EVENTS = ("instructions", "branches", "branch-misses")


def perf_counts(cmd, perf="perf", timeout=None):
    """{event: count} from `perf stat` where a PMU counts them, or None (no perf, no PMU: Linux
    reports the events <not supported>)."""
    try:
        p = subprocess.run([perf, "stat", "-x,", "-e", ",".join(PERF_EVENTS)] + list(cmd),
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    got = {}
    for line in p.stderr.decode(errors="replace").splitlines():
        f = line.split(",")
        if len(f) > 2 and f[2] in PERF_EVENTS and f[0].strip().isdigit():
            got[f[2]] = int(f[0])
    return got or None


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
                 ll=None, branch_sim=True, with_os=True):
    """Run cmd under cachegrind (and, with_os, once each under strace and GNU time; and under perf
    stat) and return its vector. ll: the --LL option (default this machine's last level from
    sysfs, see last_level_option). Raises VectorError."""
    if not cmd:
        raise VectorError("no command to characterise (give it after --)")
    ll = last_level_option() if ll is None else ll
    with tempfile.TemporaryDirectory(prefix="bm-cg-") as tmp:
        out = os.path.join(tmp, "cachegrind.out")
        argv = [valgrind, "--tool=cachegrind", "--cache-sim=yes",
                "--branch-sim=" + ("yes" if branch_sim else "no"),
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
    osc = os_counts(cmd, timeout) if with_os else None
    vec = app_vector(cg, miss_model, command=" ".join(cmd), os_counts=osc)
    vec["exit_code"] = p.returncode
    vec["ll_option"] = ll or "valgrind's own"
    vec["perf"] = perf_counts(cmd, timeout=timeout) if with_os else None
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
