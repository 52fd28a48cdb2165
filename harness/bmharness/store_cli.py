"""`baremetric store`: the results store's command line (the store itself is store/: db.py,
machine.py, ops.py, text.py). `store add` reads its inputs with run/inputs.py, as `parse` does,
so a serial log or a stick's run is parsed exactly as `parse` would, into a directory next to the
database (DB_DIR/runs/<run-id>/) whose path the store keeps.
"""

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile

from .analysis import compare, headline
from .report import compare as compare_report
from .run import inputs
from .store import db as store_db, ops as store_ops, remove as store_remove, text as store_text

EXIT_OK, EXIT_PROBLEMS = inputs.EXIT_OK, inputs.EXIT_PROBLEMS


def _store_input(path, number, parse_root):
    """(summary, results, directory, fresh) of one `store add` input: a parse directory as it
    is, a serial log or a stick's run parsed into a new directory under parse_root (fresh).
    Returns (None, exit code, None, None) when it cannot be read."""
    if not inputs.is_stick_input(path, number) and os.path.isdir(path):
        try:
            summary, results = inputs.load_dir(path)
        except (OSError, ValueError) as exc:
            return None, inputs.err("%s: not a parse directory (%s)" % (path, exc)), None, None
        return summary, results, path, False
    out = os.path.join(parse_root, inputs.run_id())
    with contextlib.redirect_stdout(io.StringIO()):  # the store prints one line per run
        summary, code = inputs.parse_input(path, out, number)
    if summary is None:
        return None, code, None, None
    with open(os.path.join(out, "results.json")) as fh:
        return summary, json.load(fh), out, True


def _store_add(conn, args):
    parse_root = store_db.parse_root(args.db_path)
    code = EXIT_OK
    for path in args.inputs:
        summary, results, out, fresh = _store_input(path, args.run, parse_root)
        if summary is None:
            code = results
            continue
        old = store_ops.stored_run(conn, summary)
        if old is not None:
            if fresh:  # the parse made for nothing
                shutil.rmtree(out, ignore_errors=True)
            print("%s: already stored as run r%d: nothing added" % (path, old))
            continue
        head = headline.compute(summary, out)
        got = store_ops.add(conn, summary, results, out, head)
        print("%s: added as run r%d of machine %s (%s), %d rows; directory %s" % (
            path, got["run_id"], got["machine_id"], got["label"], len(results.get("rows") or []),
            os.path.abspath(out)))
    return code


def cmd_store(args):
    args.db_path = args.db or store_db.default_path()
    try:
        conn = store_db.connect(args.db_path, create=args.store_cmd == "add")
    except store_db.StoreError as exc:
        return inputs.err(str(exc))
    with contextlib.closing(conn):
        try:
            if args.store_cmd == "add":
                return _store_add(conn, args)
            if args.store_cmd == "remove":
                return _store_remove(conn, args)
            if args.store_cmd == "list" and args.json:
                inputs.print_json(store_text.list_data(conn, store_db.display(args.db_path)))
            elif args.store_cmd == "list":
                print(store_text.list_text(conn, store_db.display(args.db_path)), end="")
            elif args.store_cmd == "show" and args.json:
                inputs.print_json(store_text.show_data(conn, args.machine))
            elif args.store_cmd == "show":
                print(store_text.show_text(conn, args.machine), end="")
            elif args.store_cmd == "compare":
                return _store_compare(conn, args)
            elif args.store_cmd == "export":
                fh = open(args.out, "w", newline="") if args.out else sys.stdout
                with fh if args.out else contextlib.nullcontext():
                    n = store_ops.export_csv(conn, fh)
                if args.out:
                    print("wrote %d rows to %s" % (n, args.out))
        except store_db.StoreError as exc:
            return inputs.err(str(exc))
        except store_db.server_errors() as exc:  # a PostgreSQL server gone or refusing
            return inputs.err("%s: %s" % (store_db.display(args.db_path), str(exc).strip()))
        except OSError as exc:
            return inputs.err("%s: %s" % (exc.filename or store_db.display(args.db_path),
                                          exc.strerror or exc))
    return EXIT_OK


def _drop_dir(path, parse_root):
    """Delete a removed run's parse directory when the store made it (under parse_root: a log
    or stick that `store add` parsed); a directory given to `store add` is the user's and stays.
    Returns the line saying which."""
    if not path:
        return None
    root = os.path.realpath(parse_root)
    if os.path.dirname(os.path.realpath(path)) == root and os.path.isdir(path):
        shutil.rmtree(path, ignore_errors=True)
        return "  deleted its directory %s (the store's parse)" % path
    return "  kept its directory %s (not the store's)" % path if os.path.isdir(path) else None


def _store_remove(conn, args):
    """`store remove RUN` or `store remove --machine MACHINE`; an unknown or ambiguous name
    removes nothing and exits 1 (a store that cannot be read: 2, as every subcommand)."""
    parse_root = store_db.parse_root(args.db_path)
    try:
        if args.machine:
            got = store_remove.remove_machine(conn, args.spec)
            print("removed machine %s (%s): %d run(s), %d results rows" % (
                got["machine_id"], got["label"], len(got["runs"]), got["rows"]))
            done = got["runs"]
        else:
            got = store_remove.remove_run(conn, args.spec)
            print("removed run r%d (key %s) of machine %s: %d results rows%s" % (
                got["run_id"], got["run_key"][:store_text.KEY_SHOWN], got["machine_id"],
                got["rows"], "; it was the machine's last run: machine removed"
                if got["machine_removed"] else ""))
            done = [got]
    except store_db.StoreError as exc:
        print("baremetric: error: %s (nothing removed)" % exc, file=sys.stderr)
        return EXIT_PROBLEMS
    for r in done:
        line = _drop_dir(r["path"], parse_root)
        if line:
            print(line)
    return EXIT_OK


def _store_compare(conn, args):
    tmp = tempfile.mkdtemp(prefix="baremetric-store-")
    try:
        runs_a, runs_b, res, note = store_ops.compare_store(
            conn, args.a, args.b, tmp, boot_spread_pct=args.boot_spread, alpha=args.alpha,
            threshold_pct=args.threshold)
        if args.json:
            inputs.print_json(json.loads(json.dumps(compare_report.json_doc(
                runs_a, runs_b, res, changed_only=args.changed_only), default=str)))
            return EXIT_OK
        if note:
            print(note)
        print(compare_report.build_doc(runs_a, runs_b, res,
                                       changed_only=args.changed_only).text(), end="")
        return EXIT_OK
    except compare.ClockMismatch as exc:
        return inputs.err(str(exc))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def add_parser(sub):
    """The `store` subparser."""
    p = sub.add_parser("store", help="keep runs of many machines in SQLite: add, list, show, "
                       "remove, compare, export")
    p.add_argument("--db", metavar="PATH|URL", help="the database: an SQLite file (default %s) "
                   "or postgresql://user@host/dbname (docs/fleet.md)" % store_db.default_path())
    ss = p.add_subparsers(dest="store_cmd", metavar="SUBCOMMAND")
    ss.required = True
    q = ss.add_parser("add", help="add runs: parse directories, serial logs or sticks (a run "
                      "already stored is not added twice)")
    q.add_argument("inputs", nargs="+", metavar="RUN")
    inputs.add_run_opt(q)
    q = ss.add_parser("list", help="machines and their runs")
    q.add_argument("--json", action="store_true", help="the same as JSON")
    q = ss.add_parser("show", help="a machine's identity, runs, headline figures and spread")
    q.add_argument("machine", metavar="MACHINE", help="machine id (or 4+ of its digits), or rN")
    q.add_argument("--json", action="store_true", help="the same as JSON")
    q = ss.add_parser("remove", help="remove a run (rN or its key or 4+ of its first digits), "
                      "or with --machine a machine and all its runs")
    q.add_argument("spec", metavar="RUN|MACHINE")
    q.add_argument("--machine", action="store_true", help="RUN|MACHINE is a machine (its id or "
                   "4+ of its first digits): remove it with all its runs")
    q = ss.add_parser("compare", help="compare machines or runs (a machine's runs are its boots)")
    q.add_argument("a", metavar="A", help="machine id or rN")
    q.add_argument("b", metavar="B", help="machine id or rN")
    q.add_argument("--json", action="store_true", help="print compare.json's content")
    q.add_argument("--changed-only", action="store_true")
    q.add_argument("--boot-spread", type=float, metavar="PCT", default=None,
                   help="default: the stored spread of A's machine (else B's) when each side "
                   "has one run")
    q.add_argument("--alpha", type=float, default=compare.ALPHA)
    q.add_argument("--threshold", type=float, default=compare.THRESHOLD_PCT, metavar="PCT")
    q = ss.add_parser("export", help="every stored results row as CSV (results.csv's columns "
                      "after machine_id and run_id)")
    q.add_argument("--csv", action="store_true", help="CSV (the only format; the default)")
    q.add_argument("--out", metavar="FILE", help="write here instead of stdout")
    p.set_defaults(func=cmd_store)
