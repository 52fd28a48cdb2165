"""What a fleet run reads in a machine's console as it arrives: when to stop, and how far the
boot is. The console is the firmware's record stream (docs/protocol.md) inside whatever else the
machine prints; only CRC-valid records count, so line noise cannot end or advance a capture.

is_done() is the one stop condition: the firmware's done line (docs/fleet.md, "The done line";
efi/after_run.h AFTER_RUN_DONE_LINE), which it writes after the `end` record and after the stick's
copy is closed, so a machine stopped there has nothing left to save.
"""

from ..stream import protocol

SOL_BANNER = b"[SOL Session operational.  Use ~? for help]"
SOL_TRAILER = b"[terminated ipmitool]"


def record(line):
    """The record a console line carries ((seq, type, fields) as protocol.parse_candidate
    gives it), or None."""
    text = line.decode("ascii", "replace")
    for cand in protocol.split_candidates(text):
        try:
            return protocol.parse_candidate(cand)
        except protocol.RecordError:
            continue
    return None


DONE_LINE = b"baremetric: done"


def is_done(line, rec):
    """The stop condition (module docstring): this console line (bytes, without its newline)
    ends the capture. rec is the record the line carries (record(line)), or None: a record never
    ends it, the done line is not one."""
    return rec is None and line.strip() == DONE_LINE


class Progress:
    """A boot's progress from its records: started, the probe list (cfg), the probe running."""

    def __init__(self):
        self.started = False
        self.probes = []
        self.current = None
        self.done = False
        self.end = None

    def feed(self, line):
        """Take one console line (bytes); returns the record it carries, or None."""
        rec = record(line)
        if rec is not None and rec.get("type") == "end":
            self.end = rec.get("fields") or {}
        if is_done(line, rec):
            self.done = True
        if rec is None:
            return None
        t, f = rec.get("type"), rec.get("fields") or {}
        if t == "begin":
            self.started = True
        elif t == "cfg" and f.get("probes"):
            self.probes = [p for p in f["probes"].split(",") if p]
        elif t in ("probe", "skip"):
            name = f.get("name") if t == "probe" else f.get("probe")
            if name:
                self.current = name
        return rec

    def state(self):
        """'booting', 'started' or 'probe k/N (name)': the probe running. A probe reports its
        sets when it has measured them, so the one running is the one after the last that
        reported (the first before any did), in the cfg record's order."""
        if not self.started:
            return "booting"
        if not self.probes:
            return "started"
        n = len(self.probes)
        i = self.probes.index(self.current) + 1 if self.current in self.probes else 0
        i = min(i, n - 1)
        return "probe %d/%d (%s)" % (i + 1, n, self.probes[i])


def strip_sol(raw):
    """The console's bytes from ipmitool's output: without the banner ipmitool prints on
    activation and the line it prints when it is stopped (nothing of the machine's)."""
    if raw.startswith(SOL_BANNER):
        raw = raw[len(SOL_BANNER):]
        for nl in (b"\r\n", b"\n"):
            if raw.startswith(nl):
                raw = raw[len(nl):]
                break
    i = raw.rfind(SOL_TRAILER)
    if i >= 0 and not raw[i + len(SOL_TRAILER):].strip():
        raw = raw[:i]
    return raw
