#!/usr/bin/env python3
"""Real machines' CPUID through the firmware's own decoder (public dumps, independent reference).

Reads the AIDA64 CPUID dumps of the InstLatx64 repository (github.com/InstLatx64/InstLatx64,
`<Vendor>/<Vendor><signature>_<name>_CPUID.txt`), turns each into the compact fixture format of
tests/cpuid/fixtures/README.md (only the leaves the code reads, per logical CPU, plus the
reference values AIDA64 decoded itself), feeds it to build/host/cpuid_replay (arch/x86_64's
cpu_info.c, pmu_discover.c, pmu_events.c and tsc_deadline_errata.c on the recorded answers) and
counts: machines read, fields agreeing and disagreeing with the reference, crashes, refusals.

  tests/perf/cpuid_corpus.py --mirror /work/.mirror/InstLatx64+InstLatx64/repo   # whole corpus
  tests/perf/cpuid_corpus.py --dumps DIR                                          # extracted files
  tests/perf/cpuid_corpus.py --mirror M --write-fixtures tests/cpuid/fixtures NAME...

The event-table choice is checked against Linux's mapfile.csv regular expressions (quoted with
each table in data/pmu_events_x86.json) and the bytes-per-cycle limits row is looked up with the
harness's own table (harness/bmharness/analysis/limits.py); both are printed per machine.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.environ.get("CPUID_REPLAY", os.path.join(REPO, "build", "host", "cpuid_replay"))

# Leaves the decoder reads (arch/x86_64/cpu_info.c, pmu_discover.c, pmu_quirks.c): every subleaf
# of those listed, nothing else.
LEAVES = {0x0, 0x1, 0x4, 0x6, 0x7, 0xA, 0xB, 0x15, 0x16, 0x1A, 0x23, 0x40000000, 0x80000000,
          0x80000001, 0x80000002, 0x80000003, 0x80000004, 0x80000005, 0x80000006, 0x80000007,
          0x8000001D, 0x80000022}
# Leaves every other logical CPU keeps: what arch_cpu_hw_id reads.
ID_LEAVES = {0x0, 0x1, 0xB}
MAX_ID_CPUS = 64  # logical CPUs whose hardware id a fixture keeps (fixture size)

CPUID_RE = re.compile(r"^CPUID ([0-9A-F]{8})\s*:?\s*([0-9A-F]{8})-([0-9A-F]{8})-([0-9A-F]{8})-([0-9A-F]{8})(.*)$", re.I)
SECTION_RE = re.compile(r"(?:Logical CPU #|^CPU#|CPUID Registers \(CPU #)\s*(\d+)")
ALLCPU_RE = re.compile(r"^CPU\s+(\d+): APICID\s+(\d+) / Package (\d+)")
MSR8B_RE = re.compile(r"^MSR 0000008B: ([0-9A-F]{4})-([0-9A-F]{4})-([0-9A-F]{4})-([0-9A-F]{4})")
MSR_SECTION_RE = re.compile(r"MSR Registers / Logical CPU #(\d+)")
SL_RE = re.compile(r"\[SL ([0-9A-F]+)\]")
NAME_RE = re.compile(r"^CPUID CPU Name\s*:\s*(.*)$")
UNIT = {"KB": 1024, "KiB": 1024, "MB": 1 << 20, "MiB": 1 << 20}
DET_RE = re.compile(r"\[L(\d)([DIU]): (\d+)(?:\+\d+)? (KB|MB)\]|\[L(\d) (Data|Instruction|Unified)\s+(\d+) (KiB|MiB)")
L1_RE = re.compile(r"L1([DI]):?\s*(\d+)\s*(KB|KiB)")
L23_RE = re.compile(r"L([23]):?\s*(\d+)\s*(KB|KiB|MB|MiB)")


def parse_dump(text):
    """{cpus: {n: {(leaf, sub): (regs, note)}}, order, apic: {n: (id, pkg)}, msr8b: {n: v},
    name: AIDA's CPU name line}."""
    cpus, order, apic, msr, name = {}, [], {}, {}, None
    cur, msr_cpu = None, None
    for line in text.splitlines():
        line = line.rstrip("\r")
        m = MSR_SECTION_RE.search(line)
        if m:
            msr_cpu, cur = int(m.group(1)), None
            continue
        m = SECTION_RE.search(line)
        if m and "MSR" not in line:
            cur, msr_cpu = int(m.group(1)), None
            continue
        m = CPUID_RE.match(line)
        if m:
            if cur is None:
                cur = 0
            elif int(m.group(1), 16) == 0 and (0, 0) in cpus.get(cur, {}):
                cur = max(cpus) + 1  # dumps without section lines: leaf 0 again, the next CPU
            regs = tuple(int(m.group(i), 16) for i in range(2, 6))
            leaf, rest = int(m.group(1), 16), m.group(6)
            d = cpus.setdefault(cur, {})
            if cur not in order:
                order.append(cur)
            sl = SL_RE.search(rest)
            sub = int(sl.group(1), 16) if sl else sum(1 for k in d if k[0] == leaf)
            d.setdefault((leaf, sub), (regs, rest.strip()))
            continue
        m = ALLCPU_RE.match(line)
        if m:
            apic[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
            continue
        m = MSR8B_RE.match(line)
        if m and msr_cpu is not None:
            msr.setdefault(msr_cpu, int("".join(m.groups()), 16))
            continue
        m = NAME_RE.match(line)
        if m and name is None:
            name = m.group(1).strip()
    return {"cpus": cpus, "order": order, "apic": apic, "msr8b": msr, "name": name}


def cache_refs(leaves):
    """AIDA64's own cache decodings: [(source, name, bytes)], name as L1D / L2U / L2 / L3."""
    out = []
    for (leaf, sub), (_regs, note) in sorted(leaves.items()):
        if leaf in (0x4, 0x8000001D):
            src = "cpuid4" if leaf == 0x4 else "cpuid8000001d"
            m = DET_RE.search(note)
            if m and m.group(1):
                out.append((src, "L%s%s" % (m.group(1), m.group(2)), int(m.group(3)) * UNIT[m.group(4)]))
            elif m:
                out.append((src, "L%s%s" % (m.group(5), m.group(6)[0]), int(m.group(7)) * UNIT[m.group(8)]))
        elif leaf == 0x80000005 and note:
            for t, n, u in L1_RE.findall(note):
                out.append(("cpuid80000005", "L1" + t, int(n) * UNIT[u]))
        elif leaf == 0x80000006 and note:
            for lvl, n, u in L23_RE.findall(note):
                out.append(("cpuid80000006", "L" + lvl, int(n) * UNIT[u]))
    return out


def brand_ref(leaves):
    """The brand string as AIDA64 printed it beside 0x80000002..4, or None."""
    parts = []
    for leaf in (0x80000002, 0x80000003, 0x80000004):
        note = leaves.get((leaf, 0), (None, ""))[1]
        m = re.match(r"^\[(.*)\]$", note)
        if not m:
            return None
        parts.append(m.group(1))
    return "".join(parts).strip()


def core_type_ref(leaves):
    note = leaves.get((0x1A, 0), (None, ""))[1]
    m = re.match(r"^\[(Core|Atom)", note)
    return m.group(1) if m else None


def same_kind(a, b):
    """Two logical CPUs of one kind: the leaves the decoder reads agree, ids aside."""
    def key(d):
        return {k: v[0] for k, v in d.items() if k[0] in (0x4, 0x1A, 0x8000001D, 0x23)}
    return key(a) == key(b)


def fixture(dump, name, source, max_id_cpus=MAX_ID_CPUS):
    """The compact fixture text of one parsed dump (tests/cpuid/fixtures/README.md)."""
    # <12-character vendor><7 hex digits: CPUID.1:EAX[27:0]>_<name>
    sig = re.match(r"^.{12}([0-9A-F]{7})_", os.path.basename(name))
    lines = ["# InstLatx64 %s (AIDA64 CPUID dump); only the leaves the decoder reads" % source,
             "machine %s" % re.sub(r"\s+", "_", os.path.basename(name))]
    if sig:
        lines.append("sig %s" % sig.group(1))
    else:
        lines.append("# no CPUID signature in the file name")
    for field, pat, why in EXPLAINED:
        if re.search(pat, lines[1].split()[1]):
            lines.append("explain %s %s" % (field, why))
    kinds, seen_ids = [], {}
    apic_pkg = collections.Counter(p for _a, p in dump["apic"].values())
    n_id = 0
    for n in dump["order"]:
        leaves = dump["cpus"][n]
        full = not any(same_kind(leaves, dump["cpus"][k]) for k in kinds)
        if full:
            kinds.append(n)
        elif n_id >= max_id_cpus:
            continue  # every kind is kept; of the others only the first few ids
        else:
            n_id += 1
        head = "cpu %d %s" % (n, "full" if full else "id")
        lines.append(head)
        keep = LEAVES if full else ID_LEAVES
        for (leaf, sub), (regs, _note) in sorted(leaves.items()):
            if leaf in keep:
                lines.append("c %08X %02X %08X %08X %08X %08X" % ((leaf, sub) + regs))
        ids = tuple(leaves.get(k, ((0,) * 4, ""))[0] for k in ((0x1, 0), (0xB, 0)))
        if ids in seen_ids:
            # AIDA64 ran this section's CPUID on a CPU it had already read (every section from
            # there on has the same ids: a Windows processor group it did not reach)
            lines.append("# the same APIC ids as cpu %d: not where AIDA64 meant to run it" % seen_ids[ids])
        elif n in dump["apic"]:
            lines.append("ref apic %d" % dump["apic"][n][0])
        seen_ids.setdefault(ids, n)
        if n in dump["apic"]:
            if full:
                lines.append("ref pkg_cpus %d%s" % (apic_pkg[dump["apic"][n][1]],
                                                   " truncated" if len(dump["apic"]) >= 64 else ""))
        if not full:
            continue
        if n in dump["msr8b"]:
            lines.append("msr 8B %016X" % dump["msr8b"][n])
        vend = leaves.get((0, 0), (None, ""))[1]
        m = re.match(r"^\[(.{12})\]$", vend)
        if m:
            lines.append("ref vendor %s" % m.group(1))
        b = brand_ref(leaves)
        if b is not None:
            lines.append("ref brand %s" % b)
        ct = core_type_ref(leaves)
        if ct:
            lines.append("ref core_type %s" % ct)
        for src, cname, size in cache_refs(leaves):
            lines.append("ref cache %s %s %d" % (src, cname, size))
    return "\n".join(lines) + "\n"


# ---- reference for the event table: Linux's mapfile.csv expressions ----------------------------

# mapfile.csv lines the data file quotes in short: amdzen1 AuthenticAMD-23-([12][0-9A-F]|[0-9A-F])
# and amdzen2 AuthenticAMD-23-[[:xdigit:]]+ (one table here, amd_zen); skylakex
# GenuineIntel-6-55-[01234] and cascadelakex GenuineIntel-6-55-[56789ABCDEF] (one table here,
# intel_skylake, whatever the stepping).
LINUX_SPELLED_OUT = (("AuthenticAMD-23-[0-9A-F]+", "amd_zen"), ("GenuineIntel-6-55", "intel_skylake"))


def mapfile_refs():
    """[(compiled regex over 'Vendor-family-MODEL', table name, core type or None)] from the
    `mapfile` quotes of data/pmu_events_x86.json (Linux's expressions, [[:xdigit:]] as a class)."""
    data = json.load(open(os.path.join(REPO, "data", "pmu_events_x86.json")))
    out = []
    for t in data["tables"]:
        for m in t.get("match") or []:
            for part in re.split(r"[;,] ", m["mapfile"]):
                mm = re.match(r"^((?:GenuineIntel|AuthenticAMD)-\S+)", part.strip())
                if not mm:
                    continue
                if mm.group(1).endswith("-*"):
                    continue  # an abbreviation, not Linux's expression: LINUX_SPELLED_OUT has it
                rx = mm.group(1).replace("[[:xdigit:]]", "[0-9A-F]")
                out.append((re.compile("^" + rx + "$"), t["name"], m.get("core_type")))
    return out + [(re.compile("^" + rx + "$"), name, None) for rx, name in LINUX_SPELLED_OUT]


def expected_table(refs, vendor, family, model, core):
    if vendor not in ("GenuineIntel", "AuthenticAMD"):
        return "none"
    ident = "%s-%d-%X" % (vendor, family, model)
    for rx, name, ct in refs:
        if rx.match(ident) and (ct is None or ct == core):
            return name
    return "none"


def limits_row(vendor, family, model):
    sys.path.insert(0, os.path.join(REPO, "harness"))
    from bmharness.analysis import limits  # noqa: E402  (the harness's own table)
    row = limits.lookup({"vendor": vendor, "family": family, "model": model})
    return row["name"] if row else "limit unknown"


# ---- running ----------------------------------------------------------------------------------

# Disagreements understood and left (docs/portability.md "CPUID corpus" says why in full): field,
# a pattern of the machine's name, the reason.
EXPLAINED = (
    ("apic_id", r"_K15_(Zambezi8C|Richland|BaldEagle|Berlin_00|Kaveri)$",
     "AMD family 15h boards number the local APICs from 16 (the BIOS's APIC id offset); CPUID "
     "01H EBX[31:24] is the initial id 0..n, the dump lists the APIC register's"),
    ("apic_id", r"_K17_ZenP2$",
     "AIDA64's list numbers the second die's threads on from 16; CPUID's initial APIC ids "
     "(and the hardware's) start that die at 32"),
    ("pkg_cpus", r"_Vortex86DX3$",
     "a dual-core SoC whose CPUID 01H EDX[28] (HTT) is clear, which the SDM reads as one logical "
     "processor per package; the firmware counts CPUs from the MADT, not from this"),
    ("brand", r"_K17_VanGogh_01$|_Spreadtrum$|_SoFIA$",
     "the brand string ends at its first NUL (SDM: a null-terminated string); AIDA64 also "
     "printed the firmware's leftover bytes after it"),
)


def explained(stem, field):
    for f, pat, why in EXPLAINED:
        if f == field and re.search(pat, stem):
            return why
    return None


def run_tool(paths):
    """(returncode, stdout, stderr) of the replay tool on fixtures (a hang is a crash)."""
    try:
        p = subprocess.run([TOOL] + paths, capture_output=True, text=True, timeout=60 + 5 * len(paths))
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return -999, "", "timeout (hang)"


def run_all(paths, batch=25):
    """{path: (rc, output)}: batches, and one by one where a batch crashed."""
    out = {}
    for i in range(0, len(paths), batch):
        part = paths[i:i + batch]
        rc, text, err = run_tool(part)
        if rc in (0, 3):
            chunks = re.split(r"(?m)^(?=machine |refused )", text)
            by_name = {}
            for c in chunks:
                m = re.match(r"machine (\S+)|refused .*\((.*)\)$", c.splitlines()[0] if c else "")
                if m:
                    by_name[m.group(1) or os.path.basename(m.group(2))[:-4]] = c
            for pth in part:
                name = os.path.basename(pth)[:-4]
                out[pth] = (3 if by_name.get(name, "").startswith("refused") else 0, by_name.get(name, ""))
            continue
        for pth in part:
            rc, text, err = run_tool([pth])
            out[pth] = (rc, text if rc in (0, 3) else (err.strip().splitlines() or [""])[-1])
    return out


def dump_files(args):
    """[(relative path, text)] of every *_CPUID.txt of the mirror or directory."""
    out = []
    if args.mirror:
        names = subprocess.run(["git", "--git-dir", args.mirror, "ls-tree", "-r", "--name-only", "HEAD"],
                               capture_output=True, text=True, check=True).stdout.splitlines()
        for n in sorted(x for x in names if x.endswith("_CPUID.txt")):
            if args.only and not any(o in n for o in args.only):
                continue
            blob = subprocess.run(["git", "--git-dir", args.mirror, "show", "HEAD:" + n],
                                  capture_output=True, check=True).stdout
            out.append((n, blob.decode("latin-1")))
    else:
        for root, _d, files in os.walk(args.dumps):
            for f in sorted(files):
                if f.endswith("_CPUID.txt") and (not args.only or any(o in f for o in args.only)):
                    path = os.path.join(root, f)
                    out.append((os.path.relpath(path, args.dumps), open(path, encoding="latin-1").read()))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirror", help="bare git dir of InstLatx64 (the fetch tool's copy)")
    ap.add_argument("--dumps", help="a directory holding the extracted dumps instead")
    ap.add_argument("--write-fixtures", metavar="DIR", help="write the fixtures of the named dumps here")
    ap.add_argument("--work", default="/tmp/cpuid_corpus", help="where the whole-corpus fixtures go")
    ap.add_argument("--max-id-cpus", type=int, default=MAX_ID_CPUS,
                    help="logical CPUs whose ids a fixture keeps (default %(default)s)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every disagreement")
    ap.add_argument("only", nargs="*", help="substrings of the dump names to take (default: all)")
    args = ap.parse_args()
    if not args.mirror and not args.dumps:
        ap.error("--mirror or --dumps")
    files = dump_files(args)
    outdir = args.write_fixtures or args.work
    os.makedirs(outdir, exist_ok=True)
    if not os.access(TOOL, os.X_OK):
        sys.exit("%s missing: make build/host/cpuid_replay" % TOOL)
    refs = mapfile_refs()
    counts = collections.Counter()
    per_field = collections.defaultdict(collections.Counter)
    refusals, crashes, disagreements, notes = collections.Counter(), [], [], collections.Counter()
    paths = {}
    for rel, text in files:
        dump = parse_dump(text)
        stem = re.sub(r"\s+", "_", os.path.basename(rel)[:-len("_CPUID.txt")])
        if not dump["order"]:
            refusals["no CPUID register lines (not an AIDA64 CPUID dump)"] += 1
            continue
        path = os.path.join(outdir, stem + ".txt")
        with open(path, "w") as f:
            f.write(fixture(dump, stem, rel, args.max_id_cpus))
        paths[path] = rel
        notes["artifact"] += open(path).read().count("not where AIDA64 meant")
    results = run_all(sorted(paths))
    for path, (rc, out) in sorted(results.items()):
        stem = os.path.basename(path)[:-4]
        if rc not in (0, 3):
            crashes.append((paths[path], rc, out))
            continue
        if rc == 3:
            refusals[re.sub(r" \(.*\)$", "", out.strip())] += 1
            continue
        counts["machines"] += 1
        for line in out.splitlines():
            w = line.split()
            if len(w) >= 3 and w[0] == "check":
                verdict = w[2]
                if verdict == "explained":
                    notes[(w[1], explained(stem, w[1]))] += 1
                per_field[w[1]][verdict] += 1
                counts[verdict] += 1
                if verdict == "disagree":
                    disagreements.append((stem, line))
            if len(w) >= 2 and w[0] == "kind":
                kinds = dict(x.split("=", 1) for x in w[2:] if "=" in x)
                # the event table against Linux's mapfile, the limits row by the harness's table
                fam, mod = int(kinds.get("family", "0"), 0), int(kinds.get("model", "0"), 0)
                want = expected_table(refs, kinds.get("vendor"), fam, mod, kinds.get("core_type"))
                got = kinds.get("event_table", "none")
                verdict = "agree" if want == got else "disagree"
                per_field["event_table"][verdict] += 1
                counts[verdict] += 1
                if verdict == "disagree":
                    disagreements.append((stem, "check event_table disagree ours=%s linux_mapfile=%s" % (got, want)))
                row = limits_row(kinds.get("vendor"), fam, mod)
                counts["limits_row:" + ("unknown" if row == "limit unknown" else "known")] += 1
                if args.verbose:
                    print("%s: %s limits=%s" % (stem, line, row))
    print("dumps: %d files" % len(files))
    print("machines read: %d" % counts["machines"])
    print("fields agreeing: %d, disagreeing: %d, disagreeing but explained: %d (no reference: %d)"
          % (counts["agree"], counts["disagree"], counts["explained"], counts["noref"]))
    for k in sorted(per_field):
        c = per_field[k]
        print("  %-12s agree %5d  disagree %3d  explained %3d  noref %4d"
              % (k, c["agree"], c["disagree"], c["explained"], c["noref"]))
    print("limits row: known for %d CPU kinds, unknown for %d" % (counts["limits_row:known"], counts["limits_row:unknown"]))
    print("CPU sections AIDA64 read on the wrong CPU (apic not compared): %d" % notes["artifact"])
    print("crashes: %d" % len(crashes))
    for c in crashes:
        print("  crash %s rc=%s %s" % c)
    print("refusals: %d" % sum(refusals.values()))
    for why, n in refusals.most_common():
        print("  %4d %s" % (n, why))
    for key, n in sorted((k, v) for k, v in notes.items() if isinstance(k, tuple)):
        print("explained %s x%d: %s" % (key[0], n, key[1]))
    if disagreements:
        print("disagreements:")
        for stem, line in disagreements:
            print("  %s: %s" % (stem, line))
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
