#!/usr/bin/env python3
"""record_shape.py -- the "shape" of a baremetric record stream, to prove that a refactoring
did not change what the firmware emits (issue: restructuring must not change behaviour).

    record_shape.py shape LOG [--out FILE]   the shape as sorted JSON (stdout or FILE)
    record_shape.py compare A B              A, B: logs or shape JSON; prints the differences,
                                             exit 0 same, 1 different, 2 unusable input

Standard library only, and deliberately independent of harness/bmharness (which is being
reorganised): the few lines of docs/protocol.md "Line format" it needs are re-implemented here.

Reading a log (docs/protocol.md, protocol versions 1 and 2: they differ only in the sample value
lists, which are never looked at):
  - a record starts at every `@BM ` on a line (console noise before it is dropped); its frame is
    `@BM <ver> <seq> <type>[ key=value]... |<crc8>`, the CRC-32 (zlib) of the text before ` |`;
  - a candidate with no CRC, a wrong CRC or another version is dropped and counted (`dropped`);
  - the last boot is used: a `begin` record with seq 0 starts a new boot; a record whose seq was
    already seen in this boot (a duplicated line) is kept once;
  - keys are split at the first `=` (values are never looked at, so no unescaping is needed);
  - a record whose body fills the firmware's line buffer (CUT_BODY: lib/record.h REC_MAX_LINE
    1024 less the trailer's room) was cut by the encoder, which truncates silently: its CRC is
    valid but its last keys are missing and its last token may lack `=` (that token is dropped).
    Its layout is listed in `cut`, and `compare` does not report keys missing on the cut side.
    Seen at a4931c1: AArch64 `check name=displace_vs_direct` is 1009-1020 bytes long and was cut
    (clock_res_cycles, statistic, criterion... lost) in a boot on a loaded host, where its
    values were longer. That is a firmware bug (the harness drops such records as malformed).

What the shape is: for each record *layout* -- the record type plus the field that selects its
layout (DISCRIMINATOR below: `plat`/`prof` by `kind`, `probe` and `check` by `name`, `skip` and
`fault` by `probe`; every other type by its type alone) -- the union of the keys of all its
records, written as "<type>" or "<type> <field>=<value>". So a record type, layout or key that
appears, disappears or is renamed changes the shape. For QEMU boots (begin env=uefi) the number
of records of each layout is compared too, except for COUNT_VARIES: so a probe that loses one of
its parameter sets (same keys, one `probe` record fewer) is caught.

What is ignored, and why (decided by running each configuration twice, see the test):
  - every value other than the discriminator's;
  - the number of `samples`, `ctr`, `prof_data` and `msg` records: in two default boots of the
    same build the samples chunks differed (x86_64: 3212 vs 2662 -- the noise probe's gap sets
    follow timing) and an AArch64 boot had one more `msg level=error` (a one-shot interrupt lost
    under TCG); which levels of `msg` occur is therefore not compared either (`msg` only);
    every other layout's count was the same in both boots of each configuration;
  - the order of records and of keys;
  - the variable part of keys that name a host thing rather than a field: `cmdline.<param>`
    (the kernel's command line) -> `cmdline.*`, `huge_<size>_total/_free` (hugetlb pool sizes of
    the host) -> `huge_*_total`/`huge_*_free` (NORMALISE below);
  - hosted runs only (begin env=hosted; the host CPU is whatever the VM was given -- Zen 4 or
    Zen 5, AVX-512 exposed or not, a PMU visible to Linux or not, /sys/.../cache present or
    not): the layouts in HOSTED_VOLATILE_LAYOUTS are not reported when only one side has them
    (their keys are compared when both do), the keys in HOSTED_VOLATILE_KEYS are not compared,
    and no counts are compared (cache levels, hence latency/cachefill sets, follow the host).
    Everything else of a hosted run is compared like a QEMU boot's. Assumed: at least 2 CPUs
    allowed (with one, smp_hello/membw_mc skip and plat kind=smp changes: a real difference).
  - hosted runs only, what a CPU feature adds or takes away: the shape keeps each `skip` layout's
    reasons (`skips`) and each `check` layout's probe (`probe_of`). A `skip` layout on one side
    only is not reported when every reason it carries there names something the machine lacks
    (MACHINE_REASONS: `CPU lacks ...` (rdtscp, FMA3, AVX-512F), no PMU for Linux, a cache
    geometry the CPU does not give, one CPU); a layout of probe P (`probe name=P`, a check of P)
    on one side only is not reported when the other side skipped P for such a reason; and the
    keys of a `skip` layout on both sides are not compared when its reasons differ (a counter
    skip and a feature skip of one probe have other keys). So a machine without rdtscp (a `skip
    probe=timer method=rdtscp`), with AVX-512 (no `skip probe=flops`), or whose cache geometry
    is unknown passes against the stored shape, while a probe that skips for any other reason,
    or a renamed key, still differs.
The shape JSON carries `layouts`, `counts`, `cut` and, for the reader only, `source` (file name, dropped
candidates, whether `end` was seen; not the number of records, which follows timing); compare
looks at `layouts`, `counts` and `env`.
"""

import argparse
import json
import re
import sys
import zlib

FRAME = re.compile(r"(@BM ([0-9]+) ([0-9]+) ([a-z0-9_]+)((?: [^ |]*)*)) \|([0-9a-f]{8})")
DISCRIMINATOR = {"plat": "kind", "prof": "kind", "probe": "name", "check": "name",
                 "skip": "probe", "fault": "probe"}
# Layouts whose number of records follows timing (sample chunks, run-length encoding, noise gaps,
# a probe's warning or error): never counted. Hosted runs are not counted at all.
COUNT_VARIES = {"samples", "ctr", "prof_data", "msg"}
CUT_BODY = 1024 - 11 - 2  # a body this long filled lib/record.c's buffer (NUL, trailer room)
NORMALISE = [(re.compile(r"cmdline\..+\Z"), "cmdline.*"),
             (re.compile(r"huge_[0-9a-z]+_(total|free)\Z"), r"huge_*_\1")]
# Hosted: what differs with the host's CPU, kernel and sysfs (docs/protocol.md, and the records of
# a run on a Zen VM). Not here because it is constant in the hosted build: plat kind=pmu (present=0,
# all fields zero: counters need ring 0), the counter skips (same reason), pmu_cost's skip.
HOSTED_VOLATILE_LAYOUTS = {
    "plat kind=cache_sysfs",        # absent when /sys/devices/system/cpu/cpuN/cache is missing
    "check name=instructions_retired", "skip probe=pmu_check",  # pmu_check: a check where
                                    # Linux sees a PMU (perf_event_open), else a skip
}
# Skip reasons that name what this machine lacks (hosted: the layouts they add or take away follow
# the host CPU, see the module docstring); a skip for any other reason is a real difference.
MACHINE_REASONS = re.compile(
    r"(^CPU lacks |no PMU visible to Linux|cache geometry|geometry unknown|no such cache level"
    r"|only one CPU|one CPU allowed)")
HOSTED_VOLATILE_KEYS = {
    # shared_by: omitted where CPUID does not say (0x80000005/6); geometry, reason, reported_size:
    # only on a level whose CPUID description was refused (a hypervisor's, arch/x86_64/cache_judge.c)
    "plat kind=cache": {"shared_by", "geometry", "reason", "reported_size"},
    "plat kind=os": {"cmdline.*", "huge_*_total", "huge_*_free"},  # per parameter / pool size
    "skip probe=membw": {"kernel", "width"},  # kernels skipped for a missing AVX2/AVX-512F
}


VERSIONS = ("1", "2")  # protocol versions read


def records(data):
    """(records of the last boot as (seq, type, [(key, "=", value)], cut), dropped candidates)."""
    boot, seen, dropped = [], set(), 0
    for line in data.decode("latin-1").splitlines():
        for cand in line.split("@BM ")[1:]:
            m = FRAME.match("@BM " + cand)
            if not m or "%08x" % (zlib.crc32(m.group(1).encode("latin-1")) & 0xFFFFFFFF) != m.group(6) \
                    or m.group(2) not in VERSIONS:
                dropped += 1
                continue
            seq, rtype = int(m.group(3)), m.group(4)
            fields = [tok.partition("=") for tok in m.group(5).split(" ")[1:]]
            cut = len(m.group(1)) >= CUT_BODY
            if cut and fields and not fields[-1][1]:
                fields.pop()
            if any(not eq for _, eq, _ in fields):
                dropped += 1
                continue
            if rtype == "begin" and seq == 0:
                boot, seen = [], set()
            if seq in seen:
                continue
            seen.add(seq)
            boot.append((seq, rtype, fields, cut))
    return boot, dropped


def norm(key):
    for pat, rep in NORMALISE:
        if pat.match(key):
            return pat.sub(rep, key)
    return key


def shape_of_log(path):
    with open(path, "rb") as fh:
        recs, dropped = records(fh.read())
    layouts, counts, cut_layouts, env = {}, {}, set(), None
    skips, probe_of = {}, {}
    for _, rtype, fields, cut in recs:
        d = DISCRIMINATOR.get(rtype)
        vals = dict((k, v) for k, _, v in fields)
        name = "%s %s=%s" % (rtype, d, vals[d]) if d in vals else rtype
        layouts.setdefault(name, set()).update(norm(k) for k, _, _ in fields)
        counts[name] = counts.get(name, 0) + 1
        if cut:
            cut_layouts.add(name)
        if rtype == "begin":
            env = vals.get("env")
        elif rtype == "skip":
            skips.setdefault(name, set()).add(unquote(vals.get("reason", "")))
        elif rtype == "check" and "probe" in vals:
            probe_of[name] = vals["probe"]
    return {"format": "baremetric-record-shape/1", "env": env,
            "skips": {k: sorted(v) for k, v in sorted(skips.items())},
            "probe_of": dict(sorted(probe_of.items())),
            "source": {"file": path.rsplit("/", 1)[-1], "dropped": dropped,
                       "end_seen": any(r[1] == "end" for r in recs)},
            "cut": sorted(cut_layouts),
            "layouts": {k: sorted(v) for k, v in sorted(layouts.items())},
            "counts": {k: v for k, v in sorted(counts.items())
                       if env != "hosted" and k.split(" ")[0] not in COUNT_VARIES}}


def unquote(value):
    """A value's %XX escapes undone (docs/protocol.md "Line format"), for reading skip reasons."""
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), value)


def probe_of_layout(shape, name):
    """The probe a layout belongs to: `probe name=P`, `skip probe=P`, a check's `probe` value."""
    kind, _, rest = name.partition(" ")
    if kind in ("probe", "skip") and "=" in rest:
        return rest.split("=", 1)[1]
    return shape.get("probe_of", {}).get(name)


def machine_skip(shape, probe):
    """Whether the shape skipped `probe` (in whole or in part) for a reason the machine gives."""
    reasons = shape.get("skips", {}).get("skip probe=%s" % probe, [])
    return any(MACHINE_REASONS.search(r) for r in reasons)


def feature_excused(has, lacks, name):
    """Hosted: whether a layout that only `has` carries follows a CPU feature (module docstring)."""
    if name.startswith("skip "):
        reasons = has.get("skips", {}).get(name, [])
        return bool(reasons) and all(MACHINE_REASONS.search(r) for r in reasons)
    probe = probe_of_layout(has, name)
    return probe is not None and machine_skip(lacks, probe)


def load(path):
    """A shape: from a shape JSON file, or computed from a log."""
    with open(path, "rb") as fh:
        head = fh.read(64).lstrip()
    if head.startswith(b"{"):
        with open(path) as fh:
            return json.load(fh)
    return shape_of_log(path)


def compare(a, b):
    """Differences between shapes a and b as lines of text ([] = same)."""
    out = []
    if a.get("env") != b.get("env"):
        out.append("env: %s -> %s" % (a.get("env"), b.get("env")))
    hosted = a.get("env") == b.get("env") == "hosted"
    la, lb = a["layouts"], b["layouts"]
    cut_a, cut_b = set(a.get("cut", [])), set(b.get("cut", []))
    for name in sorted(set(la) | set(lb)):
        if hosted and name in HOSTED_VOLATILE_LAYOUTS and (name in la) != (name in lb):
            continue
        if hosted and (name in la) != (name in lb) and \
                feature_excused(*((a, b) if name in la else (b, a)), name):
            continue
        if name not in lb:
            out.append("- %s   (layout removed; keys: %s)" % (name, ",".join(la[name])))
        elif name not in la:
            out.append("+ %s   (layout added; keys: %s)" % (name, ",".join(lb[name])))
        else:
            ka, kb = set(la[name]), set(lb[name])
            if hosted:
                vol = HOSTED_VOLATILE_KEYS.get(name, set())
                ka, kb = ka - vol, kb - vol
                if name.startswith("skip ") and \
                        a.get("skips", {}).get(name) != b.get("skips", {}).get(name):
                    continue  # another skip of the probe (module docstring)
            for k in sorted(ka - kb) if name not in cut_b else []:
                out.append("  %s: - key %s" % (name, k))
            for k in sorted(kb - ka) if name not in cut_a else []:
                out.append("  %s: + key %s" % (name, k))
    ca, cb = a.get("counts", {}), b.get("counts", {})
    for name in sorted(set(ca) & set(cb)):
        if ca[name] != cb[name]:
            out.append("  %s: %d -> %d records" % (name, ca[name], cb[name]))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("shape", help="print or write the shape of a log")
    s.add_argument("log")
    s.add_argument("--out")
    c = sub.add_parser("compare", help="compare two logs or shape files")
    c.add_argument("a")
    c.add_argument("b")
    args = ap.parse_args(argv)
    if args.cmd == "shape":
        shape = shape_of_log(args.log)
        if not shape["layouts"]:
            print("%s: no valid records" % args.log, file=sys.stderr)
            return 2
        text = json.dumps(shape, indent=1, sort_keys=True) + "\n"
        if args.out:
            with open(args.out, "w") as fh:
                fh.write(text)
        else:
            sys.stdout.write(text)
        return 0
    a, b = load(args.a), load(args.b)
    for path, sh in ((args.a, a), (args.b, b)):
        if not sh["layouts"]:
            print("%s: no valid records" % path, file=sys.stderr)
            return 2
    for path, sh in ((args.a, a), (args.b, b)):
        for name in sh.get("cut", []):
            print("note: %s: a %s record was cut at the line limit (its missing keys are not "
                  "compared)" % (path, name))
        if sh.get("source", {}).get("dropped"):
            print("note: %s: %d damaged record candidates dropped (CRC, frame or version)"
                  % (path, sh["source"]["dropped"]))
    diff = compare(a, b)
    if diff:
        print("record shapes differ (%s -> %s):" % (args.a, args.b))
        print("\n".join(diff))
        return 1
    print("record shapes are the same (%d layouts)" % len(a["layouts"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
