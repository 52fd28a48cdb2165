"""A command's input read the one way: a serial log parsed, a stick's run parsed, or a parse
directory loaded, with the lines `parse` prints and its exit codes.

`parse`, `report`, `compare`, `run` and `capture` (cli.py) and `store add` (store_cli.py) all read
their inputs here, so a log or a stick's run is parsed exactly as `parse` would (summary.json,
then results.csv and results.json beside it: analysis/export.py), and neither command line hands
its own module to the other.

Exit codes: 0 success (log complete and valid), 1 problems found (outputs are still written),
2 usage, setup or I/O errors (said on stderr as "baremetric: error: ...").
"""

import json
import os
import secrets
import sys
import time

from ..analysis import export
from ..stream import parse
from ..stream.stick import runs as stick_runs
from ..stream.stick.device import StickError

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
PRINT_PROBLEMS = 25  # problems printed by parse; summary.json keeps more, counted per kind
PARSE_FILES = ("summary.json", "results.csv", "results.json")


def err(msg):
    print("baremetric: error: %s" % msg, file=sys.stderr)
    return EXIT_USAGE


def run_id():
    """A new run directory's name: UTC time and a random suffix."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(2)


def print_validation(summary):
    v = summary["validation"]
    c = v["counts"]
    print("parsed %d lines: %d records in the analysed boot, %d corrupt, %d duplicate, "
          "%d missing, %d set(s) (%d complete)" % (
              c["lines"], c["records_analysed"], c["corrupt"], c["duplicates"], c["missing"],
              c["sets"], c["sets_complete"]))
    counts = v.get("problem_counts") or {}
    if counts:
        print("problems by kind: " + ", ".join("%s %d" % kv for kv in sorted(
            counts.items(), key=lambda kv: -kv[1])))
    for p in v["problems"][:PRINT_PROBLEMS]:
        print("  problem: %s%s: %s" % (p["kind"], " (line %d)" % p["line"] if p["line"] else "",
                                       p["message"]))
    more = c.get("problems", len(v["problems"])) - min(len(v["problems"]), PRINT_PROBLEMS)
    if more > 0:
        print("  ... and %d more problem(s) (summary.json keeps %s)" % (
            more, v.get("problems_shown", "them")))
    if len(v.get("boots") or []) > 1:
        print("analysed boot %s: %s" % (v.get("analysed_boot"), v.get("analysed_why")))
    for n in (v.get("notes") or [])[:PRINT_PROBLEMS]:
        if n.startswith("log decoded as"):
            print("note: " + n)
    print("log %s" % ("complete and valid" if v["ok"] else
                      "INCOMPLETE" if not v["complete"] else "has problems"))


def parse_log(log, out_dir):
    """Parse a serial log into out_dir: (summary, exit code), or (None, 2) when it cannot be read."""
    try:
        summary = parse.parse_log(log, out_dir)
    except OSError as exc:
        return None, err("%s: %s" % (exc.filename or log, exc.strerror or exc))
    return parsed(summary, out_dir)


def parsed(summary, out_dir):
    """After a parse: results.csv/results.json next to summary.json, and the validation."""
    try:
        export.write(out_dir, summary)
    except OSError as exc:
        return None, err("%s: %s" % (exc.filename or out_dir, exc.strerror or exc))
    print_validation(summary)
    print("wrote %s" % ", ".join(os.path.join(out_dir, f) for f in PARSE_FILES))
    return summary, parse.exit_code(summary)


def open_run(path, number):
    """(stick, run): the stick at path and its run `number` (None: the newest). Raises
    StickError."""
    stick = stick_runs.open_stick(path)
    try:
        return stick, stick.select(number)
    except StickError:
        stick.close()
        raise


def is_stick_input(path, number):
    """Whether a command's input is read as a stick: --run given, or path is one."""
    return number is not None or stick_runs.is_stick(path)


def parse_stick(path, out_dir, number):
    """Parse run `number` (None: the newest) of the stick at path into out_dir, like parse_log."""
    try:
        stick, run = open_run(path, number)
        with stick:
            h = run.header
            print("%s: run %d, %s on %s: %d of %d bytes valid, state=%s" % (
                path, run.number, run.name, stick.where, h["valid"], h["capacity"], h["state"]))
            for note in stick_runs.run_notes(run):
                print("note: " + note)
            summary = stick_runs.parse_run(stick, run, out_dir)
    except StickError as exc:
        return None, err(str(exc))
    except OSError as exc:
        return None, err("%s: %s" % (exc.filename or path, exc.strerror or exc))
    return parsed(summary, out_dir)


def parse_input(path, out_dir, number):
    """A serial log or a stick's run (run `number`, None: the newest) parsed into out_dir."""
    if is_stick_input(path, number):
        return parse_stick(path, out_dir, number)
    return parse_log(path, out_dir)


def load_dir(path):
    """(summary, results) of a parse directory; results.json is written when it was parsed
    before results.json existed. Raises OSError or ValueError when it is not one."""
    with open(os.path.join(path, "summary.json")) as fh:
        summary = json.load(fh)
    res_path = os.path.join(path, "results.json")
    if not os.path.exists(res_path):
        return summary, export.write(path, summary)
    with open(res_path) as fh:
        return summary, json.load(fh)


def print_json(obj):
    json.dump(obj, sys.stdout, indent=1, allow_nan=False)
    sys.stdout.write("\n")


def add_run_opt(p):
    """--run N: which of a stick's runs a command reads."""
    p.add_argument("--run", type=int, metavar="N", help="a stick's run N (RUN_NNN.LOG; "
                   "default: the newest)")
