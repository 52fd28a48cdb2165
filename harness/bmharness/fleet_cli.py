"""`baremetric fleet run INVENTORY`: boot every machine of an inventory through its BMC, capture
its console over SOL, parse and store each run (fleet/: inventory, ipmi, capture, pool, table).
docs/fleet.md has the inventory format and the IPMI and PostgreSQL set-up."""

import os
import time

from . import fleet_report_cli
from .fleet import inventory, pool, table
from .run import inputs
from .store import db as store_db

DEFAULT_WORKERS = 8


def cmd_fleet_run(args):
    try:
        machines = inventory.load(args.inventory)
    except inventory.InventoryError as exc:
        return inputs.err(str(exc))
    if args.timeout:
        for m in machines:
            m.timeout_s = args.timeout
    db_path = None if args.no_store else (args.db or store_db.default_path())
    if db_path:
        try:  # a store that cannot be opened is found before any machine is booted
            store_db.connect(db_path).close()
        except store_db.StoreError as exc:
            return inputs.err(str(exc))
    out = args.out or os.path.join("results", "fleet-" + time.strftime("%Y%m%d-%H%M%S"))
    print("fleet: %d machine(s), %d at a time, output %s, store %s" % (
        len(machines), args.workers, out, store_db.display(db_path) if db_path else "none"),
        flush=True)
    tab = table.Table([m.name for m in machines])
    res, interrupted = pool.run(machines, out, db_path, tab, workers=args.workers)
    done = sum(1 for r in res if r["state"] == pool.DONE)
    for r in res:  # in full: the table cuts its lines to the terminal's width
        if r["state"] != pool.DONE:
            print("%s: failed: %s" % (r["name"], r.get("reason")))
    print("fleet: %d done, %d failed%s; %s" % (done, len(res) - done,
                                               " (interrupted)" if interrupted else "",
                                               os.path.join(out, "fleet.json")))
    return inputs.EXIT_OK if done == len(res) else inputs.EXIT_PROBLEMS


def add_run_parser(fs):
    """`fleet run` under the `fleet` subcommand's subparsers fs."""
    q = fs.add_parser("run", help="boot the inventory's machines through their BMCs (IPMI), "
                      "capture SOL, parse and store")
    q.add_argument("inventory", metavar="INVENTORY", help="TOML or CSV (docs/fleet.md)")
    q.add_argument("--out", metavar="DIR", help="output folder (default results/fleet-<time>)")
    q.add_argument("--db", metavar="PATH|URL", help="the store: SQLite file or postgresql:// URL "
                   "(default %s)" % store_db.default_path())
    q.add_argument("--no-store", action="store_true", help="parse but do not store")
    q.add_argument("--workers", type=int, default=DEFAULT_WORKERS, metavar="N",
                   help="machines at a time (default %d)" % DEFAULT_WORKERS)
    q.add_argument("--timeout", type=int, metavar="S", help="seconds per machine from power-on "
                   "to the done line, for all (default: the inventory's timeout_s)")
    q.set_defaults(func=cmd_fleet_run)


def add_parser(sub):
    """The `fleet` subparser with `run` and `report` (fleet_report_cli)."""
    p = sub.add_parser("fleet", help="many machines through their BMCs: fleet run, fleet report")
    fs = p.add_subparsers(dest="fleet_cmd", metavar="SUBCOMMAND")
    fs.required = True
    add_run_parser(fs)
    fleet_report_cli.add_report_parser(fs)
