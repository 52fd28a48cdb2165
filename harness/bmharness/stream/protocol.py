"""Record-level codec for the baremetric serial stream (docs/protocol.md, version 1).

Everything here works on single lines: finding `@BM ` records in noisy text, checking their CRC,
splitting fields, undoing `%XX` escapes and decoding sample lists. The encoder half (escape,
encode_record, encode_values) mirrors lib/record.c so tests can synthesise valid streams.
Validation across records (sequence, boots, sets) lives in parse.py.
"""

import re
import zlib

PROTO_VERSION = 1
TAG = "@BM "
MAX_LINE = 1024
CHUNK_MAX = 96  # values per samples chunk, before run-length compression
MAX_DECODE = 1 << 16  # sanity bound for one decoded list (a chunk holds at most 96)

_KEY_RE = re.compile(r"[a-z0-9_.]+\Z")
_TYPE_RE = re.compile(r"[a-z0-9_]+\Z")
_DEC_RE = re.compile(r"(0|[1-9][0-9]*)\Z")
# The body cannot contain '|' (it is escaped in values), so the first " |" ends it. Anything after
# the 8 hex digits is tolerated: the CRC already proves the record itself is intact.
_FRAME_RE = re.compile(r"(@BM [^|]*) \|([0-9a-f]{8})")


class RecordError(ValueError):
    """A candidate record that cannot be used; `kind` is corrupt, malformed or version."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def crc_hex(body):
    """CRC-32 (zlib) of the record body as 8 lower-case hex digits."""
    return "%08x" % (zlib.crc32(body.encode("latin-1")) & 0xFFFFFFFF)


def escape(value):
    """Escape a field value: %, space, | and bytes outside 0x21..0x7E become %XX."""
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    out = []
    for ch in str(value):
        o = ord(ch)
        if o > 0xFF:
            out.extend("%%%02X" % b for b in ch.encode("utf-8"))
        elif ch in "% |" or o < 0x21 or o > 0x7E:
            out.append("%%%02X" % o)
        else:
            out.append(ch)
    return "".join(out)


def unescape(text):
    """Undo %XX escapes (hex digits in either case). Raises ValueError on a broken escape."""
    if "%" not in text:
        return text
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "%":
            hx = text[i + 1:i + 3]
            if len(hx) != 2 or not all(c in "0123456789abcdefABCDEF" for c in hx):
                raise ValueError("bad escape %r at offset %d" % (text[i:i + 3], i))
            out.append(chr(int(hx, 16)))
            i += 3
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def decode_values(text, limit=MAX_DECODE):
    """Decode a sample list: comma-separated unsigned decimals, `value*count` for runs.
    Raises ValueError on bad syntax or when the list would expand past `limit` values (a
    damaged repeat count must not exhaust memory)."""
    if text == "":
        return []
    values = []
    for item in text.split(","):
        val, star, count = item.partition("*")
        if not _DEC_RE.match(val) or (star and not _DEC_RE.match(count)):
            raise ValueError("bad sample list item %r" % item)
        v = int(val)
        if v >= 1 << 64:
            raise ValueError("sample %r exceeds 64 bits" % item)
        if star:
            n = int(count)
            if n == 0:
                raise ValueError("zero repeat count in %r" % item)
            if len(values) + n > limit:
                raise ValueError("run %r expands past %d values" % (item[:40], limit))
            values.extend([v] * n)
        else:
            values.append(v)
    return values


def encode_values(values, min_run=2):
    """Encode samples as the firmware does, compressing runs of at least `min_run` equal values."""
    parts = []
    i = 0
    while i < len(values):
        j = i
        while j < len(values) and values[j] == values[i]:
            j += 1
        run = j - i
        if run >= min_run:
            parts.append("%d*%d" % (values[i], run))
        else:
            parts.extend(str(values[i]) for _ in range(run))
        i = j
    return ",".join(parts)


def encode_record(seq, rtype, fields=(), version=PROTO_VERSION):
    """Build one record line (without line ending). `fields` is a dict or (key, value) pairs."""
    items = fields.items() if isinstance(fields, dict) else fields
    body = "@BM %d %d %s" % (version, seq, rtype)
    for key, value in items:
        body += " %s=%s" % (key, escape(value))
    return "%s |%s" % (body, crc_hex(body))


def split_candidates(line):
    """Split one log line into record candidates: each starts at a `@BM ` tag.

    A value can never contain `@BM ` (spaces are escaped), so every tag starts a new candidate;
    this also recovers a record that follows a record whose line ending was lost.
    Returns the candidate strings (noise before the first tag is dropped).
    """
    parts = line.split(TAG)
    return [TAG + p for p in parts[1:]]


def parse_candidate(text):
    """Check and split one candidate. Returns a dict with version, seq, type, fields (unescaped,
    in order), body (the CRC-covered text), trailing (bytes after the CRC) and repeated (keys
    that occurred more than once; later values are stored as "<key>.2", ...).

    Raises RecordError(kind=...) with kind `corrupt` (no CRC or CRC mismatch), `version` (valid
    CRC, unknown protocol version; the error carries .version/.seq/.type) or `malformed` (valid
    CRC but the body breaks the grammar).
    """
    text = text.rstrip("\r\n")
    m = _FRAME_RE.match(text)
    if not m:
        raise RecordError("corrupt", "no CRC trailer (line cut off or damaged)")
    body, crc = m.group(1), m.group(2)
    if crc_hex(body) != crc:
        raise RecordError("corrupt", "CRC mismatch (got %s, computed %s)" % (crc, crc_hex(body)))
    trailing = text[m.end():].strip()
    tokens = body.split(" ")
    if len(tokens) < 4:
        raise RecordError("malformed", "header needs version, seq and type")
    ver, seq, rtype = tokens[1], tokens[2], tokens[3]
    if not _DEC_RE.match(ver):
        raise RecordError("malformed", "bad version %r" % ver)
    if not _DEC_RE.match(seq):
        raise RecordError("malformed", "bad sequence number %r" % seq)
    if int(ver) != PROTO_VERSION:
        err = RecordError("version", "unknown protocol version %s" % ver)
        err.version, err.seq, err.type = int(ver), int(seq), rtype
        raise err
    if not _TYPE_RE.match(rtype):
        raise RecordError("malformed", "bad record type %r" % rtype)
    fields, repeated = {}, []
    for tok in tokens[4:]:
        key, eq, value = tok.partition("=")
        if not eq or not _KEY_RE.match(key):
            raise RecordError("malformed", "bad field %r" % tok[:40])
        if key in fields:
            # Not allowed by the grammar, but the record is intact (CRC): keep the later value
            # under "<key>.2", "<key>.3", ... rather than throwing the record away.
            n = 2
            while "%s.%d" % (key, n) in fields:
                n += 1
            repeated.append(key)
            key = "%s.%d" % (key, n)
        try:
            fields[key] = unescape(value)
        except ValueError as exc:
            raise RecordError("malformed", "field %r: %s" % (key, exc)) from None
    return {"version": int(ver), "seq": int(seq), "type": rtype, "fields": fields,
            "body": body, "trailing": trailing, "repeated": repeated}
