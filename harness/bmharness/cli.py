"""Command line of the harness (`harness/baremetric`): parse, report, qemu, run, capture,
compare, profile, characterise, predict (vector_cli.py), stick, store (the results store: store/). parse, report and compare also read a run from a boot stick (a mounted
directory, an image file or a block device: stream/stick/runs.py).

Exit codes: 0 success (log complete and valid, firmware ok), 1 problems found (outputs are still
written), 2 usage, setup or I/O errors.
"""

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile

from . import fleet_cli, ocptv_cli, prof_cli, store_cli, vector_cli
from .analysis import compare, export, run_verdict
from .report import compare as compare_report, report
from .run import inputs, pipeline, qemu, runconfig
from .stream import capture
from .stream.stick import runs as stick_runs
from .stream.stick.device import StickError
from .store import db as store_db, ops as store_ops

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = inputs.EXIT_OK, inputs.EXIT_PROBLEMS, inputs.EXIT_USAGE
PARSE_FILES = inputs.PARSE_FILES


def _report(out_dir, plot=True, summary_only=False, html_page=False):
    """Print the report (or only its first screen) and write its files: (ok or None, exit)."""
    try:
        text, ok = (report.write_summary(out_dir) if summary_only else
                    report.write_report(out_dir, plot=plot, html_page=html_page))
    except FileNotFoundError:
        return None, inputs.err("%s has no summary.json (run `parse` first)" % out_dir)
    except (OSError, ValueError) as exc:
        return None, inputs.err("cannot read %s/summary.json: %s" % (out_dir, exc))
    print(text, end="")
    print("wrote %s" % os.path.join(out_dir, "headline.json" if summary_only else "report.md"))
    if html_page and not summary_only:
        print("wrote %s" % os.path.join(out_dir, "report.html"))
    return ok, EXIT_OK


def _parse_json(summary, out_dir, code):
    """parse --json: the validation summary and the files written."""
    v = summary["validation"]
    files = {f: os.path.join(out_dir, f) for f in PARSE_FILES + ("records.jsonl",)}
    return {"exit_code": code, "ok": v["ok"], "complete": v["complete"],
            "truncated": v["truncated"], "counts": v["counts"],
            "problem_counts": v["problem_counts"], "problems": v["problems"],
            "notes": v["notes"], "analysed_boot": v["analysed_boot"],
            "analysed_why": v["analysed_why"], "out_dir": out_dir,
            "files": dict(files, raw=os.path.join(out_dir, "raw"))}


def cmd_parse(args):
    text = io.StringIO()
    # --json: the human lines are not printed (errors still go to stderr)
    with contextlib.redirect_stdout(text) if args.json else contextlib.nullcontext():
        summary, code = inputs.parse_input(args.log, args.out, args.run)
    if args.json and summary is not None:
        inputs.print_json(_parse_json(summary, args.out, code))
    return code


def _report_json(out_dir, plot, html_page=False):
    """report --json: write the report as usual, print results.json's content (built afresh, so
    a directory parsed before results.json existed gets it too). Exit codes as without --json:
    1 when the run is not ok."""
    with contextlib.redirect_stdout(io.StringIO()):
        ok, code = _report(out_dir, plot=plot, html_page=html_page)
    if ok is None:
        return code
    with open(os.path.join(out_dir, "summary.json")) as fh:
        summary = json.load(fh)
    inputs.print_json(export.write(out_dir, summary))
    return EXIT_OK if ok else EXIT_PROBLEMS


def cmd_report(args):
    if not inputs.is_stick_input(args.dir, args.run):
        if args.out:
            return inputs.err("--out is for a stick; %s is a parse directory" % args.dir)
        if args.json:
            return _report_json(args.dir, plot=not args.no_plots, html_page=args.html)
        ok, rcode = _report(args.dir, plot=not args.no_plots, summary_only=args.summary,
                            html_page=args.html)
        # a FAILED or incomplete run is exit 1 (the module docstring's promise), as for a stick
        return rcode if ok is None else EXIT_OK if ok else EXIT_PROBLEMS
    if args.json:
        out_dir = args.out or os.path.join(args.results, inputs.run_id())
        with contextlib.redirect_stdout(io.StringIO()):
            summary, code = inputs.parse_stick(args.dir, out_dir, args.run)
        return code if summary is None else _report_json(out_dir, not args.no_plots, args.html)
    out_dir = args.out or os.path.join(args.results, inputs.run_id())
    summary, code = inputs.parse_stick(args.dir, out_dir, args.run)
    if summary is None:
        return code
    ok, rcode = _report(out_dir, plot=not args.no_plots, summary_only=args.summary,
                        html_page=args.html)
    if ok is None:
        return rcode
    print("results in %s" % out_dir)
    return EXIT_OK if ok else EXIT_PROBLEMS


def cmd_stick(args):
    try:
        stick = stick_runs.open_stick(args.path)
    except StickError as exc:
        return inputs.err(str(exc))
    with stick:
        print("%s: %s" % (args.path, stick.where))
        if not stick.runs:
            print("no runs (no %s/RUN_NNN.LOG)" % stick_runs.RUN_DIR)
            return EXIT_PROBLEMS
        print("%4s  %-26s %12s %12s  %-20s %-8s %s" % (
            "run", "file", "valid bytes", "capacity", "build", "arch", "state"))
        for r in stick.runs:
            h, b = r.header or {}, r.begin or {}
            print("%4d  %-26s %12s %12s  %-20s %-8s %s" % (
                r.number, r.name, h.get("valid", "-"), h.get("capacity", "-"),
                b.get("build", "-"), b.get("arch", "-"), r.state()))
            if r.error:
                print("      " + r.error)
        print("newest: run %d; parse, report and compare take it unless --run N"
              % stick.runs[-1].number)
        return EXIT_PROBLEMS if any(r.error for r in stick.runs) else EXIT_OK


def _machine_args(args):
    """-machine options QEMU merges into the harness's machine: --el2's, then each --machine."""
    props = (["virtualization=on"] if args.el2 else []) + list(getattr(args, "machine", None) or [])
    return [a for m in props for a in ("-machine", m)]


def _run_qemu(args, out_dir, run=None):
    """run(out_dir, **the QEMU options of args): qemu.run_qemu (None), or pipeline.run_and_parse
    for `run`; (its result, EXIT_OK), or (None, exit code) with the error said."""
    run = run or qemu.run_qemu
    if args.el2 and args.arch != "aarch64":
        return None, inputs.err("--el2 is for --arch aarch64 (QEMU virt's virtualization=on)")
    try:
        settings = runconfig.parse_set_args(args.set)
        return run(out_dir, image=args.image, settings=settings, smp=args.smp,
                             mem=args.mem, icount=args.icount is not None,
                             icount_shift=args.icount or 0, timeout=args.timeout,
                             cpu=args.cpu, usb=not args.no_usb, efi=args.efi,
                             qemu=args.qemu, qemu_datadir=args.qemu_datadir,
                             arch=args.arch,
                             extra_args=_machine_args(args) or None), EXIT_OK
    except runconfig.ConfigError as exc:
        return None, inputs.err(str(exc))
    except qemu.HarnessError as exc:
        return None, inputs.err(str(exc))
    except OSError as exc:
        return None, inputs.err("%s: %s" % (exc.filename or "", exc.strerror or exc))


def _print_config(res):
    """Which keys the harness changed of the image's own baremetric.cfg (run.json config_changes)."""
    changes = res.get("config_changes") or []
    if not changes:
        print("config: the image's baremetric.cfg as it is")
        return
    print("config: the image's baremetric.cfg, with the harness's changes:")
    for key, old, new, why in changes:
        print("  %s = %s (%s; the image's file: %s)" % (
            key, new, why, "not set" if old is None else old))


def _print_run(res):
    _print_config(res)
    print("qemu: %s, %.1f s%s" % (
        run_verdict.exit_text(res), res["duration_s"],
        " (TIMED OUT after %ss: raise it with %s)" % (res["timeout_s"], qemu.TIMEOUT_OPTION)
        if res["timed_out"] else ""))
    for r in qemu.run_failed(res):
        print("  " + r)


def cmd_qemu(args):
    res, code = _run_qemu(args, args.out)
    if res is None:
        return code
    _print_run(res)
    print("serial log: %s" % res["serial_log"])
    return EXIT_PROBLEMS if qemu.run_failed(res) else EXIT_OK


def cmd_run(args):
    out_dir = os.path.join(args.results, args.run_id or inputs.run_id())
    res, code = _run_qemu(args, out_dir, pipeline.run_and_parse)  # QEMU, then parse
    if res is None:
        return code
    _print_run(res["run"])
    summary, pcode = inputs.parsed(res["summary"], out_dir)  # results.csv/json, the validation
    if summary is None:
        return pcode
    ok, rcode = _report(out_dir, plot=not args.no_plots)
    if ok is None:
        return rcode
    print("results in %s" % out_dir)
    return EXIT_OK if ok else EXIT_PROBLEMS


def _capture_end(res):
    """Why a capture stopped, in words."""
    if res["end_seen"]:
        return "end record seen"
    if res["interrupted"]:
        return "interrupted"
    if res["timed_out"]:
        return "timed out"
    if res["error"]:
        return res["error"]
    if res["source_ended"]:
        return "the command ended" if res["command"] else "the source closed"
    return "stopped"


def cmd_capture(args):
    out_dir = args.out or os.path.join(args.results, inputs.run_id())
    echo = (lambda b: (sys.stdout.write(b.decode("latin-1")), sys.stdout.flush())) \
        if args.echo else None
    source = ("the output of %r" % args.command) if args.command else \
        ("%s at %d baud" % (args.port, args.baud))
    print("capturing %s into %s (Ctrl-C stops)" % (source, out_dir))
    # The status line is rewritten in place on a terminal, unless --echo writes the stream there.
    tty = sys.stderr.isatty() and not args.echo
    stream = None
    try:
        if args.ocptv:
            stream = ocptv_cli.Streamer(args.ocptv)
            echo = (lambda b, e=echo: (stream.feed(b), e and e(b)))
        res = capture.capture(args.port, out_dir, baud=args.baud, timeout=args.timeout, echo=echo,
                              command=args.command, status_stream=sys.stderr, status_tty=tty,
                              silence_s=args.silence)
    except capture.CaptureError as exc:
        return inputs.err(str(exc))
    except OSError as exc:
        return inputs.err("%s: %s" % (exc.filename or out_dir, exc.strerror or exc))
    finally:
        if stream:
            stream.close()
    how = _capture_end(res)
    if not res["bytes"]:
        print("nothing received in %.1f s (%s): no run folder written" % (res["duration_s"], how))
        return EXIT_PROBLEMS
    print("captured %d bytes, %d records in %.1f s: %s" % (res["bytes"], res["records"],
                                                           res["duration_s"], how))
    summary, pcode = inputs.parse_log(res["serial_log"], out_dir)
    if summary is None:
        return pcode
    ok, rcode = _report(out_dir, plot=not args.no_plots)
    if ok is None:
        return rcode
    print("results in %s" % out_dir)
    return EXIT_OK if ok and res["end_seen"] else EXIT_PROBLEMS


def _load_side(path, number, tmp):
    """compare.load_run's dict for a parse directory, a log or a stick's run (parsed under tmp;
    "nonce" names the run)."""
    if not inputs.is_stick_input(path, number):
        return compare.load_run(path, tmp)
    stick, run = inputs.open_run(path, number)
    with stick:
        out = tempfile.mkdtemp(prefix="parse-", dir=tmp)
        summary = stick_runs.parse_run(stick, run, out)
        return {"path": stick.label(run), "dir": out, "summary": summary, "parsed": True,
                "nonce": run.header["nonce"]}


def _compare_sides(args):
    """(paths of A, paths of B) from `RUN_A RUN_B` or `--a RUN... --b RUN...`."""
    if args.side_a or args.side_b:
        if args.runs or not (args.side_a and args.side_b):
            raise ValueError("give either RUN_A RUN_B, or --a RUN... and --b RUN...")
        return args.side_a, args.side_b
    if len(args.runs) != 2:
        raise ValueError("give RUN_A RUN_B (one boot a side), or --a RUN... --b RUN... (several)")
    return [args.runs[0]], [args.runs[1]]


def cmd_compare(args):
    try:
        paths_a, paths_b = _compare_sides(args)
    except ValueError as exc:
        return inputs.err(str(exc))
    tmp = tempfile.mkdtemp(prefix="baremetric-compare-")
    try:
        try:
            runs_a = [_load_side(p, args.run_a_number, tmp) for p in paths_a]
            runs_b = [_load_side(p, args.run_b_number, tmp) for p in paths_b]
        except (compare.RunError, StickError) as exc:
            return inputs.err(str(exc))
        except (OSError, ValueError) as exc:
            return inputs.err("cannot read a run: %s" % exc)
        nonces = [r["nonce"] for r in runs_a + runs_b if r.get("nonce")]
        twice = sorted({n for n in nonces if nonces.count(n) > 1})
        if twice:
            return inputs.err("the same run is given twice (nonce %s): pick others with "
                        "--run-a N / --run-b N" % ", ".join(twice))
        # only one boot a side needs a stated spread: with 2+ on a side those boots give it
        if args.store is not None and args.boot_spread is None and len(runs_a + runs_b) == 2:
            try:
                args.boot_spread = _stored_spread(args.store, runs_a, runs_b)
            except store_db.StoreError as exc:
                return inputs.err(str(exc))
        try:
            res = compare.compare(runs_a, runs_b, alpha=args.alpha, threshold_pct=args.threshold,
                                  cycles=args.cycles, boot_spread_pct=args.boot_spread)
        except compare.ClockMismatch as exc:
            return inputs.err(str(exc))
        doc = compare_report.build_doc(runs_a, runs_b, res, changed_only=args.changed_only)
        data = compare_report.json_doc(runs_a, runs_b, res, changed_only=args.changed_only)
        run_b, path_b = runs_b[0], paths_b[0]
        out_dir = args.out or (os.getcwd() if run_b.get("nonce") else
                               os.path.dirname(os.path.abspath(path_b)) if run_b["parsed"]
                               else run_b["dir"])
        try:
            os.makedirs(out_dir, exist_ok=True)
            path = os.path.join(out_dir, "compare.md")
            with open(path, "w") as fh:
                fh.write(doc.markdown())
            jpath = os.path.join(out_dir, "compare.json")
            with open(jpath, "w") as fh:
                json.dump(data, fh, indent=1, default=str)
                fh.write("\n")
        except OSError as exc:
            return inputs.err("%s: %s" % (exc.filename or out_dir, exc.strerror or exc))
        if args.json:  # stdout is the JSON alone, for a pipe
            json.dump(data, sys.stdout, indent=1, default=str)
            sys.stdout.write("\n")
            print("wrote %s and %s" % (path, jpath), file=sys.stderr)
        else:
            # the terminal names the differing options in one line; compare.md has the table
            print(compare_report.build_doc(runs_a, runs_b, res, changed_only=args.changed_only,
                                           config_table=False).text(), end="")
            print("wrote %s and %s" % (path, jpath))
        return EXIT_OK
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _stored_spread(db_path, runs_a, runs_b):
    """compare --store: the typical boot-to-boot spread the store holds for A's machine (else
    B's), as --boot-spread's PCT; None (said on stderr) when it holds none."""
    with contextlib.closing(store_db.connect(db_path or None, create=False)) as conn:
        for run in (runs_a[0], runs_b[0]):
            mid = store_ops.machine_of_summary(conn, run["summary"])
            t = store_ops.typical_spread(conn, mid) if mid else None
            if t:
                print(store_ops.spread_note(mid, t), file=sys.stderr)
                return t["pct"]
    print("the store holds no boot-to-boot spread for these machines (it needs %d+ runs of "
          "one): none stated" % store_ops.SPREAD_MIN_RUNS, file=sys.stderr)
    return None


def _qemu_opts(p, smp=1):
    p.add_argument("--arch", choices=sorted(qemu.ARCHES), default="x86_64",
                   help="firmware architecture: x86_64 (q35 + OVMF) or aarch64 (virt + AAVMF); "
                   "default %(default)s")
    p.add_argument("--image", help="disk image (default: build/<arch>/baremetric.img in the "
                   "repository); its own baremetric.cfg is kept, --set and the QEMU defaults for "
                   "keys it does not set go on top, and the keys changed are printed")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="firmware config setting (repeatable); keys: %s"
                   % ", ".join(runconfig.KEYS))
    p.add_argument("--smp", type=int, default=smp, help="virtual CPUs (default %(default)s)")
    p.add_argument("--mem", type=int, default=1024, help="memory in MiB")
    p.add_argument("--cpu", help="QEMU -cpu model (default: QEMU's)")
    p.add_argument("--icount", nargs="?", type=int, const=0, metavar="SHIFT",
                   help="-icount shift=SHIFT (default 0): an instruction clock, each instruction "
                   "2**SHIFT ns of virtual time (a larger shift: fewer instructions in the "
                   "firmware's waits, a faster boot)")
    p.add_argument("--el2", action="store_true", help="aarch64: -machine virtualization=on, so the "
                   "firmware starts baremetric at EL2 (it leaves for EL1 unless el2=stay)")
    p.add_argument("--machine", action="append", default=[], metavar="PROPS",
                   help="more -machine properties, merged into the harness's machine (repeatable; "
                   "e.g. gic-version=2 with --arch aarch64)")
    p.add_argument("--qemu", metavar="PATH", help="QEMU binary to run (default: %s from PATH; "
                   "e.g. QEMU 10 from scripts/qemu10.sh: ROOT/usr/bin/qemu-system-x86_64)" % qemu.QEMU)
    p.add_argument("--qemu-datadir", metavar="DIR",
                   help="its data directory, passed as -L (e.g. ROOT/usr/share/qemu)")
    p.add_argument("--timeout", type=float, help="seconds before QEMU is killed "
                   "(default %d, %d with --arch aarch64, %d with --icount)" % (
                       qemu.DEFAULT_TIMEOUT, qemu.DEFAULT_TIMEOUT_AARCH64,
                       qemu.DEFAULT_TIMEOUT_ICOUNT))
    p.add_argument("--no-usb", action="store_true",
                   help="boot from a fat: host directory instead of the image on USB")
    p.add_argument("--efi", help="with --no-usb: BOOTX64.EFI (BOOTAA64.EFI) to use "
                   "(default: from the image)")


def make_parser():
    results = os.path.join(qemu.REPO_ROOT, "results")
    ap = argparse.ArgumentParser(prog="baremetric", description="baremetric host harness")
    sub = ap.add_subparsers(dest="cmd", metavar="COMMAND")
    sub.required = True
    p = sub.add_parser("parse", help="validate a serial log (or a stick's run) and write "
                       "records/raw/summary")
    p.add_argument("log", help="serial log, or a stick: mounted directory, image or block device")
    p.add_argument("--out", required=True, metavar="DIR")
    inputs.add_run_opt(p)
    p.add_argument("--json", action="store_true", help="print the validation summary and the "
                   "files written as JSON instead of the text")
    p.set_defaults(func=cmd_parse)
    p = sub.add_parser("report", help="print a report from DIR/summary.json (or parse a stick's "
                       "run first), write report.md")
    p.add_argument("dir", help="parse directory, or a stick: mounted directory, image or block "
                   "device")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--summary", action="store_true", help="print only the first screen (and "
                   "write headline.json)")
    p.add_argument("--html", action="store_true", help="also write DIR/report.html: one "
                   "self-contained page (inline CSS and SVG plots, sortable tables)")
    inputs.add_run_opt(p)
    p.add_argument("--out", metavar="DIR", help="for a stick: parse into DIR (default "
                   "results/<run-id>)")
    p.add_argument("--json", action="store_true", help="print results.json's content (every "
                   "set in real units) instead of the text; report.md is still written")
    p.set_defaults(func=cmd_report, results=results)
    p = sub.add_parser("qemu", help="run the image under QEMU, serial log into DIR")
    p.add_argument("--out", required=True, metavar="DIR")
    _qemu_opts(p)
    p.set_defaults(func=cmd_qemu)
    p = sub.add_parser("run", help="qemu + parse + report into results/<run-id>/")
    _qemu_opts(p, smp=2)  # so the default run shows the multi-core bandwidth too
    p.add_argument("--results", default=results,
                   help="results base directory (default %(default)s)")
    p.add_argument("--run-id", help="name of the run directory (default: UTC time + suffix)")
    p.add_argument("--no-plots", action="store_true")
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("capture", help="record a real machine's serial port (or a command's output, "
                       "e.g. a BMC's Serial-over-LAN), then parse + report")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--port", help="serial device, e.g. /dev/ttyUSB0")
    src.add_argument("--command", metavar="CMD", help="read CMD's standard output (run by the shell), "
                     "e.g. \"ipmitool -I lanplus -H bmc -U admin -P pw sol activate\"; stopped "
                     "after the end record")
    p.add_argument("--baud", type=int, default=115200)
    p.add_argument("--silence", type=float, default=capture.SILENCE_S, metavar="S",
                   help="warn after S seconds without a record, and again every S (default "
                   "%(default)s; 0: never)")
    p.add_argument("--out", metavar="DIR", help="default: results/<run-id>")
    p.add_argument("--results", default=results)
    p.add_argument("--timeout", type=float, help="seconds (default: until end record or Ctrl-C)")
    p.add_argument("--echo", action="store_true", help="copy the stream to stdout")
    p.add_argument("--ocptv", metavar="FILE", help="also write OCPTV JSON lines to FILE as the "
                   "records arrive (docs/fleet.md)")
    p.add_argument("--no-plots", action="store_true")
    p.set_defaults(func=cmd_capture)
    p = sub.add_parser("compare", help="compare runs set by set: one or several boots a side "
                       "(Mann-Whitney within a boot, Welch t on boot medians, a prediction-interval "
                       "t for one boot against several; Benjamini-Hochberg)")
    p.add_argument("runs", nargs="*", metavar="RUN", help="RUN_A RUN_B: parse directory "
                   "(summary.json), serial log or stick (its newest run unless --run-a/--run-b); "
                   "compare.md and compare.json go next to RUN_B (into the current directory "
                   "for a stick)")
    p.add_argument("--a", nargs="+", dest="side_a", metavar="RUN",
                   help="the boots of side A (instead of RUN_A RUN_B; with --b)")
    p.add_argument("--b", nargs="+", dest="side_b", metavar="RUN",
                   help="the boots of side B; the outputs go next to the first")
    p.add_argument("--run-a", type=int, dest="run_a_number", metavar="N",
                   help="side A is a stick: take its run N")
    p.add_argument("--run-b", type=int, dest="run_b_number", metavar="N",
                   help="side B is a stick: take its run N")
    p.add_argument("--out", metavar="DIR", help="write compare.md and compare.json here instead")
    p.add_argument("--json", action="store_true", help="print compare.json to stdout instead "
                   "of the text")
    p.add_argument("--cycles", action="store_true", help="compare in cycles, not GB/s and ns")
    p.add_argument("--changed-only", action="store_true",
                   help="show only the differences in the text and compare.md")
    p.add_argument("--boot-spread", type=float, metavar="PCT", default=None,
                   help="boot-to-boot spread of a set in %% of its median: with one boot a side, "
                   "a smaller shift is not called a difference")
    p.add_argument("--alpha", type=float, default=compare.ALPHA,
                   help="false discovery rate over all sets, Benjamini-Hochberg "
                   "(default %(default)s)")
    p.add_argument("--threshold", type=float, default=compare.THRESHOLD_PCT, metavar="PCT",
                   help="practical threshold: smallest effect that matters, in %% of A's value "
                   "(default %(default)s)")
    p.add_argument("--store", nargs="?", const="", default=None, metavar="DB",
                   help="take --boot-spread from the results store (DB, default the user's): "
                   "the stored spread of A's machine, else B's (one boot a side only: more "
                   "boots give their own spread)")
    p.set_defaults(func=cmd_compare)
    prof_cli.add_parser(sub)
    vector_cli.add_parser(sub)
    store_cli.add_parser(sub)
    fleet_cli.add_parser(sub)
    ocptv_cli.add_parser(sub)
    p = sub.add_parser("stick", help="list the runs on a boot stick (mounted directory, image or "
                       "block device)")
    p.add_argument("path")
    p.set_defaults(func=cmd_stick)
    return ap


def main(argv=None):
    args = make_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_PROBLEMS
