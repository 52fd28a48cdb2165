"""The record stream of a run log whose header blocks both fail their checks (docs/saving.md,
"Power cuts"): the stream starts with a `begin` record where a header leaves the data (one or
two blocks of 512..4096 bytes in), and every record line carries its own CRC-32
(docs/protocol.md), so the intact prefix is found without the header: from the begin record, each
line up to the first that does not check (a torn block, or the zeros after the stream)."""

from .. import protocol

BLOCK_SIZES = (512, 1024, 2048, 4096)          # the device block sizes the firmware writes
OFFSETS = tuple(sorted({k * b for b in BLOCK_SIZES for k in (1, 2)}))  # format 1: 1 block, 2: 2
OFFSETS_TEXT = "offsets %s" % ", ".join(str(o) for o in OFFSETS)
CHUNK = 1 << 20
LINE_END = b"\r\n"   # the firmware's line end (the stick holds exactly the serial bytes)


def _intact(line):
    """The record on one line (without its line end) when it is whole and its CRC checks."""
    if not line.startswith(protocol.TAG.encode()) or len(line) > protocol.MAX_LINE:
        return None
    try:
        return protocol.parse_candidate(line.decode("latin-1"))
    except protocol.RecordError as exc:
        # a CRC that checks proves the line intact even when the parser refuses it later
        return {"type": None} if exc.kind != "corrupt" else None


def _start(read):
    """The offset of the begin record the stream starts with, or None."""
    for off in OFFSETS:
        line = read(off, protocol.MAX_LINE + len(LINE_END)).split(LINE_END, 1)
        if len(line) == 2:
            rec = _intact(line[0])
            if rec and rec["type"] == "begin":
                return off
    return None


def scan_stream(read, file_size):
    """{data_offset, valid, ...} of the intact records (a header dict as runlog.read_header
    returns, source='scan', state 'open', nonce and block unknown), or None when no begin record
    starts where the data would."""
    start = _start(read)
    if start is None:
        return None
    end = pos = start  # after the last intact line; the next byte to read
    carry = b""        # the bytes from end to pos: no complete line yet
    while pos < file_size:
        data = read(pos, min(CHUNK, file_size - pos))
        if not data:
            break
        pos += len(data)
        lines = (carry + data).split(LINE_END)
        carry = lines.pop()
        for line in lines:
            if _intact(line) is None:
                return _found(start, end - start, file_size)
            end += len(line) + len(LINE_END)
        if carry[:1] == b"\0" or len(carry) > protocol.MAX_LINE:
            break  # the zeros after the stream, or no line end where one must be
    return _found(start, end - start, file_size)


def _found(start, valid, file_size):
    return {"nonce": None, "block": None, "data_offset": start, "capacity": file_size - start,
            "valid": valid, "state": "open", "version": None, "seq": None, "source": "scan",
            "notes": []}
