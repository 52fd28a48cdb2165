"""One machine of a fleet run: set the next boot through its BMC, open Serial-over-LAN, power-
cycle, read the console until the done line (console.is_done), a time-out or a stop, close SOL,
then parse and store the run.

Order matters on a BMC: SOL is activated before the power-on, so the console's first bytes (the
firmware's start) are not lost; and it is deactivated whatever happens (a failure, a time-out,
Ctrl-C), so the BMC is left without our session, as it was found. The machine's power is left as
the boot left it (the firmware powers off, or returns to its OS with after=boot-os).

Files in the machine's folder: sol.raw (ipmitool's output as read), sol.log (the console's
bytes: sol.raw without ipmitool's banner and trailer) and parse/ (the parse directory the store
keeps the path of).
"""

import os
import queue
import threading
import time

from . import console, ipmi
from ..analysis import export, headline
from ..store import db as store_db, ops as store_ops
from ..stream import parse

POLL_S = 0.25
SOL_STOP_WAIT_S = 5


class Stopped(Exception):
    """The run was interrupted (Ctrl-C)."""


def _reader(stream, q):
    """Move the SOL process's output into q as it arrives (None at its end)."""
    while True:
        chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(4096)
        if not chunk:
            q.put(None)
            return
        q.put(chunk)


def _stop_sol(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(SOL_STOP_WAIT_S)
        except Exception:  # noqa: BLE001 -- any failure to wait: kill it
            proc.kill()
            proc.wait()


def _watch(m, proc, raw_fh, report, stop):
    """Read the console until done, a time-out or stop. Returns (progress, reason or None)."""
    q = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, q), daemon=True).start()
    prog, pending = console.Progress(), b""
    t0 = time.monotonic()
    while True:
        if stop.is_set():
            raise Stopped()
        now = time.monotonic() - t0
        if not prog.started and now > m.start_s:
            return prog, "no firmware record in %d s after power-on (start_s): the boot " \
                "device did not start the firmware" % m.start_s
        if now > m.timeout_s:
            return prog, "timeout after %d s at %s" % (m.timeout_s, prog.state())
        try:
            chunk = q.get(timeout=POLL_S)
        except queue.Empty:
            continue
        if chunk is None:
            err = proc.stderr.read().decode("utf-8", "replace").strip().splitlines()
            return prog, "SOL session ended: %s" % (err[-1] if err else "ipmitool exited")
        raw_fh.write(chunk)
        raw_fh.flush()
        pending += chunk
        *lines, pending = pending.split(b"\n")
        before = prog.state()
        for line in lines:
            prog.feed(line)
            if prog.done:
                return prog, None
        if prog.state() != before:
            report(prog.state())


def capture(m, out_dir, report, stop):
    """Boot and capture machine m into out_dir. report(state) is called on each change.
    Returns (progress, reason): reason None when the done line came."""
    os.makedirs(out_dir, exist_ok=True)
    raw_path = os.path.join(out_dir, "sol.raw")
    report("booting")
    ipmi.bootdev(m)
    ipmi.sol_deactivate(m)  # a stale session would refuse ours
    proc = ipmi.sol_activate(m)
    try:
        with open(raw_path, "wb") as raw_fh:
            ipmi.power_cycle(m)
            return _watch(m, proc, raw_fh, report, stop)
    finally:
        _stop_sol(proc)
        ipmi.sol_deactivate(m)
        with open(raw_path, "rb") as fh:
            raw = fh.read()
        with open(os.path.join(out_dir, "sol.log"), "wb") as fh:
            fh.write(console.strip_sol(raw))


def parse_and_store(out_dir, db_path):
    """Parse out_dir/sol.log into out_dir/parse and add it to the store (db_path None: not
    stored). Returns (summary, stored: ops.add's dict or None)."""
    pdir = os.path.join(out_dir, "parse")
    summary = parse.parse_log(os.path.join(out_dir, "sol.log"), pdir)
    results = export.write(pdir, summary)
    if db_path is None:
        return summary, None
    head = headline.compute(summary, pdir)
    conn = store_db.connect(db_path)  # one connection per worker: the store takes them all
    try:
        return summary, store_ops.add(conn, summary, results, pdir, head)
    finally:
        conn.close()
