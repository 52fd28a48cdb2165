"""The fleet run's pool: every machine of the inventory in a bounded pool of worker threads, each
driving its machine's ipmitool processes (capture.py). A machine that fails -- its BMC does not
answer, its boot never starts the firmware, it times out, its log does not parse -- is marked
failed with the reason and never stops the others. Ctrl-C sets the stop event: running machines
close their SOL sessions and are marked interrupted, machines not started are not started.
SIGTERM (a supervisor's stop, `timeout`, a cancelled CI job) and SIGHUP (the terminal gone) do the
same, so no BMC is left with our SOL session. A second signal is taken as the first: the wait is
bounded by each worker's clean-up (capture.SOL_STOP_WAIT_S, then ipmi.CMD_TIMEOUT_S for `sol
deactivate`), and the pool joins its threads in any case. A signal the caller left ignored
(`nohup`, a shell's background job) stays ignored.

Each machine ends in one of: done (its run parsed and stored) or failed (reason). fleet.json in
the output folder lists them.
"""

import concurrent.futures
import contextlib
import json
import os
import signal
import threading

from . import capture, ipmi

DONE, FAILED = "done", "failed"


def _one(m, out_root, db_path, table, stop):
    def report(state):
        table.set(m.name, state)
    res = {"name": m.name, "bmc": "%s:%d" % (m.host, m.port), "boot_device": m.boot_device,
           "dir": os.path.join(out_root, m.name)}
    if stop.is_set():
        return _fail(res, report, "interrupted before it started")
    try:
        prog, reason = capture.capture(m, res["dir"], report, stop)
    except capture.Stopped:
        return _fail(res, report, "interrupted (SOL deactivated)")
    except ipmi.IpmiError as exc:
        return _fail(res, report, str(exc))
    except OSError as exc:
        return _fail(res, report, "%s: %s" % (exc.filename or "I/O", exc.strerror or exc))
    res["progress"] = prog.state()
    if reason:
        return _fail(res, report, reason)
    try:
        summary, stored = capture.parse_and_store(res["dir"], db_path)
    except Exception as exc:  # noqa: BLE001 -- a bad log or store fails this machine only
        return _fail(res, report, "parse/store: %s: %s" % (type(exc).__name__, exc))
    end = summary.get("end") or prog.end or {}  # the parsed end record, else the live one
    res.update(state=DONE, status=end.get("status"), ok=bool(summary.get("ok")))
    if stored:
        res.update(run_id=stored["run_id"], machine_id=stored["machine_id"],
                   added=stored["added"])
    report("done (status %s%s)" % (res["status"], ", run r%d" % stored["run_id"]
                                   if stored else ""))
    return res


def _fail(res, report, reason):
    res.update(state=FAILED, reason=reason)
    report("failed: %s" % reason)
    return res


STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")


@contextlib.contextmanager
def stop_on_signals(stop):
    """While the pool runs, SIGINT, SIGTERM and SIGHUP set `stop` (the workers then close their
    SOL sessions) instead of raising at whatever line the main thread is on: a KeyboardInterrupt
    inside ex.submit() would leave a started machine out of the results and its SOL open. Only
    signals at their default are taken (Python's own handler for SIGINT); only the main thread
    may set handlers."""
    def handler(_signum, _frame):
        stop.set()
    saved = []
    if threading.current_thread() is threading.main_thread():
        for name in STOP_SIGNALS:
            sig = getattr(signal, name, None)
            default = signal.default_int_handler if name == "SIGINT" else signal.SIG_DFL
            if sig is not None and signal.getsignal(sig) is default:
                saved.append((sig, signal.signal(sig, handler)))
    try:
        yield
    finally:
        for sig, old in saved:
            signal.signal(sig, old)


def run(machines, out_root, db_path, table, workers=4):
    """Run every machine; returns their result dicts in inventory order (also fleet.json)."""
    os.makedirs(out_root, exist_ok=True)
    stop = threading.Event()
    results = {}
    with stop_on_signals(stop), \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as ex:
        futs = {ex.submit(_one, m, out_root, db_path, table, stop): m.name for m in machines}
        pending = set(futs)
        try:
            while pending:  # a signal sets stop: the workers see it within POLL_S and close SOL
                _, pending = concurrent.futures.wait(pending, timeout=0.5)
        except KeyboardInterrupt:  # not through stop_on_signals (not the main thread)
            stop.set()  # workers close their SOL sessions; the pool waits for them
            concurrent.futures.wait(futs)
        for f, name in futs.items():
            try:
                results[name] = f.result()
            except Exception as exc:  # noqa: BLE001 -- a bug in one worker: report it there
                results[name] = {"name": name, "state": FAILED,
                                 "reason": "%s: %s" % (type(exc).__name__, exc)}
                table.set(name, "failed: %s" % results[name]["reason"])
    table.finish()
    out = [results[m.name] for m in machines]
    with open(os.path.join(out_root, "fleet.json"), "w") as fh:
        json.dump({"machines": out, "interrupted": stop.is_set()}, fh, indent=1)
    return out, stop.is_set()
