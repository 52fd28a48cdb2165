"""Validate and salvage a baremetric serial log, and write the parse outputs.

`analyse(data)` (or `analyse_file(fh)`) streams the log through logscan.py, which finds the
records, splits the stream into boots and counts the damage; it checks the last boot (sequence
gaps, duplicates, conflicts, truncation, end record, per-set sample counts: sets.py puts each
set's chunks together, prof_records.py checks the profiler's records, stats/ describes each set)
and collects everything valid. What is stored and printed about damage is capped (counts per kind, the first
logscan.FIRST_N examples). `write_outputs` writes records.jsonl, raw/<set>.txt files and
summary.json (records.jsonl: numbers as numbers, sample values decoded: `record_json`);
`parse_log(path, out_dir)` does both. The rules are those of docs/protocol.md,
"What the harness checks".
"""

import datetime
import io
import json
import os
import re
import shutil
import tempfile

from . import logscan, prof_records, protocol, registry
from .. import stats
# the one raw-file reader and wrap rule (stats/samples.py), also reached as parse.read_raw
from ..stats.samples import WRAP_LIMIT, raw_per_op, read_raw, usable  # noqa: F401
from .sets import assemble_counters, assemble_set, fmt_ranges, int_field

# plat kinds that occur once per boot; the others (cache, memdev, tsc_cal, and unknown new kinds)
# are kept as lists so the summary's shape does not depend on the machine.
SINGLE_KINDS = {"firmware", "cpu", "features", "memmap", "dram_peak", "acpi", "acpi_pm", "hpet",
                "serial", "pmu", "tsc", "ebs", "alloc", "simd", "os", "smp", "apic", "ioapic", "pic",
                "hpet_irq", "system", "board", "el2"}
LIST_KINDS = {"cache", "memdev", "tsc_cal"}
PROBE_STD = ("name", "set", "unit", "n", "iters", "overhead", "tsc_hz")
# Counter declaration fields of a probe record: kept under the set's "counters", not its params.
CTR_KEYS = ("ctr_set", "ctr_events", "ctr_passes", "ctr_refused")
# The record types the firmware emits (registry.json, from the C emitters); prof*: records.jsonl
# only, checked by prof_records.
KNOWN_TYPES = registry.RECORD_TYPES
# Free-text fields stay strings even when they look like numbers (a part number "0123" etc.).
STRING_KEYS = {"text", "reason", "brand", "part", "manufacturer", "locator", "bank", "build",
               "hv_sig", "vendor", "fw_vendor", "tables", "basis", "name", "probes", "uefi",
               "smbios", "rev", "fw_rev", "ucode", "events", "event", "ctr_set", "ctr_events",
               "ctr_refused", "pmu_events", "usb_port", "file", "product", "stage", "build_id",
               "e"}
# Records whose `v` carries encoded values (docs/protocol.md, "Sample values"): records.jsonl
# holds them decoded, one list of ints per record.
VALUE_RECORDS = ("samples", "ctr")
_INT_RE = re.compile(r"-?(0|[1-9][0-9]*)\Z")
_FLOAT_RE = re.compile(r"-?[0-9]+\.[0-9]+\Z")


def typed(fields):
    """Field values as JSON-friendly types: decimal integers and fixed-point numbers become
    numbers; 0x-hex (addresses, registers) and text stay strings."""
    out = {}
    for key, value in fields.items():
        if key not in STRING_KEYS and _INT_RE.match(value):
            out[key] = int(value)
        elif key not in STRING_KEYS and _FLOAT_RE.match(value):
            out[key] = float(value)
        else:
            out[key] = value
    return out


def record_json(r):
    """One line of records.jsonl: the record's numbers as numbers (typed) and, in samples and ctr
    records, `v` decoded into the list of its values; a `v` that does not decode keeps its text
    (the record is damaged: parse reported it)."""
    fields = typed(r["fields"])
    if r["type"] in VALUE_RECORDS and "v" in r["fields"]:
        try:
            fields["v"] = protocol.decode_values(r["fields"]["v"], version=r.get("version", 1))
        except ValueError:
            fields["v"] = r["fields"]["v"]
    return {"seq": r["seq"], "type": r["type"], "line": r["line"], "fields": fields}


class _Problems:
    """Problems, each {kind, line, seq, message}: every one counted per kind and written to a
    temporary file (`spill`: problems.jsonl), the first logscan.FIRST_N of each kind kept (a
    damaged log must not make the summary huge)."""

    def __init__(self, spill=True):
        self.items, self.counts = [], {}
        self.spill = tempfile.TemporaryFile("w+", encoding="utf-8") if spill else None

    def add(self, kind, message, line=None, seq=None):
        n = self.counts.get(kind, 0)
        self.counts[kind] = n + 1
        item = {"kind": kind, "line": line, "seq": seq, "message": message}
        if n < logscan.FIRST_N:
            self.items.append(item)
        if self.spill is not None and n < logscan.FILE_MAX:
            self.spill.write(json.dumps(item) + "\n")

    def more(self, kind, n):
        """n further problems of a kind that are counted, not described (past the file's cap)."""
        if n > 0:
            self.counts[kind] = self.counts.get(kind, 0) + n

    def close_file(self):
        """Say in problems.jsonl how many of a kind it does not list (beyond FILE_MAX)."""
        for kind, n in sorted(self.counts.items()):
            if self.spill is not None and n > logscan.FILE_MAX:
                self.spill.write(json.dumps({
                    "kind": kind, "line": None, "seq": None, "not_listed": n - logscan.FILE_MAX,
                    "message": "%d more %s problem(s) not listed: this file lists the first %d of "
                               "each kind; the count in summary.json is exact" % (
                                   n - logscan.FILE_MAX, kind, logscan.FILE_MAX)}) + "\n")

    def total(self):
        return sum(self.counts.values())


def _raw_name(name, pid, params):
    base = "%s-set%s" % (name, pid) + "".join("-%s=%s" % kv for kv in params.items())
    return re.sub(r"[^A-Za-z0-9._=+-]", "_", base)[:180] + ".txt"


def _damage(boot, prob):
    """The boot's damaged candidates: the first examples as problems, the rest counted."""
    corrupt, versions = [], []
    for kind, count in boot.damage.counts.items():
        first = boot.damage.first.get(kind, [])
        for e in first:
            if kind == "version":
                versions.append({"line": e["line"], "version": e["version"], "seq": e["seq"],
                                 "type": e["type"]})
                prob.add("version", "line %d: %s (record ignored)" % (e["line"], e["reason"]),
                         e["line"], e["seq"])
            else:
                corrupt.append({"line": e["line"], "reason": e["reason"], "text": e["text"]})
                prob.add(kind, "line %d: %s" % (e["line"], e["reason"]), e["line"])
    for e in boot.damage.spilled():  # the ones past the examples: problems.jsonl lists them too
        prob.add(e["kind"], "line %d: %s" % (e["line"], e["reason"]) + (
            " (record ignored)" if e["kind"] == "version" else ""), e["line"], e.get("seq"))
    for kind, count in boot.damage.counts.items():  # past the file's cap: counted only
        prob.more(kind, count - len(boot.damage.first.get(kind, []))
                  - boot.damage.spilled_n.get(kind, 0))
    return corrupt, versions


def _by_seq(boot, prob):
    """The boot's records by seq, the first of each kept; repeats of the same body are duplicates,
    of another body conflicts (problems). Returns (by_seq, dups, conflicts, n_conflicts, notes)."""
    by_seq, dups, conflicts, notes = {}, {}, [], []
    n_conflicts = n_notes = 0
    for rec in boot.records:
        if rec["repeated"]:
            n_notes += 1
            if n_notes <= logscan.FIRST_N:
                notes.append("line %d: field(s) %s repeated; later values kept as <key>.2"
                             % (rec["line"], ", ".join(rec["repeated"])))
        first = by_seq.get(rec["seq"])
        if first is None:
            by_seq[rec["seq"]] = rec
        elif first["body"] == rec["body"]:
            d = dups.setdefault(rec["seq"], {"seq": rec["seq"], "type": rec["type"],
                                             "lines": [first["line"]], "count": 0})
            d["count"] += 1
            if len(d["lines"]) <= logscan.FIRST_N:
                d["lines"].append(rec["line"])
        else:
            n_conflicts += 1
            if n_conflicts <= logscan.FIRST_N:
                conflicts.append({"seq": rec["seq"], "kept_line": first["line"],
                                  "line": rec["line"], "kept_type": first["type"],
                                  "type": rec["type"]})
            prob.add("conflict", "seq %d on line %d differs from line %d (first kept)"
                     % (rec["seq"], rec["line"], first["line"]), rec["line"], rec["seq"])
    if n_notes > logscan.FIRST_N:
        notes.append("%d more records with repeated fields" % (n_notes - logscan.FIRST_N))
    for d in dups.values():
        more = d["count"] + 1 - len(d["lines"])
        prob.add("duplicate", "seq %d (%s) repeated on lines %s%s" % (
            d["seq"], d["type"], ", ".join(map(str, d["lines"])),
            " and %d more" % more if more else ""), d["lines"][1], d["seq"])
    return by_seq, dups, conflicts, n_conflicts, notes


def _missing(by_seq, last, prob):
    """Gaps [a, b] between the seqs present up to `last` (no per-seq loop: seqs may be huge)."""
    missing, prev = [], -1
    for s in sorted(by_seq):
        if s > last:
            break
        if s > prev + 1:
            missing.append([prev + 1, s - 1])
        prev = s
    for a, b in missing:  # counted all, described up to the cap
        prob.add("missing", "records %s missing" % (a if a == b else "%d-%d" % (a, b)), seq=a)
    return missing


def _frame(by_seq, records, prob):
    """The boot's frame: begin (seq 0) and end records, gaps and records after the end.
    Returns (begin or None, end or None, missing ranges)."""
    ends = [r for r in records if r["type"] == "end"]
    end = ends[-1] if ends else None
    if len(ends) > 1:
        prob.add("multiple_end", "%d end records (seqs %s); the last is used" % (
            len(ends), ", ".join(str(r["seq"]) for r in ends)), end["line"], end["seq"])
    last = end["seq"] if end else (records[-1]["seq"] if records else -1)
    missing = _missing(by_seq, last, prob)
    after = [r for r in records if end and r["seq"] > end["seq"]]
    if after:
        prob.add("after_end", "%d record(s) after end (seq %d..)" % (len(after), after[0]["seq"]),
                 after[0]["line"], after[0]["seq"])
    begin = by_seq.get(0)
    if begin is None:
        prob.add("begin_missing", "no begin record (seq 0)")
    elif begin["type"] != "begin":
        prob.add("begin_missing", "seq 0 is a %s record, not begin" % begin["type"],
                 begin["line"], 0)
        begin = None
    elif begin["fields"].get("proto") != str(begin["version"]):
        # Versions 1 and 2 are both read (protocol.PROTO_VERSIONS); the begin record must name
        # the version its own header carries.
        prob.add("proto", "begin declares proto=%s, its header version %d" % (
            begin["fields"].get("proto"), begin["version"]), begin["line"], 0)
    if end is None:
        prob.add("truncated", "no end record: the log is truncated"
                 + (" after seq %d" % last if last >= 0 else ""))
    elif int_field(end["fields"].get("records")) != end["seq"]:
        prob.add("end_mismatch", "end says records=%s but its seq is %d" % (
            end["fields"].get("records"), end["seq"]), end["line"], end["seq"])
    return begin, end, missing


def _set_records(records, prob):
    """probe records by set id (the first declaration kept), samples and ctr chunks by set id."""
    probes, chunks, ctr_chunks = {}, {}, {}
    for r in records:
        if r["type"] == "probe":
            pid = r["fields"].get("set", "?")
            if pid in probes:
                prob.add("duplicate_set", "set %s declared again" % pid, r["line"], r["seq"])
                continue
            probes[pid] = r
        elif r["type"] == "samples":
            chunks.setdefault(r["fields"].get("set", "?"), []).append(r)
        elif r["type"] == "ctr":
            ctr_chunks.setdefault(r["fields"].get("set", "?"), []).append(r)
    return probes, chunks, ctr_chunks


def _probe_fields(pid, p, prob):
    """(typed fields, params, overhead, iters, tsc_hz) of a probe record; unusable overhead,
    iters or tsc_hz are replaced (0, 1, None) and reported as bad_field."""
    t = typed(p["fields"])
    params = {k: v for k, v in p["fields"].items() if k not in PROBE_STD and k not in CTR_KEYS}
    overhead, iters = int_field(p["fields"].get("overhead")), int_field(p["fields"].get("iters"))
    bad = []
    if overhead is None or overhead < 0:
        bad.append("overhead=%r (using 0)" % p["fields"].get("overhead"))
        overhead = 0
    if iters is None or iters < 1:
        bad.append("iters=%r (using 1)" % p["fields"].get("iters"))
        iters = 1
    tsc_hz = t.get("tsc_hz")
    if "tsc_hz" in t and not (isinstance(tsc_hz, (int, float)) and tsc_hz > 0):
        bad.append("tsc_hz=%r (not used: no times from it)" % p["fields"].get("tsc_hz"))
        tsc_hz = None
    if bad:
        prob.add("bad_field", "set %s: unusable %s" % (pid, ", ".join(bad)), p["line"],
                 p["seq"])
    return t, params, overhead, iters, tsc_hz


def _set_entry(pid, p, chunks, ctr_chunks, prob):
    """One set of the summary from its probe record and chunks; returns (entry, raw values)."""
    info, values = assemble_set(pid, p, chunks, prob)
    t, params, overhead, iters, tsc_hz = _probe_fields(pid, p, prob)
    entry = {"set": t.get("set"), "name": p["fields"].get("name", "unknown"),
             "unit": t.get("unit"), "n": t.get("n"), "iters": iters, "overhead": overhead,
             "tsc_hz": tsc_hz, "params": typed(params), "probe": t,
             "seq": p["seq"], "line": p["line"]}
    entry.update(info)
    ctr = assemble_counters(pid, p, ctr_chunks, prob)
    if ctr is not None:
        entry["counters"] = ctr
        entry["complete"] = entry["complete"] and ctr["complete"]
    entry["raw_file"] = "raw/" + _raw_name(entry["name"], pid, params)
    kept = usable(values)
    entry["wrapped"] = len(values) - len(kept)
    if entry["wrapped"]:
        prob.add("wrapped", "set %s: %d sample(s) >= 2^63 (a negative or wrapped cycle "
                 "delta), e.g. %d: excluded from the statistics" % (
                     pid, entry["wrapped"], next(v for v in values if v >= WRAP_LIMIT)),
                 p["line"], p["seq"])
    entry["stats"] = stats.set_stats(kept, overhead, iters)
    return entry, values


def _orphans(probes, chunks, ctr_chunks, prob, raw):
    """Samples and ctr chunks of sets no probe record declared (problems); the samples still go to
    raw/ (appended to raw). Returns the orphan sets."""
    orphans = []
    for pid in chunks:
        if pid not in probes:
            info, values = assemble_set(pid, None, chunks[pid], _Problems(spill=False))
            orphans.append({"set": pid, "chunks": len(chunks[pid]), "values": len(values),
                            "raw_file": "raw/" + _raw_name("unknown", pid, {})})
            prob.add("orphan_samples", "set %s: %d samples without a probe record"
                     % (pid, len(values)), chunks[pid][0]["line"], chunks[pid][0]["seq"])
            raw.append((dict(orphans[-1], name="unknown", **info), {"set": pid}, values))
    for pid in ctr_chunks:
        if pid not in probes:
            prob.add("orphan_ctr", "set %s: %d ctr records without a probe record"
                     % (pid, len(ctr_chunks[pid])), ctr_chunks[pid][0]["line"],
                     ctr_chunks[pid][0]["seq"])
    return orphans


def analyse_boot(boot, prob):
    """Validate one boot (a logscan boot: records in log order, damage counted). Returns
    (records sorted by seq, part of the summary, sets, raw sets)."""
    corrupt, versions = _damage(boot, prob)
    by_seq, dups, conflicts, n_conflicts, notes = _by_seq(boot, prob)
    records = [by_seq[s] for s in sorted(by_seq)]
    begin, end, missing = _frame(by_seq, records, prob)
    probes, chunks, ctr_chunks = _set_records(records, prob)
    sets, raw = [], []
    for pid, p in probes.items():
        entry, values = _set_entry(pid, p, chunks.get(pid, []), ctr_chunks.get(pid, []), prob)
        sets.append(entry)
        raw.append((entry, p["fields"], values))
    orphans = _orphans(probes, chunks, ctr_chunks, prob, raw)
    prof_records.validate(records, prob.add)
    cap = logscan.FIRST_N
    part = {"corrupt": corrupt, "unknown_version": versions,
            "duplicates": list(dups.values())[:cap], "conflicts": conflicts,
            "missing": missing[:cap], "orphan_sets": orphans[:cap], "begin": begin, "end": end,
            "notes": notes,
            "tallies": {"duplicates": sum(d["count"] for d in dups.values()),
                        "conflicts": n_conflicts, "missing": sum(b - a + 1 for a, b in missing),
                        "missing_ranges": len(missing), "orphan_sets": len(orphans)}}
    return records, part, sets, raw


def _collect(records):
    """Everything other than sets, grouped for the summary."""
    out = {"cfg": None, "platform": {}, "messages": [], "faults": [], "skips": [],
           "checks": [], "unknown_records": [], "notes": []}
    for r in records:
        t, f = r["type"], r["fields"]
        where = {"seq": r["seq"], "line": r["line"]}
        if t == "cfg":
            out["cfg"] = typed(f)
        elif t == "plat":
            kind = f.get("kind", "unknown")
            fact = typed({k: v for k, v in f.items() if k != "kind"})
            if kind == "tsc" and "hz" in fact and not (
                    isinstance(fact["hz"], (int, float)) and fact["hz"] > 0):
                out["notes"].append("plat kind=tsc hz=%s on line %d is not a rate: not used"
                                    % (f.get("hz"), r["line"]))
                fact["hz"] = None
            if kind in SINGLE_KINDS:
                if kind in out["platform"]:
                    out["notes"].append("plat kind=%s repeated on line %d; first kept"
                                        % (kind, r["line"]))
                else:
                    out["platform"][kind] = fact
            else:
                out["platform"].setdefault(kind, []).append(fact)
        elif t == "msg":
            out["messages"].append(dict(where, level=f.get("level"), text=f.get("text")))
        elif t == "fault":
            out["faults"].append({**typed(f), **where})
        elif t == "skip":
            out["skips"].append({**typed(f), **where})
        elif t == "check":
            out["checks"].append({**typed(f), **where})
        elif t not in KNOWN_TYPES:
            out["unknown_records"].append(dict(where, type=t, fields=f))
    return out


def analyse_file(fh, source=None):
    """Parse a log from a binary file object, streaming. Returns {"summary", "records", "raw"}."""
    (last, earlier, n_boots), info = logscan.scan(fh)
    prob = _Problems()
    boot_list = earlier + ([last.describe()] if last is not None else [])
    notes = []
    if info["encoding"] != "latin-1":
        notes.append("log decoded as %s (%s)" % (info["encoding"].upper(), info["encoding_how"]))
    if n_boots > 1:
        prob.add("multiple_boots", "%d boots in the log (lines %s%s); the last one is analysed" % (
            n_boots, ", ".join("%d-%d" % (b["first_line"], b["last_line"]) for b in boot_list),
            ", ..." if n_boots > len(boot_list) else ""), boot_list[-1]["first_line"])
    if last is not None:
        analysed = n_boots - 1
        why = ("the only boot in the log" if n_boots == 1 else
               "the last of %d boots (the most recent run); it starts on line %d: %s"
               % (n_boots, last.first_line, last.how))
        records, part, sets, raw = analyse_boot(last, prob)
    else:
        analysed, why = None, "no records"
        prob.add("no_records", "no baremetric records found in the log" + (
            "; %.0f%% of its first bytes are NUL: a capture in an encoding not recognised "
            "(UTF-16 is decoded, UTF-32 is not)?" % (100 * info["nul_share"])
            if info["nul_share"] >= logscan.NUL_SHARE / 2 else ""))
        records, sets, raw = [], [], []
        part = {"corrupt": [], "unknown_version": [], "duplicates": [], "conflicts": [],
                "missing": [], "orphan_sets": [], "begin": None, "end": None, "notes": [],
                "tallies": {"duplicates": 0, "conflicts": 0, "missing": 0, "missing_ranges": 0,
                            "orphan_sets": 0}}
    other = _collect(records)
    begin, end, tallies = part.pop("begin"), part.pop("end"), part.pop("tallies")
    truncated = end is None
    complete = (not truncated and not part["missing"] and all(s["complete"] for s in sets)
                and not part["orphan_sets"])
    validation = dict(part)
    validation.update(
        ok=complete and not prob.total(), complete=complete, truncated=truncated,
        boots=boot_list, boots_shown=("the first %d and the analysed one" % logscan.FIRST_N
                                      if n_boots > len(boot_list) else "all"),
        analysed_boot=analysed, analysed_why=why,
        problems=prob.items, problem_counts=dict(prob.counts),
        problems_shown=("the first %d of each kind" % logscan.FIRST_N),
        notes=notes + part.pop("notes") + other.pop("notes"),
        counts={"lines": info["lines"], "candidates": info["candidates"],
                "valid_records": info["valid_records"],
                "records_analysed": len(records),
                "corrupt": sum(n for k, n in prob.counts.items() if k in ("corrupt", "malformed")),
                "unknown_version": prob.counts.get("version", 0),
                "duplicates": tallies["duplicates"], "conflicts": tallies["conflicts"],
                "missing": tallies["missing"], "orphan_sets": tallies["orphan_sets"],
                "sets": len(sets), "sets_complete": sum(1 for s in sets if s["complete"]),
                "boots": n_boots, "problems": prob.total()})
    summary = {
        "format": "baremetric-summary", "format_version": 1,
        "source": {"log": source, "bytes": info["bytes"], "lines": info["lines"],
                   "encoding": info["encoding"],
                   "parsed_utc": datetime.datetime.now(datetime.timezone.utc)
                   .strftime("%Y-%m-%dT%H:%M:%SZ")},
        "ok": validation["ok"], "validation": validation,
        "begin": typed(begin["fields"]) if begin else None,
        "cfg": other["cfg"], "platform": other["platform"], "messages": other["messages"],
        "faults": other["faults"], "skips": other["skips"], "checks": other["checks"],
        "end": dict(typed(end["fields"]), seq=end["seq"], line=end["line"]) if end else None,
        "sets": sets, "unknown_records": other["unknown_records"],
    }
    prob.close_file()
    return {"summary": summary, "records": records, "raw": raw, "problems_file": prob.spill}


def analyse(data, source=None):
    """Parse raw log bytes (see analyse_file)."""
    return analyse_file(io.BytesIO(data), source)


def write_outputs(result, out_dir):
    """Write records.jsonl, raw/*.txt, problems.jsonl and summary.json into out_dir."""
    raw_dir = os.path.join(out_dir, "raw")
    os.makedirs(raw_dir, exist_ok=True)
    for old in os.listdir(raw_dir):  # stale files from an earlier parse into the same dir
        if old.endswith(".txt"):
            os.remove(os.path.join(raw_dir, old))
    with open(os.path.join(out_dir, "records.jsonl"), "w") as fh:
        for r in result["records"]:
            fh.write(json.dumps(record_json(r)) + "\n")
    for entry, fields, values in result["raw"]:
        with open(os.path.join(out_dir, entry["raw_file"]), "w") as fh:
            fh.write("# baremetric raw samples, one per line (cycles per sample, overhead "
                     "included)\n")
            for k, v in fields.items():
                fh.write("# %s: %s\n" % (k, v))
            fh.write("# received: %d\n# complete: %s\n" % (
                len(values), "yes" if entry.get("complete") else "no"))
            if entry.get("wrapped"):
                fh.write("# wrapped: %d (>= 2^63, excluded from the statistics)\n"
                         % entry["wrapped"])
            if entry.get("missing_indices"):
                fh.write("# missing_indices: %s\n"
                         % fmt_ranges(entry["missing_indices"], limit=10 ** 6))
            fh.writelines("%d\n" % v for v in values)
    spill = result.get("problems_file")
    with open(os.path.join(out_dir, "problems.jsonl"), "w", encoding="utf-8") as fh:
        if spill is not None:  # every problem, one JSON object a line (the summary: 20 a kind)
            spill.flush()
            spill.seek(0)
            shutil.copyfileobj(spill, fh)
    tmp = os.path.join(out_dir, "summary.json.tmp")
    with open(tmp, "w") as fh:
        json.dump(result["summary"], fh, indent=1)
        fh.write("\n")
    os.replace(tmp, os.path.join(out_dir, "summary.json"))


def parse_log(path, out_dir=None):
    """Parse the log at `path`; write outputs when out_dir is given. Returns the summary dict.
    Raises OSError when the log cannot be read or outputs cannot be written."""
    with open(path, "rb") as fh:
        result = analyse_file(fh, source=os.path.abspath(path))
    if out_dir is not None:
        write_outputs(result, out_dir)
    return result["summary"]


def exit_code(summary):
    """0 when the log is complete and valid, 1 otherwise."""
    return 0 if summary.get("ok") else 1
