"""The header of a run log, \\BAREMETRIC\\RUN_NNN.LOG (docs/harness.md, "Runs on the boot
stick"): `data_offset` bytes of ASCII lines, then NUL bytes; the record stream follows at
data_offset, `valid` bytes of it.

    baremetric-log 1
    nonce=<32 lowercase hex digits>
    block=<device block size>
    data_offset=<bytes>
    capacity=<bytes for data after data_offset>
    valid=<20-digit zero-padded count of valid stream bytes>
    state=<open|closed>

parse_header() checks all of it and raises HeaderError (naming the file) on anything else."""

import re

from .device import StickError

LOG_MAGIC = b"baremetric-log "
LOG_VERSION = 1
HEADER_KEYS = ("nonce", "block", "data_offset", "capacity", "valid", "state")
MIN_BLOCK = 512                  # data_offset is one device block, at least this
MAX_DATA_OFFSET = 1 << 20        # sanity bound: no device block is larger
FIRST_READ = 4096               # read first: holds the header of a 512- or 4096-byte block
STATES = ("open", "closed")
_DEC = re.compile(r"(0|[1-9][0-9]*)\Z")
_FORMS = {"nonce": re.compile(r"[0-9a-f]{32}\Z"), "block": _DEC, "data_offset": _DEC,
          "capacity": _DEC, "valid": re.compile(r"[0-9]{20}\Z"),
          "state": re.compile(r"(%s)\Z" % "|".join(STATES))}


class HeaderError(StickError):
    """A run log whose header does not parse."""


def _fail(name, why):
    raise HeaderError("%s: not a valid run log header: %s" % (name, why))


def header_text(head, name):
    """The header's text: the bytes before the first NUL of `head` (the first block)."""
    if not head.startswith(LOG_MAGIC):
        _fail(name, "it does not start with %r" % LOG_MAGIC.decode())
    text = head.split(b"\0", 1)[0]
    if b"\0" not in head:
        _fail(name, "no NUL byte ends the header in its first %d bytes" % len(head))
    try:
        return text.decode("ascii")
    except UnicodeDecodeError:
        _fail(name, "bytes that are not ASCII")


def parse_lines(text, name):
    """{key: str} of the header's lines, in the order and form of HEADER_KEYS."""
    lines = text.split("\n")
    if lines[0] != "baremetric-log %d" % LOG_VERSION:
        _fail(name, "format %r (this harness reads baremetric-log %d)" % (lines[0], LOG_VERSION))
    if lines[-1] != "":
        _fail(name, "its last line %r has no line end" % lines[-1][:40])
    body, fields = lines[1:-1], {}
    keys = [ln.partition("=")[0] for ln in body]
    if keys != list(HEADER_KEYS):
        _fail(name, "keys %s, expected %s" % (",".join(keys), ",".join(HEADER_KEYS)))
    for ln in body:
        key, _, value = ln.partition("=")
        if not _FORMS[key].match(value):
            _fail(name, "%s=%r is malformed" % (key, value[:40]))
        fields[key] = value
    return fields


def parse_header(read_head, name, file_size):
    """The header of a run log; read_head(n) returns the file's first n bytes (fewer when it is
    shorter). Returns {nonce, block, data_offset, capacity, valid (ints), state}."""
    head = read_head(FIRST_READ)
    text = header_text(head, name)
    f = parse_lines(text, name)
    h = {k: (f[k] if k in ("nonce", "state") else int(f[k])) for k in HEADER_KEYS}
    off = h["data_offset"]
    if len(head) < off <= MAX_DATA_OFFSET:
        head = read_head(off)
    if h["block"] < MIN_BLOCK or not MIN_BLOCK <= off <= MAX_DATA_OFFSET:
        _fail(name, "block=%d data_offset=%d (each at least %d)" % (h["block"], off, MIN_BLOCK))
    if len(text) >= off:
        _fail(name, "%d bytes of header text do not fit in data_offset=%d" % (len(text), off))
    if len(head) < off or head[len(text):off].strip(b"\0"):
        _fail(name, "the bytes after the header text up to data_offset=%d are not all NUL" % off)
    if h["valid"] > h["capacity"]:
        _fail(name, "valid=%d is more than capacity=%d" % (h["valid"], h["capacity"]))
    if off + h["valid"] > file_size:
        _fail(name, "the file has %d bytes, data_offset + valid = %d" % (
            file_size, off + h["valid"]))
    return h
