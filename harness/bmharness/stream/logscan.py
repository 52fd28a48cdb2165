"""Read a serial log as a stream and split it into boots, in bounded memory (parse.py's front end).

`scan(fh)` reads the log in chunks: it detects a UTF-16 capture (a byte-order mark, or NUL bytes
in every other position) and decodes it; it cuts lines, and hands an over-long line on in pieces
cut at `@BM ` tags; it checks every record candidate. Valid records are kept (they are the data);
damage is only counted per kind, with the first FIRST_N examples, so a log of nothing but damage
costs a few counters whatever its size.

Boot boundaries come from the whole evidence, not from one line (docs/protocol.md, "What the
harness checks"):
- a `begin` whose body differs from the current boot's (other build or settings), or that follows
  records without one, starts a new boot at once;
- a `begin` identical to the current boot's, or any record whose seq goes back below the highest
  seen, opens a *pending* stretch: if the stream then continues past the highest seq, the stretch
  was repeated lines (duplicates, kept in the boot); if records in it conflict with the boot's
  (same seq, another body) the sequence has restarted -- a new boot, begun at the start of the
  stretch, also when its `begin` was lost.
"""

import codecs
import json
import tempfile

from . import protocol

CHUNK = 1 << 20          # bytes read at a time
MAX_PENDING = 1 << 16    # longest partial line held; beyond it the line is handed on in pieces
HEAD_KEEP = 4 * protocol.MAX_LINE  # of a piece with no tag in it: enough for any record
FIRST_N = 20             # examples kept per kind of damage (and per kind of problem)
FILE_MAX = 100000        # problems.jsonl lists this many of each kind (the counts stay exact)
ENC_SNIFF = 4096         # bytes looked at for the encoding
NUL_SHARE = 0.3          # share of NULs in odd (even) positions that says UTF-16-LE (-BE)
RESTART_RECORDS = 3      # a pending stretch of this many records with a conflict is a restart
PENDING_MAX = 64         # a longer pending stretch without a conflict is decided: duplicates


def detect_encoding(head):
    """(codec, how) for the start of a log: UTF-16 by its BOM or by its NUL pattern (ASCII text
    in UTF-16 has a NUL in every other byte), else latin-1 (every byte a character)."""
    if head.startswith(codecs.BOM_UTF16_LE):
        return "utf-16-le", "UTF-16-LE byte-order mark"
    if head.startswith(codecs.BOM_UTF16_BE):
        return "utf-16-be", "UTF-16-BE byte-order mark"
    sample = head[:ENC_SNIFF]
    even, odd = sample[0::2], sample[1::2]
    if len(odd) >= 16:
        nul_even, nul_odd = even.count(0) / len(even), odd.count(0) / len(odd)
        if nul_odd >= NUL_SHARE and nul_even < NUL_SHARE / 6:
            return "utf-16-le", "NUL in %.0f%% of odd bytes" % (100 * nul_odd)
        if nul_even >= NUL_SHARE and nul_odd < NUL_SHARE / 6:
            return "utf-16-be", "NUL in %.0f%% of even bytes" % (100 * nul_even)
    return "latin-1", None


class Damage:
    """Counts per kind and the first FIRST_N examples of each; the further ones go to a temporary
    file (`spill`, JSON lines with their kind, up to FILE_MAX of a kind), so problems.jsonl can
    list them while memory stays bounded."""

    def __init__(self):
        self.counts, self.first = {}, {}
        self.spill, self.spilled_n = None, {}

    def add(self, kind, item):
        n = self.counts.get(kind, 0)
        self.counts[kind] = n + 1
        if n < FIRST_N:
            self.first.setdefault(kind, []).append(item)
        else:
            self.spill_item(kind, item)

    def spill_full(self, kind):
        return self.spilled_n.get(kind, 0) >= FILE_MAX - FIRST_N

    def spill_item(self, kind, item):
        if self.spill_full(kind):
            return
        self.spilled_n[kind] = self.spilled_n.get(kind, 0) + 1
        if self.spill is None:
            self.spill = tempfile.TemporaryFile("w+", encoding="utf-8")
        self.spill.write(json.dumps(dict(item, kind=kind)) + "\n")

    def spilled(self):
        """The items beyond the first FIRST_N of each kind, in log order ({kind, line, ...})."""
        if self.spill is None:
            return
        self.spill.seek(0)
        for line in self.spill:
            yield json.loads(line)

    def total(self):
        return sum(self.counts.values())


class _Boot:
    def __init__(self, index, how, line):
        self.index, self.how = index, how
        self.records, self.damage = [], Damage()
        self.by_seq = {}  # seq -> body of the first record with it (evidence for the splitter)
        self.max_seq, self.begin_body = -1, None
        self.first_line = self.last_line = line

    def take(self, rec):
        self.records.append(rec)
        self.by_seq.setdefault(rec["seq"], rec["body"])
        self.max_seq = max(self.max_seq, rec["seq"])
        if rec["type"] == "begin" and rec["seq"] == 0 and self.begin_body is None:
            self.begin_body = rec["body"]
        self.last_line = rec["line"]

    def describe(self):
        ends = [r for r in self.records if r["type"] == "end"]
        return {"index": self.index, "first_line": self.first_line, "last_line": self.last_line,
                "records": len(self.records), "bad_lines": self.damage.total(),
                "started": self.how, "has_begin": self.begin_body is not None,
                "has_end": bool(ends),
                "end_status": ends[-1]["fields"].get("status") if ends else None}


class BootSplitter:
    """Assigns records and damage to boots as they stream by (see the module comment). Only the
    current boot keeps its records (the last boot is the one analysed); of the earlier ones the
    first FIRST_N descriptions are kept and the rest counted."""

    def __init__(self):
        self.cur = None
        self.earlier, self.n_boots = [], 0
        self.pending = []        # records of an undecided stretch, in log order
        self.pending_conflicts = 0
        self.pending_why = None

    def _new(self, how, line):
        if self.cur is not None and len(self.earlier) < FIRST_N:
            self.earlier.append(self.cur.describe())
        self.cur = _Boot(self.n_boots, how, line)
        self.n_boots += 1

    def damage(self, kind, item):
        if self.cur is None:
            self._new("log starts here (no begin record before this line)", item["line"])
        self.cur.damage.add(kind, item)

    def wants_examples(self, kind):
        return self.cur is None or len(self.cur.damage.first.get(kind, ())) < FIRST_N

    def damage_many(self, kind, n, line, block, reason):
        """n damaged candidates of one kind in `block` (lines from `line` on), past the examples:
        counted, and spilled one per candidate with its line."""
        if self.cur is None:
            self._new("log starts here (no begin record before this line)", line)
        d = self.cur.damage
        d.counts[kind] = d.counts.get(kind, 0) + n
        for k, text in enumerate(block.split("\n") if not d.spill_full(kind) else ()):
            for _ in range(text.count(protocol.TAG)):
                d.spill_item(kind, {"line": line + k, "reason": reason,
                                    "text": text[:160].rstrip("\r")})

    def _resolve(self, restart):
        recs, why = self.pending, self.pending_why
        self.pending, self.pending_conflicts, self.pending_why = [], 0, None
        if restart:
            self._new(why, recs[0]["line"])
        for r in recs:
            self.cur.take(r)

    def record(self, rec):
        seq, line = rec["seq"], rec["line"]
        is_begin = rec["type"] == "begin" and seq == 0
        if self.cur is None:
            self._new("begin record" if is_begin else
                      "log starts here (no begin record before this line)", line)
        cur = self.cur
        if is_begin and cur.begin_body is not None and rec["body"] != cur.begin_body:
            if self.pending:
                self._resolve(self.pending_conflicts > 0)
            self._new("begin record that differs from the previous boot's (another build or "
                      "settings)", line)
            self.cur.take(rec)
            return
        if is_begin and cur.begin_body is None and cur.max_seq > 0:
            if self.pending:
                self._resolve(self.pending_conflicts > 0)
            self._new("begin record after records of a boot whose begin was not seen", line)
            self.cur.take(rec)
            return
        if self.pending:
            if seq > cur.max_seq:  # the stream carries on past the old boot: it was repeats
                self._resolve(False)
                cur.take(rec)
                return
            self.pending.append(rec)
            old = cur.by_seq.get(seq)
            if old is not None and old != rec["body"]:
                self.pending_conflicts += 1
            if self.pending_conflicts and len(self.pending) >= RESTART_RECORDS:
                self._resolve(True)
            elif len(self.pending) >= PENDING_MAX:
                self._resolve(False)
            return
        if cur.max_seq >= 0 and seq <= cur.max_seq and (is_begin or seq in cur.by_seq):
            # Back to a seq already seen: a repeat or a restart; the following records decide.
            self.pending = [rec]
            self.pending_conflicts = int(cur.by_seq.get(seq) != rec["body"])
            self.pending_why = ("repeated begin record, then the sequence restarted with "
                                "records that differ from the previous boot's" if is_begin else
                                "sequence restarted at seq %d with records that differ from the "
                                "previous boot's (its begin record lost)" % seq)
            return
        cur.take(rec)

    def finish(self):
        """Decide what is still pending (a restart needs a conflict and more than one record).
        Returns (the last boot or None, descriptions of up to FIRST_N earlier boots, number of
        boots)."""
        if self.pending:
            self._resolve(self.pending_conflicts > 0 and len(self.pending) > 1)
        return self.cur, self.earlier, self.n_boots


def _text_chunks(fh, info):
    head = fh.read(CHUNK)
    codec, how = detect_encoding(head)
    info["encoding"], info["encoding_how"] = codec, how
    info["nul_share"] = head[:ENC_SNIFF].count(0) / max(1, len(head[:ENC_SNIFF]))
    dec = codecs.getincrementaldecoder(codec)(errors="replace")
    data = head
    while data:
        info["bytes"] += len(data)
        text = dec.decode(data)
        if codec != "latin-1":  # records are ASCII; keep every character one latin-1 byte
            text = text.encode("latin-1", "replace").decode("latin-1")
        yield text
        data = fh.read(CHUNK)
    tail = dec.decode(b"", final=True)
    if tail:
        yield tail.encode("latin-1", "replace").decode("latin-1")


def _pieces(fh, info):
    """(first line number, text, ends_log) blocks: whole lines joined by "\n" (ends_log False),
    a piece of an over-long line (None: cut before a tag, or its head only; one line number) or
    the log's last line when it has no line ending (True)."""
    pending, lineno = "", 1
    for text in _text_chunks(fh, info):
        buf = pending + text
        cut = buf.rfind("\n")
        if cut >= 0:
            block, pending = buf[:cut], buf[cut + 1:]
            yield lineno, block, False
            lineno += block.count("\n") + 1
        else:
            pending = buf
        if len(pending) > MAX_PENDING:
            cut = pending.rfind(protocol.TAG)
            if cut > 0:
                yield lineno, pending[:cut], None
                pending = pending[cut:]
            if len(pending) > MAX_PENDING:  # one candidate without end: its head decides it
                pending = pending[:HEAD_KEEP]
    info["lines"] = lineno - 1 + (1 if pending else 0)
    if pending:
        yield lineno, pending, True


def scan(fh):
    """Read the whole log from a binary file object. Returns ((last boot, earlier boots'
    descriptions, number of boots), info): the last boot has its records in log order and its
    damage counted; info {bytes, lines, candidates, valid_records, encoding, encoding_how,
    nul_share}."""
    info = {"bytes": 0, "lines": 0, "candidates": 0, "valid_records": 0}
    split = BootSplitter()
    tag, nocrc = protocol.TAG, "no CRC trailer (line cut off or damaged)"
    for first, block, ends_log in _pieces(fh, info):
        if tag not in block:
            continue
        if " |" not in block and ends_log is not True and not split.wants_examples("corrupt"):
            # Nothing in the block can be a record: count its tags (a log of damage stays fast).
            n = block.count(tag)
            info["candidates"] += n
            split.damage_many("corrupt", n, first, block, nocrc)
            continue
        lines = [block] if ends_log is not False else block.split("\n")
        for k, line in enumerate(lines):
            if tag not in line:
                continue
            lineno = first + k
            cands = line.split(tag)
            info["candidates"] += len(cands) - 1
            for j in range(1, len(cands)):
                cand = cands[j]
                if " |" not in cand:  # bare or cut-off tag
                    last = ends_log and j == len(cands) - 1
                    split.damage("corrupt", {"line": lineno, "reason": "cut off at the end of "
                                             "the log" if last else nocrc,
                                             "text": (tag + cand)[:160].rstrip("\r\n")})
                    continue
                try:
                    rec = protocol.parse_candidate(tag + cand)
                except protocol.RecordError as exc:
                    item = {"line": lineno, "reason": str(exc),
                            "text": (tag + cand)[:160].rstrip("\r\n")}
                    if exc.kind == "version":
                        item.update(version=exc.version, seq=exc.seq, type=exc.type)
                    split.damage(exc.kind, item)
                    continue
                rec["line"] = lineno
                info["valid_records"] += 1
                split.record(rec)
    return split.finish(), info
