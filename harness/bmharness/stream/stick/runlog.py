"""The header of a run log, \\BAREMETRIC\\RUN_NNN.LOG (docs/saving.md, "The file";
docs/harness.md, "Runs on the boot stick").

Format 2 (the firmware now): two header blocks of `block` bytes each, then the stream at
data_offset = 2 * block. Header number `seq` lives in block seq % 2; the firmware writes the
data, synchronises the stick's cache, then writes the next header into the other block and
synchronises again, so a power cut inside a header write leaves the other block intact:

    baremetric-log 2
    nonce=<32 lowercase hex digits>
    block=<device block size>
    data_offset=<2 * block>
    capacity=<bytes for data after data_offset>
    seq=<20-digit zero-padded sequence number>
    valid=<20-digit zero-padded count of valid stream bytes>
    state=<open|closed>
    crc32=<CRC-32 (zlib.crc32) of every line above, 8 lowercase hex digits>

then NUL bytes to the block's end. Format 1 (older firmware): one header block without seq and
crc32, data_offset = block.

read_header() takes the newest header that checks; with none, the record stream is scanned for
(scan.py). It raises HeaderError (naming the file) when neither gives anything."""

import re
import zlib

from . import scan
from .device import StickError

LOG_MAGIC = b"baremetric-log "
LOG_VERSIONS = (1, 2)
HEADER_KEYS = {1: ("nonce", "block", "data_offset", "capacity", "valid", "state"),
               2: ("nonce", "block", "data_offset", "capacity", "seq", "valid", "state", "crc32")}
HEADER_BLOCKS = {1: 1, 2: 2}   # header blocks before the data
MIN_BLOCK = 512                  # a header is one device block, at least this
MAX_BLOCK = 4096                 # the firmware refuses larger blocks (efi/save_prepare.c)
MAX_DATA_OFFSET = 1 << 20        # sanity bound: no device block is larger
FIRST_READ = 4096               # read first: holds the first header of a 512- or 4096-byte block
STATES = ("open", "closed")
_DEC = re.compile(r"(0|[1-9][0-9]*)\Z")
_FIXED = re.compile(r"[0-9]{20}\Z")
_FORMS = {"nonce": re.compile(r"[0-9a-f]{32}\Z"), "block": _DEC, "data_offset": _DEC,
          "capacity": _DEC, "seq": _FIXED, "valid": _FIXED,
          "state": re.compile(r"(%s)\Z" % "|".join(STATES)), "crc32": re.compile(r"[0-9a-f]{8}\Z")}
_INTS = ("block", "data_offset", "capacity", "seq", "valid")


class HeaderError(StickError):
    """A run log whose header does not parse."""


class _Bad(Exception):
    """One header block that does not check (the message says why)."""


def header_text(head):
    """The header's text: the bytes of `head` (one header block) before its first NUL."""
    if not head.startswith(LOG_MAGIC):
        raise _Bad("it does not start with %r" % LOG_MAGIC.decode())
    if b"\0" not in head:
        raise _Bad("no NUL byte ends the header in its first %d bytes" % len(head))
    try:
        return head.split(b"\0", 1)[0].decode("ascii")
    except UnicodeDecodeError:
        raise _Bad("bytes that are not ASCII") from None


def parse_lines(text):
    """(version, {key: str}) of the header's lines, in the order and form of HEADER_KEYS."""
    lines = text.split("\n")
    version = next((v for v in LOG_VERSIONS if lines[0] == "baremetric-log %d" % v), None)
    if version is None:
        raise _Bad("format %r (this harness reads baremetric-log %s)" % (
            lines[0], " and ".join(str(v) for v in LOG_VERSIONS)))
    if lines[-1] != "":
        raise _Bad("its last line %r has no line end" % lines[-1][:40])
    body, fields = lines[1:-1], {}
    keys = [ln.partition("=")[0] for ln in body]
    if keys != list(HEADER_KEYS[version]):
        raise _Bad("keys %s, expected %s" % (",".join(keys), ",".join(HEADER_KEYS[version])))
    for ln in body:
        key, _, value = ln.partition("=")
        if not _FORMS[key].match(value):
            raise _Bad("%s=%r is malformed" % (key, value[:40]))
        fields[key] = value
    if version >= 2:
        covered = text[:text.rindex("crc32=")].encode("ascii")
        crc = "%08x" % (zlib.crc32(covered) & 0xFFFFFFFF)
        if crc != fields["crc32"]:
            raise _Bad("crc32=%s, the lines above it give %s (a torn or damaged header)"
                       % (fields["crc32"], crc))
    return version, fields


def _check_block(read, index, at, file_size):
    """The header in header block `index` read at byte `at` (the block size the caller assumes
    is at / index, or unknown for block 0). Returns the header dict or raises _Bad."""
    head = read(at, FIRST_READ)
    text = header_text(head)
    version, f = parse_lines(text)
    h = {k: (int(f[k]) if k in _INTS else f[k]) for k in HEADER_KEYS[version]}
    block, off = h["block"], h["data_offset"]
    if not MIN_BLOCK <= block <= MAX_DATA_OFFSET or off != HEADER_BLOCKS[version] * block:
        raise _Bad("block=%d data_offset=%d (block at least %d, data_offset %d blocks)" % (
            block, off, MIN_BLOCK, HEADER_BLOCKS[version]))
    if index >= HEADER_BLOCKS[version] or at != index * block:
        raise _Bad("a format %d header with block=%d cannot be header block %d" % (
            version, block, index))
    if version >= 2 and h["seq"] % 2 != index:
        raise _Bad("seq=%d belongs in header block %d" % (h["seq"], h["seq"] % 2))
    if len(text) >= block:
        raise _Bad("%d bytes of header text do not fit in block=%d" % (len(text), block))
    if len(head) < block:
        head = read(at, block)
    if len(head) < block or head[len(text):block].strip(b"\0"):
        raise _Bad("the bytes after the header text up to the block's end are not all NUL")
    if h["valid"] > h["capacity"]:
        raise _Bad("valid=%d is more than capacity=%d" % (h["valid"], h["capacity"]))
    if off + h["valid"] > file_size:
        raise _Bad("the file has %d bytes, data_offset + valid = %d" % (file_size, off + h["valid"]))
    h.update(version=version, header_block=index, source="header", notes=[])
    return h


def _second_block(read, first, file_size):
    """Header block 1: where header block 0 says, or, when block 0 does not check, at each block
    size the firmware uses."""
    sizes = [first["block"]] if first else list(scan.BLOCK_SIZES)
    reasons = []
    for size in sizes:
        try:
            return _check_block(read, 1, size, file_size), None
        except _Bad as exc:
            reasons.append((size, str(exc)))
    if first or not reasons:
        return None, reasons[0][1] if reasons else "not read"
    return None, "none at 512..4096 bytes (%s at 512)" % reasons[0][1]


def _newest(name, blocks, why):
    """The newer of the format 2 headers that check, with a note when one does not."""
    good = [h for h in blocks if h]
    if len(good) == 2:
        a, b = good
        for key in ("nonce", "block", "capacity"):
            if a[key] != b[key]:
                raise HeaderError("%s: its two header blocks are of different runs (%s=%s and %s)"
                                  % (name, key, a[key], b[key]))
        return max(good, key=lambda h: h["seq"])
    h = good[0]
    other = 1 - h["header_block"]
    h["notes"].append("header block %d does not check (%s): header block %d (seq=%d) is read; "
                      "a flush cut while block %d was written is lost"
                      % (other, why[other], h["header_block"], h["seq"], other))
    return h


def read_header(read, name, file_size):
    """The header of a run log; read(offset, n) returns up to n bytes of the file at offset.
    Returns {nonce, block, data_offset, capacity, valid (ints), state, version, source ('header'
    or 'scan'), notes (list of str); format 2 also seq, crc32, header_block}."""
    why = ["", ""]
    first = second = None
    try:
        first = _check_block(read, 0, 0, file_size)
    except _Bad as exc:
        why[0] = str(exc)
    if first is None or first["version"] >= 2:
        second, why[1] = _second_block(read, first, file_size)
    if first and first["version"] == 1:
        return first
    if first or second:
        return _newest(name, [first, second], why)
    reasons = "header block 0: %s; header block 1: %s" % (why[0], why[1])
    found = scan.scan_stream(read, file_size)
    if found is None:
        raise HeaderError("%s: not a valid run log header: %s; and no record stream where the "
                          "data would start (%s)" % (name, reasons, scan.OFFSETS_TEXT))
    found["notes"].insert(0, "no header checks (%s): the %d bytes of intact records from offset %d "
                          "are read (found by scanning)" % (reasons, found["valid"],
                                                           found["data_offset"]))
    return found


def parse_header(read_head, name, file_size):
    """read_header() for a reader of the file's first n bytes (read_head(n))."""
    return read_header(lambda off, n: read_head(off + n)[off:], name, file_size)
