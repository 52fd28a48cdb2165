"""Record-level codec for the baremetric serial stream (docs/protocol.md, versions 1 and 2).

Everything here works on single lines: finding `@BM ` records in noisy text, checking their CRC,
splitting fields, undoing `%XX` escapes and decoding sample lists. The two versions differ only in
how a `samples`/`ctr` value list (`v=`) is written: version 1 in decimal, version 2 (what the
firmware writes now) as zigzag deltas in self-delimiting base-34/52 digits. The encoder half
(escape, encode_record, encode_values) mirrors lib/record.c and lib/emit.c so tests can
synthesise valid streams of either version.
Validation across records (sequence, boots, sets) lives in parse.py.
"""

import re
import zlib

PROTO_VERSION = 2  # what the firmware writes (lib/record.h REC_PROTO_VERSION)
PROTO_VERSIONS = (1, 2)  # what the harness reads
TAG = "@BM "
MAX_LINE = 1024
# Values per samples chunk, before run-length compression, by protocol version.
CHUNK_MAX = {1: 96, 2: 1024}
MAX_DECODE = 1 << 16  # sanity bound for one decoded list (a chunk holds at most 1024)

# Version 2 digits (lib/emit.c): continuation digits, least significant first, then one final.
DIGITS_MORE = "!#$&()+,-./0123456789:;<=>?[]^_{}~"
DIGITS_FINAL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
RUN_MARK = "*"
RUN_MIN_REPEATS = 3  # the firmware writes `*k` from 3 more copies on (any k >= 1 decodes)
_MORE = {c: k for k, c in enumerate(DIGITS_MORE)}
_FINAL = {c: k for k, c in enumerate(DIGITS_FINAL)}
_U64 = (1 << 64) - 1

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


def decode_values(text, limit=MAX_DECODE, version=1):
    """Decode a sample list of protocol `version`. Version 1: comma-separated unsigned decimals,
    `value*count` for runs; version 2: see decode_values_v2. Raises ValueError on bad syntax or
    when the list would expand past `limit` values (a damaged repeat count must not exhaust
    memory)."""
    if version == 2:
        return decode_values_v2(text, limit)
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


def _read_number(text, pos):
    """One version 2 number starting at text[pos]: (value, position after it)."""
    more = []
    while pos < len(text) and text[pos] in _MORE:
        more.append(_MORE[text[pos]])
        pos += 1
    if pos >= len(text) or text[pos] not in _FINAL:
        what = "ends inside a number" if pos >= len(text) else "bad digit %r" % text[pos]
        raise ValueError("sample list %s at offset %d" % (what, pos))
    x = _FINAL[text[pos]]
    for d in reversed(more):
        x = len(DIGITS_FINAL) + d + len(DIGITS_MORE) * x
    if x > _U64:
        raise ValueError("number at offset %d exceeds 64 bits" % pos)
    return x, pos + 1


def decode_values_v2(text, limit=MAX_DECODE):
    """A version 2 list: numbers, each the zigzag-folded difference (modulo 2^64) from the value
    before it (0 before the first of the record), a number after `*` the count of further copies
    of the value before it."""
    values, prev, pos = [], 0, 0
    while pos < len(text):
        if text[pos] == RUN_MARK:
            if not values:
                raise ValueError("sample list starts with a run mark")
            k, pos = _read_number(text, pos + 1)
            if k == 0:
                raise ValueError("zero repeat count at offset %d" % pos)
            if len(values) + k > limit:
                raise ValueError("run of %d expands past %d values" % (k, limit))
            values.extend([prev] * k)
            continue
        z, pos = _read_number(text, pos)
        prev = (prev + ((z >> 1) ^ -(z & 1))) & _U64
        values.append(prev)
        if len(values) > limit:
            raise ValueError("list expands past %d values" % limit)
    return values


def encode_number(x):
    """One version 2 number (lib/emit.c emit_encode_number)."""
    out = []
    while x >= len(DIGITS_FINAL):
        x -= len(DIGITS_FINAL)
        out.append(DIGITS_MORE[x % len(DIGITS_MORE)])
        x //= len(DIGITS_MORE)
    out.append(DIGITS_FINAL[x])
    return "".join(out)


def encode_values_v2(values, min_repeats=RUN_MIN_REPEATS):
    """Encode samples as the version 2 firmware does: zigzag deltas, `*k` for k >= min_repeats
    further copies of a value."""
    out, prev, i = [], 0, 0
    while i < len(values):
        j = i
        while j < len(values) and values[j] == values[i]:
            j += 1
        d = (values[i] - prev) & _U64
        out.append(encode_number(((d << 1) ^ -(d >> 63)) & _U64))
        if j - i - 1 >= min_repeats:
            out.append(RUN_MARK + encode_number(j - i - 1))
        else:
            j = i + 1
        prev, i = values[i], j
    return "".join(out)


def encode_values(values, min_run=2, version=1):
    """Encode samples as the firmware of `version` does; version 1 compresses runs of at least
    `min_run` equal values."""
    if version == 2:
        return encode_values_v2(values)
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


def encode_record(seq, rtype, fields=(), version=1):
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
    if int(ver) not in PROTO_VERSIONS:
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
