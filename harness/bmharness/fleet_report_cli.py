"""`baremetric fleet report DIR...`: the fleet's machines grouped by identity, the distribution of
each headline metric across a group, the machines that stand out with the evidence
(analysis/fleet_report.py, report/fleet_report.py; docs/fleet.md). Text (default), markdown or
HTML; `--ocptv FILE` also writes the outliers as OCPTV diagnoses.

`add_report_parser(fleet_sub)` registers `report` under an existing `fleet` command (the one
`fleet run` makes); `add_parser(sub)` makes a `fleet` command with `report` alone.

Exit codes: 0 no machine stands out, 1 some do (or a run folder was unreadable), 2 usage or I/O
errors (no run folder found).
"""

import json
import sys

from .analysis import fleet_report
from .report import fleet_report as render
from .run import inputs


def cmd_report(args):
    rep = fleet_report.build(args.dirs, spread=args.spread / 100.0)
    if not rep["machines"]:
        return inputs.err("no run folder (summary.json) under %s" % ", ".join(args.dirs))
    text = render.render(rep, args.format)
    try:
        if args.out:
            with open(args.out, "w") as fh:
                fh.write(text)
            print("wrote %s" % args.out, file=sys.stderr)
        else:
            sys.stdout.write(text)
        if args.ocptv:
            with open(args.ocptv, "w") as fh:
                render.ocptv_lines(rep, lambda obj: fh.write(json.dumps(obj) + "\n"))
    except OSError as exc:
        return inputs.err("%s: %s" % (exc.filename, exc.strerror))
    bad = rep["errors"] or any(g["outliers"] for g in rep["groups"])
    return inputs.EXIT_PROBLEMS if bad else inputs.EXIT_OK


def add_report_parser(fs):
    p = fs.add_parser("report", help="the fleet's machines grouped by identity, each metric's "
                      "spread across a group, the outliers with their evidence")
    p.add_argument("dirs", nargs="+", metavar="DIR", help="run folders: a fleet run's output, "
                   "parse directories, or folders holding them")
    p.add_argument("--format", choices=render.FORMATS, default="text")
    p.add_argument("--out", metavar="FILE", help="write the report here (default: stdout)")
    p.add_argument("--spread", type=float, default=100 * fleet_report.DEFAULT_SPREAD, metavar="PCT",
                   help="boot-to-boot spread of one machine's headline figure, %% of the group's "
                   "median: a smaller difference is never an outlier (default %(default)s)")
    p.add_argument("--ocptv", metavar="FILE", help="also write the outliers as OCPTV diagnoses")
    p.set_defaults(func=cmd_report)

