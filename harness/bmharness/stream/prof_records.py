"""The sampling profiler's records (docs/protocol.md, "prof, prof_data: sampling profiler"): gather the
`prof` and `prof_data` records of a boot per profiled probe and CPU, and validate them.

`collect(records, problem)` takes the records of one boot (parse.py's dicts: type, fields, seq,
line) in sequence order and returns one entry per profiled probe: its `begin` fields, the decoded
(cpu, pc, event, count) entries, the per-CPU `end` fields and the `cost` record. Every damage
found is reported through `problem(kind, message, line, seq)` (parse.py's `_Problems.add`) and
the data goes on: a chunk missing, a bad entry or a checksum that does not match never raises.
The checks: chunk indices contiguous from 0, each chunk's `n` equal to its entries, at most
MAX_CHUNK entries a chunk, the `crc` (CRC-32 of the `e` values of one CPU's chunks joined with
`,`), `entries` and `counted` equal to what arrived, `counted + lost = samples`, `outside` (the
samples taken outside the measured region, counted apart) a count where an end has it, an `end` for
cpu 0 and for every CPU that sent data (an AP without samples sends none), no more ends than
`cpus` (the number of CPUs that sampled). This module imports nothing from the package
(parse.py calls it, so it must not import parse).
"""

import re
import zlib

MAX_CHUNK = 24  # entries per prof_data record (protocol)
_HEX_RE = re.compile(r"(0x)?[0-9a-fA-F]{1,16}\Z")
_DEC_RE = re.compile(r"(0|[1-9][0-9]*)\Z")


def _dec(value):
    return int(value) if isinstance(value, str) and _DEC_RE.match(value) else None


def _hex(value):
    return int(value, 16) if isinstance(value, str) and _HEX_RE.match(value) else None


def crc_of(e_values):
    """CRC-32 of one CPU's `e` values in chunk order, as the firmware computes it (hex int)."""
    return zlib.crc32(",".join(e_values).encode("latin-1")) & 0xFFFFFFFF


def parse_entries(text):
    """`pc:event:count,...` -> ([(pc, event, count)], [bad items]). pc hex, the rest decimal."""
    good, bad = [], []
    if text == "":
        return good, bad
    for item in text.split(","):
        parts = item.split(":")
        pc = _hex(parts[0]) if len(parts) == 3 else None
        ev = _dec(parts[1]) if len(parts) == 3 else None
        cnt = _dec(parts[2]) if len(parts) == 3 else None
        if pc is None or ev is None or cnt is None:
            bad.append(item)
        else:
            good.append((pc, ev, cnt))
    return good, bad


class _Profile:
    """One profiled probe: begin fields, per-CPU chunks and ends, cost."""

    def __init__(self, key, probe, begin):
        self.key, self.probe, self.begin = key, probe, begin
        self.chunks, self.ends, self.cost = {}, {}, None
        self.begin_where = (begin or {}).get("_where", (None, None))

    def as_dict(self, problem):
        b = {k: v for k, v in (self.begin or {}).items() if k != "_where"}
        events = [e for e in b.get("events", "").split(",") if e] if self.begin else []
        out = {"key": self.key, "probe": self.probe, "begin": b if self.begin else None,
               "events": events, "image_base": _hex(b.get("image_base", "")),
               "image_size": _dec(b.get("image_size")),
               "build_id": (b.get("build_id") or "unknown").lower(),
               "cpus_declared": _dec(b.get("cpus")),
               "cost": self.cost, "cpus": {}, "entries": [], "ok": True, "problems": 0}
        line, seq = self.begin_where
        if out["image_size"] == 0:  # a zero size would put every pc outside the image
            out["image_size"] = None
        if self.begin and out["image_base"] is None:
            self._bad(out, problem, "prof_field", "profile of %s: image_base=%r is not a hex "
                      "address (pcs are shown as they are)" % (self.probe, b.get("image_base")),
                      line, seq)
        for cpu in sorted(set(self.chunks) | set(self.ends)):
            out["cpus"][cpu] = self._cpu(out, cpu, problem)
        if self.begin and 0 not in self.ends:  # the boot CPU's end comes even with no samples
            self._bad(out, problem, "prof_end_missing", "profile of %s: no `prof kind=end` for "
                      "cpu 0" % self.probe, line, seq)
        n = out["cpus_declared"]
        if n is not None and len(self.ends) > n:
            self._bad(out, problem, "prof_field", "profile of %s: begin says cpus=%d, %d CPUs "
                      "sent an end" % (self.probe, n, len(self.ends)), line, seq)
        return out

    def _bad(self, out, problem, kind, message, line=None, seq=None):
        out["ok"] = False
        out["problems"] += 1
        problem(kind, message, line, seq)

    def _cpu(self, out, cpu, problem):
        name = "profile of %s, cpu %d" % (self.probe, cpu)
        chunks, end = self.chunks.get(cpu, []), self.ends.get(cpu)
        e_values, received, expect_i = [], 0, 0
        counted = {}
        for ch in chunks:
            f, line, seq = ch["fields"], ch["line"], ch["seq"]
            i, n, text = _dec(f.get("i")), _dec(f.get("n")), f.get("e", "")
            e_values.append(text)
            entries, bad = parse_entries(text)
            if i is None:
                self._bad(out, problem, "prof_chunk", "%s: prof_data without a usable i=%r"
                          % (name, f.get("i")), line, seq)
            elif i != expect_i:
                what = ("entries %d-%d missing" % (expect_i, i - 1) if i > expect_i else
                        "chunk at i=%d overlaps (expected i=%d)" % (i, expect_i))
                self._bad(out, problem, "prof_missing" if i > expect_i else "prof_chunk",
                          "%s: %s" % (name, what), line, seq)
            if n != len(entries) + len(bad):
                self._bad(out, problem, "prof_chunk", "%s: chunk i=%s declares n=%s but carries "
                          "%d entries" % (name, f.get("i"), f.get("n"), len(entries) + len(bad)),
                          line, seq)
            if len(entries) + len(bad) > MAX_CHUNK:
                self._bad(out, problem, "prof_chunk", "%s: chunk i=%s carries %d entries (at most "
                          "%d)" % (name, f.get("i"), len(entries) + len(bad), MAX_CHUNK), line, seq)
            if bad:
                self._bad(out, problem, "prof_entry", "%s: %d unusable entr%s, e.g. %r" % (
                    name, len(bad), "y" if len(bad) == 1 else "ies", bad[0][:40]), line, seq)
            for pc, ev, cnt in entries:
                if self.begin and ev >= len(out["events"]):
                    self._bad(out, problem, "prof_entry", "%s: entry %x:%d:%d names event %d; "
                              "begin declares %d event(s) (counted, event shown as #%d)" % (
                                  name, pc, ev, cnt, ev, len(out["events"]), ev), line, seq)
                out["entries"].append((cpu, pc, ev, cnt))
                counted[ev] = counted.get(ev, 0) + cnt
            received += len(entries) + len(bad)
            expect_i = (i if i is not None else expect_i) + len(entries) + len(bad)
        res = {"cpu": cpu, "chunks": len(chunks), "entries_received": received,
               "counted_received": sum(counted.values()), "counted_by_event": counted,
               "end": None, "crc_ok": None, "balance_ok": None}
        if end is None:
            self._bad(out, problem, "prof_end_missing", "%s: no `prof kind=end` record (%d "
                      "chunk(s) received; totals and checksum cannot be checked)"
                      % (name, len(chunks)), *(chunks[-1]["line"], chunks[-1]["seq"])
                      if chunks else self.begin_where)
            return res
        f, line, seq = end["fields"], end["line"], end["seq"]
        res["end"] = {k: _dec(f.get(k)) if _dec(f.get(k)) is not None else f.get(k)
                      for k in f if k not in ("kind", "probe", "cpu")}
        entries, cnt_decl = _dec(f.get("entries")), _dec(f.get("counted"))
        samples, lost, crc = _dec(f.get("samples")), _dec(f.get("lost")), _hex(f.get("crc", ""))
        if entries != received:
            self._bad(out, problem, "prof_entries", "%s: end says entries=%s, %d received"
                      % (name, f.get("entries"), received), line, seq)
        if cnt_decl != res["counted_received"]:
            self._bad(out, problem, "prof_counted", "%s: end says counted=%s, the entries "
                      "received add up to %d" % (name, f.get("counted"), res["counted_received"]),
                      line, seq)
        if crc is None:
            self._bad(out, problem, "prof_crc", "%s: end has no usable crc=%r"
                      % (name, f.get("crc")), line, seq)
        else:
            got = crc_of(e_values)
            res["crc_ok"] = got == crc
            if got != crc:
                self._bad(out, problem, "prof_crc", "%s: crc=%08x declared, the prof_data "
                          "received give %08x" % (name, crc, got), line, seq)
        if None in (samples, lost, cnt_decl) or cnt_decl + lost != samples:
            res["balance_ok"] = False
            self._bad(out, problem, "prof_balance", "%s: counted + lost != samples (%s + %s vs "
                      "%s)" % (name, f.get("counted"), f.get("lost"), f.get("samples")),
                      line, seq)
        else:
            res["balance_ok"] = True
        if "outside" in f and _dec(f.get("outside")) is None:
            self._bad(out, problem, "prof_field", "%s: outside=%r is not a count of samples"
                      % (name, f.get("outside")), line, seq)
        return res


def collect(records, problem=None):
    """The profiles of one boot's records, in order of their `prof kind=begin`. Returns a list of
    dicts (see _Profile.as_dict): key (the probe, with `#2`... when it was profiled again),
    probe, begin, events, image_base, image_size, build_id, cpus_declared (the begin's count),
    cost, cpus
    {cpu: {chunks, entries_received, counted_received, counted_by_event, end, crc_ok,
    balance_ok}}, entries [(cpu, pc, event, count)], ok, problems."""
    problem = problem or (lambda *a, **k: None)
    profiles, current, orphans = [], {}, {}

    def target(probe, line, seq, what):
        prof = current.get(probe)
        if prof is None:
            prof = orphans.get(probe)
            if prof is None:
                problem("prof_begin_missing", "%s for probe %s without a `prof kind=begin` "
                        "before it (kept, but pcs cannot be mapped)" % (what, probe), line, seq)
                prof = orphans[probe] = _Profile(probe + " (no begin)", probe, None)
                profiles.append(prof)
        return prof

    for r in records:
        t, f = r["type"], r["fields"]
        if t not in ("prof", "prof_data"):
            continue
        probe, line, seq = f.get("probe", "?"), r.get("line"), r.get("seq")
        kind = f.get("kind") if t == "prof" else "data"
        if kind == "begin":
            n = sum(1 for p in profiles if p.probe == probe and p.begin is not None)
            prof = _Profile(probe if n == 0 else "%s#%d" % (probe, n + 1), probe,
                            dict(f, _where=(line, seq)))
            profiles.append(prof)
            current[probe] = prof
            continue
        if kind == "cost":
            target(probe, line, seq, "prof kind=cost").cost = {
                k: _dec(v) if _dec(v) is not None else v for k, v in f.items()
                if k not in ("kind", "probe")}
            continue
        cpu = _dec(f.get("cpu"))
        if kind not in ("data", "end") or cpu is None:
            problem("prof_record", "prof record of kind=%r cpu=%r not understood (ignored)"
                    % (f.get("kind"), f.get("cpu")), line, seq)
            continue
        prof = target(probe, line, seq, "prof_data" if kind == "data" else "prof kind=end")
        if kind == "data":
            prof.chunks.setdefault(cpu, []).append(r)
        elif cpu in prof.ends:
            problem("prof_record", "profile of %s, cpu %d: a second `prof kind=end` (the first "
                    "kept)" % (probe, cpu), line, seq)
        else:
            prof.ends[cpu] = r
    return [p.as_dict(problem) for p in profiles]


def validate(records, problem):
    """Validation only, for parse.py: every problem of the boot's profiler records reported."""
    collect(records, problem)
