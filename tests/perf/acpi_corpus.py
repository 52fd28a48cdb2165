#!/usr/bin/env python3
"""Every machine of the public ACPI corpus (linuxhw/ACPI: acpidump text and iasl's disassembly of
815 machines) and of a public SMBIOS corpus (linuxhw/DMI: dmidecode text) through the firmware's
own parsers, compared field by field with the reference decoder. Prints counts: machines read,
fields agreeing and disagreeing, crashes (the tool dying on a signal or a sanitizer report),
refusals with their reasons, and every disagreement (grouped).

  tests/perf/acpi_corpus.py [--acpi-mirror DIR] [--dmi-mirror DIR] [--dmi-limit N] [--tool PATH]
                            [--save-fixtures DIR --fixture-list FILE]

The mirrors are bare git directories (the `fetch` tool's /work/.mirror/linuxhw+ACPI/repo,
linuxhw+DMI/repo); acpixtract (Debian acpica-tools) splits each acpidump into tables. The tool is
build/host/fw_corpus (make fw-corpus-tool), built with ASan/UBSan like the unit tests."""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fw_reference  # noqa: E402
import smbios_reference  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL_TIMEOUT_S = 20
# The tables the firmware's parsers read, and those whose presence it reports: all a fixture keeps.
FIXTURE_SIGS = ("APIC", "FACP", "HPET", "MCFG", "SPCR", "DMAR", "IVRS", "IORT")


def git_ls(mirror):
    out = subprocess.run(["git", "-C", mirror, "ls-tree", "-r", "-z", "--name-only", "HEAD"],
                         capture_output=True, check=True).stdout
    return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]


def git_show(mirror, path):
    r = subprocess.run(["git", "-C", mirror, "show", ("HEAD:" + path).encode("utf-8", "surrogateescape")],
                       capture_output=True)
    return r.stdout if r.returncode == 0 else None


def run_tool(tool, args):
    """(lines dict, crashed reason or None)."""
    try:
        r = subprocess.run([tool] + args, capture_output=True, timeout=TOOL_TIMEOUT_S,
                           env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0",
                                    UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"))
    except subprocess.TimeoutExpired:
        return {}, "hang (over %d s)" % TOOL_TIMEOUT_S
    err = r.stderr.decode(errors="replace")
    if r.returncode != 0 or "runtime error" in err or "AddressSanitizer" in err:
        return {}, "exit %d: %s" % (r.returncode, err.strip().splitlines()[-1:] if err else "")
    d = {}
    for line in r.stdout.decode(errors="replace").splitlines():
        k, _, v = line.partition(" ")
        d[k] = v
    return d, None


def order_tables(files, sigs):
    """acpixtract's files in the disassembly's table order (the order the XSDT is built in)."""
    left, out = sorted(files), []
    for s in sigs:
        stem = re.sub(r"[^a-z0-9]", "_", s.lower())
        for f in left:
            b = os.path.basename(f)
            if re.fullmatch(re.escape(stem) + r"\d*\.dat", b):
                out.append(f)
                left.remove(f)
                break
    return out + left


def compare(ours, ref, tally, diffs, machine):
    for k, v in ref.items():
        if k not in ours:
            tally["disagree"] += 1
            diffs[k.split(".")[0] + "." + k.split(".")[1]].append((machine, k, "absent", v))
        elif ours[k] == v:
            tally["agree"] += 1
        else:
            tally["disagree"] += 1
            key = re.sub(r"\.\d+$", ".N", k)
            diffs[key].append((machine, k, ours[k], v))
    for k in ours:
        if k not in ref and not k.startswith("gic."):
            tally["extra"] += 1


def acpi_run(args, tool):
    tally = collections.Counter()
    diffs = collections.defaultdict(list)
    crashes, unreadable, refusals = [], 0, collections.Counter()
    paths = git_ls(args.acpi_mirror)
    pset = set(paths)
    machines = sorted(p for p in paths if not p.endswith(".bin") and p + ".bin" in pset
                      and (not args.save_fixtures or p in args.fixture_set))
    tally["listed"] = len(machines)
    per_machine = []
    for m in machines:
        dump, dsl = git_show(args.acpi_mirror, m + ".bin"), git_show(args.acpi_mirror, m)
        if dump is None or dsl is None:
            unreadable += 1
            continue
        text = dsl.decode(errors="replace")
        ref, sigs = fw_reference.acpi_reference(text, dump.decode(errors="replace"))
        if not sigs:
            tally["no_reference"] += 1  # iasl wrote only the table list: nothing to compare with
            continue
        with tempfile.TemporaryDirectory() as td:
            with open(os.path.join(td, "dump.txt"), "wb") as f:
                f.write(dump)
            subprocess.run(["acpixtract", "-a", "dump.txt"], cwd=td, capture_output=True)
            files = [os.path.join(td, f) for f in os.listdir(td) if f.endswith(".dat")]
            files = order_tables(files, sigs)
            if not files:
                unreadable += 1
                continue
            ours, crash = run_tool(tool, ["acpi"] + files)
            if crash:
                crashes.append((m, crash))
                continue
            tally["machines"] += 1
            if ours.get("acpi.bad_checksums", "0") != "0":
                why = ours.get("acpi.refused", "(no reason given)").split(": ", 1)[-1]
                refusals["table skipped (first per machine): " + why] += 1
            before = tally["disagree"]
            compare(ours, ref, tally, diffs, m)
            per_machine.append((m, tally["disagree"] - before, sigs, files, ours, ref))
            if args.save_fixtures and m in args.fixture_set:
                save_acpi_fixture(args.save_fixtures, m, files, ref)
    return tally, diffs, crashes, unreadable, refusals, per_machine


def fixture_name(m):
    return re.sub(r"[^A-Za-z0-9]+", "_", m.split("/", 1)[1]).strip("_")


def save_acpi_fixture(outdir, m, files, ref):
    name = fixture_name(m)
    blob = b""
    for f in files:
        with open(f, "rb") as fh:
            data = fh.read()
        # Also every table whose bytes do not sum to zero: the refusal is part of the test.
        if data[:4].decode(errors="replace") in FIXTURE_SIGS or (
                data[:4] not in (b"DSDT", b"FACS") and sum(data) % 256):
            blob += data
    with open(os.path.join(outdir, name + ".tables"), "wb") as fh:
        fh.write(blob)
    with open(os.path.join(outdir, name + ".tables.expect"), "w") as fh:
        fh.write("# reference: iasl disassembly in linuxhw/ACPI %s (tests/perf/fw_reference.py)\n" % m)
        for k, v in ref.items():
            if k.startswith("fadt.s5"):
                continue  # the fixture keeps no DSDT
            fh.write("%s %s\n" % (k, v))


def smbios_run(args, tool):
    tally = collections.Counter()
    diffs = collections.defaultdict(list)
    crashes, unreadable, refusals = [], 0, collections.Counter()
    paths = [p for p in git_ls(args.dmi_mirror) if p.count("/") >= 4]
    step = max(1, len(paths) // args.dmi_limit) if args.dmi_limit else 1
    chosen = paths[::step] if not args.save_fixtures else sorted(p for p in paths if p in args.fixture_set)
    tally["listed"] = len(chosen)
    for m in chosen:
        raw = git_show(args.dmi_mirror, m)
        if raw is None:
            unreadable += 1
            continue
        text = raw.decode(errors="replace")
        ref, dump, why = smbios_reference.reference_and_dump(text)
        if dump is None:
            refusals["reference: " + why] += 1
            continue
        with tempfile.TemporaryDirectory() as td:
            p = os.path.join(td, "dump.bin")
            with open(p, "wb") as f:
                f.write(dump)
            ours, crash = run_tool(tool, ["smbios", p])
        if crash:
            crashes.append((m, crash))
            continue
        tally["machines"] += 1
        if "smbios.entry" in ours:
            refusals["entry point refused: " + ours["smbios.entry"]] += 1
        if ours.get("smbios.peak") == "unknown":
            refusals["DRAM peak unknown (a populated device without speed or width)"] += 1
        compare(ours, ref, tally, diffs, m)
        if args.save_fixtures and m in args.fixture_set:
            name = fixture_name(m)
            with open(os.path.join(args.save_fixtures, name + ".smbios"), "wb") as fh:
                fh.write(dump)
            with open(os.path.join(args.save_fixtures, name + ".smbios.expect"), "w") as fh:
                fh.write("# reference: dmidecode text in linuxhw/DMI %s (tests/perf/smbios_reference.py)\n" % m)
                for k, v in ref.items():
                    fh.write("%s %s\n" % (k, v))
    return tally, diffs, crashes, unreadable, refusals


def report(title, tally, diffs, crashes, unreadable, refusals):
    print("== %s" % title)
    print("machines listed: %d, read: %d (unreadable in the mirror: %d)" % (
        tally["listed"], tally["machines"], unreadable))
    if tally["no_reference"]:
        print("machines without a reference decoding (iasl wrote no disassembly): %d" % tally["no_reference"])
    print("fields agreeing: %d, disagreeing: %d (decoded by us only: %d)" % (
        tally["agree"], tally["disagree"], tally["extra"]))
    print("crashes or hangs: %d" % len(crashes))
    for m, c in crashes[:20]:
        print("  crash: %s: %s" % (m, c))
    print("refusals: %d" % sum(refusals.values()))
    for r, n in refusals.most_common():
        print("  %5d  %s" % (n, r))
    for k, lst in sorted(diffs.items(), key=lambda kv: -len(kv[1])):
        print("  disagree %-24s %4d  e.g. %s: %s: ours %r, reference %r" % (k, len(lst), *lst[0]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--acpi-mirror", default="/work/.mirror/linuxhw+ACPI/repo")
    ap.add_argument("--dmi-mirror", default="/work/.mirror/linuxhw+DMI/repo")
    ap.add_argument("--dmi-limit", type=int, default=2000, help="machines sampled evenly from linuxhw/DMI (0: all)")
    ap.add_argument("--tool", default=os.path.join(ROOT, "build/host/fw_corpus"))
    ap.add_argument("--only", choices=("acpi", "smbios"))
    ap.add_argument("--save-fixtures")
    ap.add_argument("--fixture-list", help="file of corpus paths to save as fixtures (only they are run)")
    args = ap.parse_args()
    args.fixture_set = set()
    if args.fixture_list:
        with open(args.fixture_list) as f:
            args.fixture_set = {l.strip() for l in f if l.strip() and not l.startswith("#")}
    if args.only != "smbios" and not shutil.which("acpixtract"):
        sys.exit("no acpixtract: apt-get install acpica-tools")
    if not os.access(args.tool, os.X_OK):
        sys.exit("no %s: make fw-corpus-tool" % args.tool)
    if args.only != "smbios":
        if not os.path.isdir(args.acpi_mirror):
            sys.exit("no ACPI mirror at %s" % args.acpi_mirror)
        t, d, c, u, r, _ = acpi_run(args, args.tool)
        report("ACPI (linuxhw/ACPI; reference: iasl disassembly)", t, d, c, u, r)
    if args.only != "acpi":
        if not os.path.isdir(args.dmi_mirror):
            sys.exit("no DMI mirror at %s" % args.dmi_mirror)
        t, d, c, u, r = smbios_run(args, args.tool)
        report("SMBIOS (linuxhw/DMI; reference: dmidecode text)", t, d, c, u, r)


if __name__ == "__main__":
    main()
