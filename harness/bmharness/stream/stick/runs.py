"""The runs on a boot stick: open_stick() takes a mounted stick's directory, an image file, a
block device or one RUN_NNN.LOG file, finds \\BAREMETRIC\\RUN_NNN.LOG (case-insensitively) and
reads each run's header; Stick.select() takes the newest run (highest NNN) or a given one;
parse_run() sends a run's valid stream bytes through the parser exactly like a serial log.

Raises StickError (device.py) with a message naming the path when the stick or the chosen run
cannot be read."""

import contextlib
import os
import re
import stat

from .. import parse, protocol
from . import fat, parttable, runlog, scan
from .device import ExtentReader, StickError, open_device, open_extents, slice_extents

RUN_DIR = "BAREMETRIC"
RUN_NAME = re.compile(r"RUN_([0-9]{3})\.LOG\Z", re.IGNORECASE)
BEGIN_PEEK = 4096                # stream bytes read for the begin record's build and arch
SNIFF = 8192                     # bytes of a file read to tell an image from a serial log
GPT_AT = (512, 4096)             # where an image's GPT signature may be (LBA 1)
EMPTY = "valid=0: nothing was written after boot services"


class Run:
    """One RUN_NNN.LOG: number, name (as on the stick), size, header (dict) or error (str),
    begin ({build, arch} of its first record, or None), tail_written (bytes after the valid
    prefix that are not zero, in the block after it)."""

    def __init__(self, number, name, size, opener):
        self.number, self.name, self.size, self._opener = number, name, size, opener
        self.header = self.error = self.begin = None
        self.tail_written = 0

    @contextlib.contextmanager
    def _file(self):
        dev, extents, owns = self._opener()
        try:
            yield ExtentReader(dev, extents)  # unbuffered: the header is read, not 64 KiB
        finally:
            if owns:
                dev.close()

    def load(self):
        """Read the header (self.error says why it does not parse), the begin record and the
        block after the valid prefix."""
        try:
            self._load()
        except StickError as exc:  # a bad header, a broken cluster chain, an unreadable file
            self.header, self.error = None, str(exc)

    def _load(self):
        with self._file() as fh:
            def read(offset, n):
                fh.seek(offset)
                return fh.read(n)
            self.header = h = runlog.read_header(read, self.name, self.size)
            fh.seek(h["data_offset"])
            self.begin = _begin_fields(fh.read(min(h["valid"], BEGIN_PEEK)))
            fh.seek(h["data_offset"] + h["valid"])
            self.tail_written = sum(1 for b in fh.read(h["block"] or runlog.MIN_BLOCK) if b)

    def extents(self):
        """[(device offset, length)] of the whole file on its stick (tests damage headers
        through it)."""
        dev, extents, owns = self._opener()
        if owns:
            dev.close()
        return list(extents)

    def open_stream(self):
        """A binary file object over the `valid` stream bytes after data_offset."""
        dev, extents, owns = self._opener()
        h = self.header
        return open_extents(dev, slice_extents(extents, h["data_offset"], h["valid"]), owns)

    def state(self):
        """The run's state in words."""
        if self.error:
            return "header does not parse"
        h = self.header
        if h["source"] == "scan":
            return "no valid header: %d bytes of intact records found by scanning" % h["valid"]
        if h["notes"]:
            return "state=%s from the older header (the other does not check)" % h["state"]
        if h["valid"] == 0:
            return "empty (%s), state=%s" % (EMPTY, h["state"])
        if h["state"] == "closed":
            return "closed (finished)"
        return "open: the run was cut (power loss, reset); its valid prefix is read"


def _begin_fields(data):
    """{build, arch} of the stream's first record when it is an intact begin record."""
    line = data.split(b"\n", 1)[0].decode("latin-1")
    if not line.startswith(protocol.TAG):
        return None
    try:
        rec = protocol.parse_candidate(line)
    except protocol.RecordError:
        return None
    if rec["type"] != "begin":
        return None
    return {k: rec["fields"].get(k, "?") for k in ("build", "arch")}


class Stick:
    """A stick's runs, sorted by number; `where` says where on the source they were found."""

    def __init__(self, path, where, runs, dev=None):
        self.path, self.where, self.dev = path, where, dev
        self.runs = sorted(runs, key=lambda r: r.number)

    def close(self):
        if self.dev is not None:
            self.dev.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def select(self, number=None):
        """The run numbered `number`, or the newest. Raises StickError when there is none or
        its header does not parse."""
        if not self.runs:
            raise StickError("%s: no runs in %s (no %s/RUN_NNN.LOG)" % (self.path, self.where,
                                                                       RUN_DIR))
        if number is None:
            run = self.runs[-1]
        else:
            run = next((r for r in self.runs if r.number == number), None)
            if run is None:
                raise StickError("%s: no run %d (runs: %s)" % (
                    self.path, number, ", ".join(str(r.number) for r in self.runs)))
        if run.error:
            raise StickError(run.error)
        return run

    def label(self, run):
        return "%s:%s" % (self.path, run.name)


def _file_opener(path):
    def opener():
        dev = open_device(path)
        return dev, [(0, dev.size)], True
    return opener


def _dir_runs(path):
    """The RUN_NNN.LOG files of a mounted stick (in its BAREMETRIC directory, or in the
    directory itself when it holds them)."""
    sub = [n for n in os.listdir(path) if n.casefold() == RUN_DIR.casefold()
           and os.path.isdir(os.path.join(path, n))]
    where = os.path.join(path, sub[0]) if sub else path
    runs = []
    for name in os.listdir(where):
        m = RUN_NAME.match(name)
        full = os.path.join(where, name)
        if m and os.path.isfile(full):
            shown = os.path.join(sub[0], name) if sub else name
            runs.append(Run(int(m.group(1)), shown, os.path.getsize(full), _file_opener(full)))
    return (where, runs) if sub or runs else (None, [])


def _fat_runs(dev, fs, rdir):
    runs = []
    for e in fs.listdir(rdir):
        m = RUN_NAME.match(e.name) or RUN_NAME.match(e.short)
        if m and not fat.is_dir(e):
            name = "%s/%s" % (rdir.name, e.name)
            runs.append(Run(int(m.group(1)), name, e.size,
                            lambda e=e, name=name: (dev, fs.file_extents(e, name), False)))
    return runs


def _image_stick(path, dev):
    """The first volume with a FAT file system holding a BAREMETRIC directory."""
    seen = []
    for vol in parttable.volumes(dev):
        fs = fat.probe(dev, vol.offset, vol.size)
        if fs is None:
            seen.append("%s: no FAT file system" % vol.where)
            continue
        rdir = fs.lookup(None, RUN_DIR)
        if rdir is None or not fat.is_dir(rdir):
            seen.append("%s: %s without a %s directory" % (vol.where, fs.kind, RUN_DIR))
            continue
        return Stick(path, "%s, %s" % (vol.where, fs.kind), _fat_runs(dev, fs, rdir), dev)
    raise StickError("%s: no FAT file system with a %s directory (%s)" % (
        path, RUN_DIR, "; ".join(seen)))


def open_stick(path):
    """The runs of the stick at path, each header read. Raises StickError."""
    if os.path.isdir(path):
        where, runs = _dir_runs(path)
        if where is None:
            raise StickError("%s: a directory without %s/ (not a mounted baremetric stick)"
                             % (path, RUN_DIR))
        stick = Stick(path, "directory %s" % where, runs)
    else:
        dev = open_device(path)
        try:
            if _is_run_log(os.path.basename(path), dev.read(0, SNIFF)):
                m = RUN_NAME.match(os.path.basename(path))
                run = Run(int(m.group(1)) if m else 0, os.path.basename(path), dev.size,
                          lambda: (dev, [(0, dev.size)], False))
                stick = Stick(path, "one run log file", [run], dev)
            else:
                stick = _image_stick(path, dev)
        except BaseException:
            dev.close()
            raise
    for run in stick.runs:
        run.load()
    return stick


def _is_run_log(name, head):
    """Whether a file is one run log: its name, or a header's magic at the start of one of its
    header blocks (the first may be torn)."""
    return (RUN_NAME.match(name) is not None or head.startswith(runlog.LOG_MAGIC)
            or any(head[b:b + len(runlog.LOG_MAGIC)] == runlog.LOG_MAGIC
                   for b in scan.BLOCK_SIZES))


def is_stick(path):
    """Whether path is to be read as a stick rather than a serial log: a directory holding
    BAREMETRIC/ (or run logs), a block device, a disk image (GPT, MBR or FAT boot sector) or a
    run log file. A path that cannot be examined is not (its reader reports why)."""
    try:
        if os.path.isdir(path):
            return _dir_runs(path)[0] is not None
        if stat.S_ISBLK(os.stat(path).st_mode):
            return True
        with open(path, "rb") as fh:
            head = fh.read(SNIFF)
    except OSError:
        return False
    return (_is_run_log(os.path.basename(path), head)
            or any(head[at:at + len(parttable.GPT_SIGNATURE)] == parttable.GPT_SIGNATURE
                   for at in GPT_AT)
            or head[fat.BOOT_SIGNATURE_AT:fat.BOOT_SIGNATURE_AT + 2] == fat.BOOT_SIGNATURE)


def run_facts(stick, run):
    """What the summary and the command line say about the run's origin."""
    h = run.header
    return {"stick": stick.path, "where": stick.where, "file": run.name, "run": run.number,
            "state": h["state"], "valid": h["valid"], "capacity": h["capacity"],
            "data_offset": h["data_offset"], "block": h["block"], "nonce": h["nonce"],
            "tail_written": run.tail_written, "format": h["version"], "header": _header_used(h)}


def _header_used(h):
    """Which header the run was read by: 'block N seq S', 'block 0' (format 1) or 'scan'."""
    if h["source"] == "scan":
        return "scan"
    if h.get("seq") is None:
        return "block 0"
    return "block %d seq %d" % (h["header_block"], h["seq"])


def run_notes(run):
    """Notes for the parse summary: an empty or cut run, bytes past the valid prefix."""
    h = run.header
    notes = ["%s: %s" % (run.name, n) for n in h["notes"]]
    if h["valid"] == 0:
        notes.append("%s: %s (state=%s)" % (run.name, EMPTY, h["state"]))
    elif h["state"] == "open" and h["source"] != "scan":
        notes.append("%s: state=open: the run was cut; its %d valid bytes are read and the log "
                     "ends without its end record" % (run.name, h["valid"]))
    if run.tail_written:
        notes.append("%s: %d non-zero bytes in the block after the valid prefix (written after "
                     "the header's last update; not read)" % (run.name, run.tail_written))
    return notes


def parse_run(stick, run, out_dir=None):
    """Parse a run's valid stream like a serial log; write the outputs when out_dir is given.
    The summary's source names the stick and run (source.stick) and its notes say when the run
    is empty or was cut. Returns the summary."""
    with run.open_stream() as fh:
        result = parse.analyse_file(fh, source=stick.label(run))
    summary = result["summary"]
    summary["source"]["stick"] = run_facts(stick, run)
    summary["validation"]["notes"] = run_notes(run) + summary["validation"]["notes"]
    if out_dir is not None:
        parse.write_outputs(result, out_dir)
    return summary
