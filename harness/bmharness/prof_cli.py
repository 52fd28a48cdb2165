"""`baremetric profile RUN [--probe P] [--cpu N] [--elf PATH] [--top N] [--annotate N]
[--json PATH]`: the sampling profiler's results of a run, per probe: source, events, period,
samples, the per-function table (samples and % per event, cumulative), the hottest pcs and the
annotated disassembly of the top functions. Writes profile.json next to the run's records.jsonl
(or to --json). Exit 0 when every profile's records are valid, 1 when problems were found or no
probe was profiled, 2 when the run cannot be read.
"""

import os
import sys

from .analysis import profile
from .report import prof_report
from .report.doc import Doc


def cmd_profile(args):
    try:
        res = profile.analyse_run(args.run, elf=args.elf, cpu=args.cpu, annotate=args.annotate)
    except profile.RunError as exc:
        print("baremetric: error: %s" % exc, file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:
        print("baremetric: error: cannot read %s: %s" % (args.run, exc), file=sys.stderr)
        return 2
    if args.probe:
        wanted = set(args.probe)
        known = sorted({p["probe"] for p in res["profiles"]})
        res["profiles"] = [p for p in res["profiles"]
                           if p["probe"] in wanted or p["key"] in wanted]
        missing = wanted - {p["probe"] for p in res["profiles"]} - {p["key"] for p in
                                                                    res["profiles"]}
        if missing:
            print("probe(s) not profiled in this run: %s (profiled: %s)" % (
                ", ".join(sorted(missing)), ", ".join(known) or "none"))
    doc = Doc()
    doc.h("baremetric profile of %s" % args.run, 1)
    if not res["profiles"]:
        doc.p("no profiled probe in this run (option `profile = PROBE,...`)")
    prof_report.listing(doc, res, top=args.top)
    print(doc.text(), end="")
    path = args.json or (os.path.join(res["records_dir"], "profile.json")
                         if res.get("records_dir") else None)
    if path:
        try:
            profile.write_json(path, res)
            print("wrote %s" % path)
        except OSError as exc:
            print("baremetric: error: %s: %s" % (path, exc.strerror or exc), file=sys.stderr)
            return 2
    for p in res["profiles"]:
        if not p["elf"]["path"]:
            print("note: %s: no ELF for build id %s: %s" % (p["key"], p["build_id"],
                                                            p["elf"]["how"]))
    return 0 if res["profiles"] and res["ok"] else 1


def add_parser(sub):
    p = sub.add_parser("profile", help="the sampling profiler's results: functions, hot "
                       "instructions, annotated disassembly")
    p.add_argument("run", metavar="RUN", help="parse directory, QEMU output directory or "
                   "serial log")
    p.add_argument("--probe", action="append", metavar="P",
                   help="only this probe (repeatable; default all profiled probes)")
    p.add_argument("--cpu", type=int, metavar="N", help="only the samples of CPU N")
    p.add_argument("--elf", metavar="PATH", help="the unstripped ELF (default: found by the "
                   "run's build id, see docs/methods/profiler.md)")
    p.add_argument("--top", type=int, default=prof_report.CLI_TOP, metavar="N",
                   help="functions listed per probe (default %(default)s)")
    p.add_argument("--annotate", type=int, default=profile.ANNOTATE, metavar="N",
                   help="functions disassembled and annotated per probe (default %(default)s)")
    p.add_argument("--json", metavar="PATH", help="write profile.json here (default: next to "
                   "records.jsonl)")
    p.set_defaults(func=cmd_profile)
    return p
