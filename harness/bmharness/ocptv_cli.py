"""`baremetric export --ocptv RUN`: a run as OCPTV JSON lines (analysis/ocptv.py; docs/fleet.md),
and the streaming writer behind `capture --ocptv FILE`.

RUN is a parse directory (its records.jsonl) or a serial log (parsed into a temporary folder
first). The lines go to --out FILE, else to standard output. Exit codes as the other commands:
0 written, 2 usage or I/O errors.
"""

import json
import os
import sys
import tempfile

from .analysis import ocptv
from .run import inputs
from .stream import capture, parse


def _stamp(run_dir):
    """The time a replay stamps its lines with: the run's start (run.json, capture.json), else
    when it was parsed, else now."""
    for name, key in (("run.json", "started_utc"), ("capture.json", "started_utc"),
                      ("summary.json", None)):
        try:
            with open(os.path.join(run_dir, name)) as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            continue
        value = data.get(key) if key else (data.get("source") or {}).get("parsed_utc")
        if value:
            return value
    return ocptv.now_utc()


def problem_notes(summary):
    """The parser's problems as (severity, text) for the run's closing logs."""
    v = (summary or {}).get("validation") or {}
    notes = []
    for p in v.get("problems") or []:
        text = p.get("message") or p.get("text") or json.dumps(p, sort_keys=True, default=str)
        notes.append(("ERROR", "log problem: %s" % str(text)[:500]))
    if not v.get("complete", True):
        notes.append(("ERROR", "the log is incomplete (truncated: %s)" % v.get("truncated")))
    return notes


def export_dir(run_dir, write, series=False):
    """Replay run_dir/records.jsonl through the converter; write(line) gets each JSON line."""
    stamp = _stamp(run_dir)
    conv = ocptv.Converter(lambda obj: write(json.dumps(obj, allow_nan=False) + "\n"),
                           clock=lambda: stamp, series=series)
    try:
        with open(os.path.join(run_dir, "summary.json")) as fh:
            conv.notes = problem_notes(json.load(fh))
    except (OSError, ValueError):
        conv.notes = [("WARNING", "no summary.json: the parser's problems are not listed")]
    with open(os.path.join(run_dir, "records.jsonl")) as fh:
        for line in fh:
            if line.strip():
                conv.feed(json.loads(line))
    conv.finish(None)  # no-op after the end record
    return conv


def cmd_export(args):
    if not args.ocptv:
        return inputs.err("export: say the format (--ocptv)")
    out = open(args.out, "w") if args.out else sys.stdout
    try:
        if os.path.isdir(args.run):
            if not os.path.isfile(os.path.join(args.run, "records.jsonl")):
                return inputs.err("%s has no records.jsonl (run `parse` first)" % args.run)
            export_dir(args.run, out.write, args.series)
        else:
            with tempfile.TemporaryDirectory(prefix="ocptv-") as tmp:
                parse.parse_log(args.run, tmp)
                export_dir(tmp, out.write, args.series)
    except OSError as exc:
        return inputs.err("%s: %s" % (exc.filename or args.run, exc.strerror or exc))
    finally:
        if args.out:
            out.close()
    if args.out:
        print("wrote %s" % args.out, file=sys.stderr)
    return inputs.EXIT_OK


class Streamer:
    """capture --ocptv: the serial bytes in (as capture's echo sees them), OCPTV lines out to
    `path` as the records arrive, flushed line by line; close() ends the run (without an end
    record: status ERROR)."""

    def __init__(self, path, series=False):
        self.fh = open(path, "w")
        self.pending = b""
        self.seen = set()
        self.conv = ocptv.Converter(self._write, series=series)

    def _write(self, obj):
        self.fh.write(json.dumps(obj, allow_nan=False) + "\n")
        self.fh.flush()

    def feed(self, chunk):
        self.pending += chunk
        *lines, self.pending = self.pending.split(b"\n")
        for line in lines:
            for r in capture.line_records(line.decode("latin-1")):
                if r["seq"] in self.seen:  # a repeated record (a resent line) counts once
                    continue
                self.seen.add(r["seq"])
                self.conv.feed(parse.record_json(dict(r, line=0)))

    def close(self):
        if self.pending:
            self.feed(b"\n")
        self.conv.finish(None)
        self.fh.close()


def add_parser(sub):
    p = sub.add_parser("export", help="write a run in another format: --ocptv, OCP Test & "
                       "Validation JSON lines (docs/fleet.md)")
    p.add_argument("run", metavar="RUN", help="parse directory (records.jsonl) or serial log")
    p.add_argument("--ocptv", action="store_true", required=True,
                   help="OCPTV output spec 2.0 JSON lines")
    p.add_argument("--out", metavar="FILE", help="write here (default: standard output)")
    p.add_argument("--series", action="store_true", help="also every set's per-operation "
                   "values as a measurementSeries")
    p.set_defaults(func=cmd_export)
