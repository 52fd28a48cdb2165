#!/usr/bin/env python3
"""Arm machines' ACPI tables through the firmware's own parsers (MADT GICC/GICD/GICR, MCFG, SPCR,
FADT, IORT presence), compared field by field with iasl's disassembly: the Arm half of
tests/perf/acpi_corpus.py, whose corpus (linuxhw/ACPI) holds x86 machines only.

The corpus is niyas-sait/acpi (`fetch github:niyas-sait/acpi`): one folder per machine with iasl's
disassembly of each table (`*.dsl`, the reference) and the tables themselves as an acpidump text
(Ampere Altra "Ava" developer kits, SolidRun HoneyComb LX2, Microsoft Surface Pro X) or as raw
`.dat` files, or, for the models (Arm Morello FVP, QEMU sbsa-ref), only the disassembly, which
iasl compiles back into the table (the same bytes but the checksum, which iasl recomputes).

  tests/perf/arm_acpi_corpus.py [--mirror DIR] [--tool PATH] [--save-fixtures DIR]

Prints the counts acpi_corpus.py prints; --save-fixtures writes each machine's tables and reference
as tests/unit/fixtures/fw/acpi/arm_<folder>.tables(.expect) for tests/unit/test_fw_corpus.c."""
import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import acpi_corpus  # noqa: E402
import fw_reference  # noqa: E402

CORPUS = "niyas-sait/acpi"
DUMP_NAMES = ("acpidump", ".log", ".txt", ".out")  # an acpidump text: by name, and checked by content
DUMP_MARK = b" @ 0x"


def folders(mirror):
    by = collections.defaultdict(list)
    for p in acpi_corpus.git_ls(mirror):
        if "/" in p:
            d, f = p.split("/", 1)
            by[d].append(f)
    return by


def reference_text(mirror, folder, files):
    """Every table's disassembly of the machine, the DSDT last (the FADT's S5 reads it)."""
    dsl = sorted((f for f in files if f.lower().endswith(".dsl")), key=lambda f: (f.lower().startswith("dsdt"), f))
    return "".join((acpi_corpus.git_show(mirror, "%s/%s" % (folder, f)) or b"").decode(errors="replace")
                   for f in dsl), dsl


def table_files(mirror, folder, files, dsl, td):
    """The machine's tables as files in td: from its acpidump text, else its .dat files, else
    compiled from the disassembly. Returns (paths, how, dump text)."""
    for f in files:
        if any(k in f.lower() for k in DUMP_NAMES) and not f.lower().endswith(".dsl"):
            data = acpi_corpus.git_show(mirror, "%s/%s" % (folder, f)) or b""
            if DUMP_MARK in data[:4096]:
                with open(os.path.join(td, "dump.txt"), "wb") as fh:
                    fh.write(data)
                subprocess.run(["acpixtract", "-a", "dump.txt"], cwd=td, capture_output=True)
                got = [os.path.join(td, x) for x in os.listdir(td) if x.endswith(".dat")]
                if got:
                    return got, "acpidump " + f, data.decode(errors="replace")
    dats = [f for f in files if f.lower().endswith(".dat")]
    if dats:
        out = []
        for f in dats:
            path = os.path.join(td, os.path.basename(f).lower())
            with open(path, "wb") as fh:
                fh.write(acpi_corpus.git_show(mirror, "%s/%s" % (folder, f)) or b"")
            out.append(path)
        return out, "raw tables", ""
    out = []
    for f in dsl:
        if f.lower().startswith(("dsdt", "ssdt")):
            continue  # AML: iasl -d of AML does not compile back byte for byte, and no parser reads it
        src = os.path.join(td, os.path.basename(f).lower())
        with open(src, "wb") as fh:
            fh.write(acpi_corpus.git_show(mirror, "%s/%s" % (folder, f)) or b"")
        r = subprocess.run(["iasl", "-p", src[:-4], src], cwd=td, capture_output=True)
        if r.returncode == 0 and os.path.exists(src[:-4] + ".aml"):
            os.rename(src[:-4] + ".aml", src[:-4] + ".dat")
            out.append(src[:-4] + ".dat")
    return out, "compiled from the disassembly (iasl)", ""


def run(args):
    tally, diffs = collections.Counter(), collections.defaultdict(list)
    crashes, unreadable, refusals, how = [], 0, collections.Counter(), {}
    for folder, files in sorted(folders(args.mirror).items()):
        text, dsl = reference_text(args.mirror, folder, files)
        ref, sigs = fw_reference.acpi_reference(text)
        if "APIC" not in sigs:
            continue  # a folder with only a DSDT (lenovo_x13, raspberrypi-4b): nothing our parsers read
        tally["listed"] += 1
        with tempfile.TemporaryDirectory() as td:
            paths, how[folder], dump = table_files(args.mirror, folder, files, dsl, td)
            if dump:
                ref, sigs = fw_reference.acpi_reference(text, dump)
            paths = acpi_corpus.order_tables(paths, sigs)
            if not paths:
                unreadable += 1
                continue
            ours, crash = acpi_corpus.run_tool(args.tool, ["acpi"] + paths)
            if crash:
                crashes.append((folder, crash))
                continue
            tally["machines"] += 1
            if ours.get("acpi.bad_checksums", "0") != "0":
                refusals["table skipped: " + ours.get("acpi.refused", "(no reason given)")] += 1
            acpi_corpus.compare(ours, ref, tally, diffs, folder)
            if args.save_fixtures:
                save_fixture(args.save_fixtures, folder, paths, ref, how[folder])
    return tally, diffs, crashes, unreadable, refusals, how


def save_fixture(outdir, folder, paths, ref, how):
    name = "arm_" + "".join(c if c.isalnum() else "_" for c in folder)
    blob = b""
    for p in paths:
        with open(p, "rb") as fh:
            data = fh.read()
        if data[:4].decode(errors="replace") in acpi_corpus.FIXTURE_SIGS:
            blob += data
    with open(os.path.join(outdir, name + ".tables"), "wb") as fh:
        fh.write(blob)
    with open(os.path.join(outdir, name + ".tables.expect"), "w") as fh:
        fh.write("# reference: iasl disassembly in %s %s; tables: %s (tests/perf/arm_acpi_corpus.py)\n"
                 % (CORPUS, folder, how))
        for k, v in ref.items():
            if not k.startswith("fadt.s5"):
                fh.write("%s %s\n" % (k, v))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", default="/work/.mirror/niyas-sait+acpi/repo")
    ap.add_argument("--tool", default=os.path.join(acpi_corpus.ROOT, "build/host/fw_corpus"))
    ap.add_argument("--save-fixtures")
    args = ap.parse_args()
    for tool in ("acpixtract", "iasl"):
        if not shutil.which(tool):
            sys.exit("no %s: apt-get install acpica-tools" % tool)
    if not os.access(args.tool, os.X_OK):
        sys.exit("no %s: make fw-corpus-tool" % args.tool)
    if not os.path.isdir(args.mirror):
        sys.exit("no mirror at %s (the fetch tool: github:%s)" % (args.mirror, CORPUS))
    t, d, c, u, r, how = run(args)
    for folder, h in sorted(how.items()):
        print("  %-16s tables: %s" % (folder, h))
    acpi_corpus.report("ACPI, Arm machines (%s; reference: iasl disassembly)" % CORPUS, t, d, c, u, r)


if __name__ == "__main__":
    main()
