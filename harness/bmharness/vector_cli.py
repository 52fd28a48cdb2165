"""`baremetric characterise`, `baremetric predict`: characterisation vectors (hbench-OS ch. 4.1).

- `characterise [--out FILE] [--miss-model bandwidth|latency] [--startup CMD] -- CMD ARGS...`: run
  CMD once under valgrind's cachegrind (with its branch predictor), once under strace -c and once
  under GNU time -v, and write the application's vector (analysis/app_vector.py) as JSON (stdout
  without --out), the empty program's counts (--startup, /bin/true) taken off.
- `predict APP_VECTOR TARGET... [--store [DB]] [--json FILE]`: the application's predicted time on
  each target, with its interval, and the ranking (analysis/predict.py). A TARGET is a results
  directory (its vector.json, which `report` writes; built from its summary.json and headline
  when absent), a vector.json file, or with --store a machine or run of the results store (a
  machine's latest run).

Exit codes: 0 every target predicted, 1 some could not be (a coefficient missing), 2 usage or I/O
errors."""

import json
import os
import sys

from .analysis import app_vector, headline, predict, vector
from .report.doc import Doc
from .store import db as store_db, ops as store_ops

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


def _err(msg):
    print("baremetric: error: %s" % msg, file=sys.stderr)
    return EXIT_USAGE


def cmd_characterise(args):
    cmd = list(args.cmd)
    if cmd[:1] == ["--"]:
        cmd = cmd[1:]
    try:
        vec = app_vector.characterise(cmd, args.miss_model, valgrind=args.valgrind,
                                      timeout=args.timeout)
        if args.startup:
            base = app_vector.characterise(args.startup.split(), args.miss_model,
                                           valgrind=args.valgrind, timeout=args.timeout)
            vec = app_vector.subtract(vec, base)
    except app_vector.VectorError as exc:
        return _err(str(exc))
    if args.out:
        app_vector.write_json(args.out, vec)
        print("wrote %s: %d instructions, %d bytes from beyond L1, %d from DRAM (%s misses, %s "
              "model)" % (args.out, vec["events"]["Ir"],
                  vec["uses"].get("read_ns_per_byte.L2", 0) + vec["uses"]["write_ns_per_byte.L2"],
                  vec["uses"].get("read_ns_per_byte.DRAM", 0) +
                  vec["uses"]["write_ns_per_byte.DRAM"], vec["miss_model"], vec["model"]))
    else:
        json.dump(vec, sys.stdout, indent=1, sort_keys=True)
        print()
    if vec.get("exit_code"):
        print("note: the program exited %d under cachegrind" % vec["exit_code"], file=sys.stderr)
    return EXIT_OK


def _from_dir(path):
    """A results directory's machine vector: vector.json, else built from summary.json."""
    try:
        return vector.load(path)
    except OSError:
        pass
    with open(os.path.join(path, "summary.json")) as fh:
        summary = json.load(fh)
    return vector.machine_vector(headline.compute(summary, path), summary)


def _from_store(db, spec):
    conn = store_db.connect(db or None, create=False)
    try:
        mid, runs = store_ops.resolve(conn, spec)
        rec = store_ops.run_record(conn, runs[-1])
    finally:
        conn.close()
    hl = rec.get("headline")
    if not hl:
        hl = headline.compute(rec["summary"], rec.get("path"))
    return vector.machine_vector(hl, rec["summary"]), "%s (run r%d)" % (mid[:12], runs[-1])


def _targets(args):
    out = []
    for t in args.targets:
        if os.path.isdir(t):
            out.append((t, _from_dir(t)))
        elif os.path.isfile(t):
            out.append((t, vector.load(t)))
        elif args.store is not None:
            vec, label = _from_store(args.store, t)
            out.append((label, vec))
        else:
            raise ValueError("%s: no such results directory or vector file (a stored machine "
                             "needs --store)" % t)
    return out


def _fmt_s(x):
    return "-" if x is None else "%.4g s" % x


def render(app, rows):
    doc = Doc()
    doc.h("Predicted time of %s" % (app.get("command") or "the application"), 1)
    doc.p("characterisation vectors (hbench-OS ch. 4.1): %s, %s misses; the interval is the "
          "machine figures' CIs, not the model's fit" % (app.get("tool"), app.get("miss_model")))
    doc.table(["rank", "machine", "predicted", "interval", "x fastest", "largest term"],
              [[r["rank"] or "-", r["label"], _fmt_s(r["seconds"]),
                "%s - %s" % (_fmt_s(r["lo_seconds"]), _fmt_s(r["hi_seconds"]))
                if r["seconds"] is not None else "missing: " + ", ".join(r["missing"]),
                "%.2f" % r["ratio_to_fastest"] if r.get("ratio_to_fastest") else "-",
                "%s %.0f%%" % (r["terms"][0]["name"], 100 * r["terms"][0]["share"])
                if r["terms"] else "-"] for r in rows])
    for r in rows:
        if r["terms"]:
            doc.h("%s: each term's share" % r["label"], 2)
            doc.table(["term", "uses", "cost each", "time", "share"],
                      [[t["name"], "%d" % t["uses"], "%.4g %s" % (t["coefficient"], (
                          t.get("unit") or "").replace("ns/byte", "ns/B")),
                        _fmt_s(t["ns"] * predict.NS), "%.1f%%" % (100 * (t["share"] or 0))]
                       for t in r["terms"]])
    for r in rows:
        if r.get("emulated"):
            doc.p("%s: %s" % (r["label"], r["emulated"].get("text") if isinstance(
                r["emulated"], dict) else r["emulated"]))
    return doc


def cmd_predict(args):
    try:
        app = app_vector.load(args.app)
        machines = _targets(args)
    except (OSError, ValueError, store_db.StoreError) as exc:
        return _err(str(exc))
    rows = predict.predict(app, machines)
    print(render(app, rows).text(100))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"app": app, "predictions": rows}, fh, indent=1, default=str)
    return EXIT_PROBLEMS if any(r["seconds"] is None for r in rows) else EXIT_OK


def add_parser(sub):
    p = sub.add_parser("characterise", help="an application's characterisation vector: run a "
                       "command once under cachegrind (-- CMD ARGS...)")
    p.add_argument("--out", metavar="FILE", help="write the vector here (default: stdout)")
    p.add_argument("--miss-model", choices=app_vector.MISS_MODELS, default="bandwidth",
                   help="charge cache misses as bytes moved (bandwidth, default) or as dependent "
                   "loads (latency: pointer-heavy programs)")
    p.add_argument("--valgrind", default="valgrind", metavar="PATH")
    p.add_argument("--startup", default="/bin/true", metavar="CMD",
                   help="an empty program whose counts (process start-up) are taken off the "
                   "program's (default /bin/true; '' keeps them)")
    p.add_argument("--timeout", type=float, default=None, metavar="S")
    p.add_argument("cmd", nargs="+", metavar="CMD", help="the program and its arguments, after --")
    p.set_defaults(func=cmd_characterise)
    p = sub.add_parser("predict", help="an application's predicted time on machines, ranked: "
                       "APP_VECTOR against results directories, vector.json files or stored "
                       "machines")
    p.add_argument("app", metavar="APP_VECTOR")
    p.add_argument("targets", nargs="+", metavar="RUN|MACHINE")
    p.add_argument("--store", nargs="?", const="", default=None, metavar="DB",
                   help="resolve targets that are not paths in the results store (DB, default "
                   "the user's)")
    p.add_argument("--json", metavar="FILE", help="also write the predictions as JSON")
    p.set_defaults(func=cmd_predict)
