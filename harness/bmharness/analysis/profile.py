"""Host side of the sampling profiler: per profiled probe, the samples attributed to functions and
instructions of the ELF the run was built from, per event, plus the records' validity and the
profiler's own cost (docs/protocol.md, "prof, prof_data: sampling profiler").

`load_records(run)` reads a run's records (a parse directory's records.jsonl, a directory holding
`parsed/`, or a serial log parsed in memory); `analyse(records, run_dir, elf=..., cpu=...)` gives
one result per profile; `to_json` is what profile.json holds (keys in docs/methods/profiler.md).
Mapping: ELF address = pc - image_base. A pc below image_base or at image_base + image_size and
above is "outside the image"; one inside the image that no function symbol covers is
"unknown"; without the ELF every pc in the image is "not symbolised". Each of these is a row of
its own: samples are never dropped, so every event's shares add up to 1. The rendering (report
section, `baremetric profile`) is report/prof_report.py's.
"""

import bisect
import json
import os

from . import symbolise
from .. import stats
from ..stream import parse, prof_records

OUTSIDE = "(outside the image)"
UNKNOWN = "(in the image, no symbol)"
UNMAPPED = "(in the image, not symbolised: no ELF)"
NO_BASE = "(no image base: not mapped)"
SPECIAL = (OUTSIDE, UNKNOWN, UNMAPPED, NO_BASE)
TOP_INSNS = 50        # hottest instructions kept in profile.json
TOP_LINES = 30        # hottest source lines kept
ANNOTATE = 3          # functions annotated by default
MAX_ANNOTATE_BYTES = 1 << 16  # a function larger than this is disassembled around its peak only
EXCERPT = 20          # instructions in the report's excerpt around the peak
HOT_SHARE = 0.05      # an instruction with this share of its function's samples is marked hot
FORMAT = "baremetric-profile"
MIN_SAMPLES = 200     # below this many samples of an event a profile's shares are flagged as rough


class RunError(Exception):
    """The run cannot be read (no records.jsonl, serial log or parse directory)."""


def records_path(run):
    """records.jsonl of a parse directory or of the `parsed/` directory inside a run, or None."""
    for d in (run, os.path.join(run, "parsed")):
        p = os.path.join(d, "records.jsonl")
        if os.path.isfile(p):
            return p
    return None


def fields_as_text(fields):
    """records.jsonl's typed fields back as the record's text, which prof_records checks (a
    decimal written as a JSON number reads back as the same digits)."""
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in fields.items()}


def load_records(run):
    """(records, the directory they belong to or None). `run` is a parse directory, a QEMU
    output directory (its parsed/ or its serial.log) or a serial log. Raises RunError."""
    if os.path.isdir(run):
        p = records_path(run)
        if p is not None:
            recs = []
            with open(p) as fh:
                for line in fh:
                    if '"prof' in line:  # most of a run is samples: decode only what is ours
                        r = json.loads(line)
                        if r.get("type") in ("prof", "prof_data"):
                            recs.append(dict(r, fields=fields_as_text(r.get("fields") or {})))
            return recs, os.path.dirname(p)
        log = os.path.join(run, "serial.log")
        if not os.path.isfile(log):
            raise RunError("%s has neither records.jsonl (run `parse` first) nor serial.log" % run)
        run = log
    if not os.path.isfile(run):
        raise RunError("%s: no such file or directory" % run)
    with open(run, "rb") as fh:
        res = parse.analyse_file(fh, source=os.path.abspath(run))
    return [r for r in res["records"] if r["type"] in ("prof", "prof_data")], None


def _event_names(prof):
    names = list(prof["events"]) or ["event0"]
    top = max([e for _, _, e, _ in prof["entries"]] + [len(names) - 1])
    return names + ["#%d" % k for k in range(len(names), top + 1)]


def _share(n, total):
    return n / total if total else 0.0


def share_ci(n, total):
    """95% Wilson score interval [lo, hi] of the share n/total (each sample is a Bernoulli draw:
    in the function or not), or None without samples."""
    return stats.wilson_ci(n, total)


def _add(d, key, ev, cnt):
    row = d.setdefault(key, {})
    row[ev] = row.get(ev, 0) + cnt


class _Elf:
    """The ELF of a build id, its symbols and a cache of source lines (one per run)."""

    def __init__(self, found):
        self.found, self.path, self.syms, self.error = found, found.get("path"), None, None
        if self.path:
            try:
                self.syms = symbolise.Symbols(self.path)
            except symbolise.ToolError as exc:
                self.error = str(exc)


def _classify(prof, elf, pc):
    """(row name, ELF address or None, function start or None)."""
    base, size = prof["image_base"], prof["image_size"]
    if base is None:
        return NO_BASE, None, None
    addr = pc - base
    if addr < 0 or (size is not None and addr >= size):
        return OUTSIDE, None, None
    if elf.syms is None:
        return UNMAPPED, addr, None
    hit = elf.syms.lookup(addr)
    if hit is None:
        return UNKNOWN, addr, None
    return hit[0], addr, hit[1]


def _tally(prof, elf, cpu):
    """Samples per event by function, by (pc, function, address) and by function and CPU, with
    the event totals and each function's start. Returns (totals, funcs, insns, fstart, by_cpu)."""
    names = _event_names(prof)
    entries = [e for e in prof["entries"] if cpu is None or e[0] == cpu]
    totals = {n: 0 for n in names[:max(1, len(prof["events"]))]}
    funcs, insns, fstart, by_cpu = {}, {}, {}, {}
    for c, pc, ev, cnt in entries:
        name, addr, start = _classify(prof, elf, pc)
        ev_name = names[ev]
        totals[ev_name] = totals.get(ev_name, 0) + cnt
        _add(funcs, name, ev_name, cnt)
        _add(by_cpu.setdefault(name, {}), str(c), ev_name, cnt)
        if start is not None:
            fstart[name] = start
        _add(insns, (pc, name, addr), ev_name, cnt)
    return totals, funcs, insns, fstart, by_cpu


def _hot_key(events):
    """Sort key of (what, {event: samples}) items: most samples of the first event first, then of
    the others, then by what."""
    def key(item):
        return tuple(-item[1].get(e, 0) for e in events) + (item[0],)
    return key


def _counts(per, events, totals):
    return {"samples": {e: per.get(e, 0) for e in events},
            "share": {e: _share(per.get(e, 0), totals[e]) for e in events},
            "share_ci": {e: share_ci(per.get(e, 0), totals[e]) for e in events}}


def _function_rows(elf, funcs, fstart, by_cpu, events, totals):
    rows = []
    for name, per in sorted(funcs.items(), key=_hot_key(events)):
        hit = elf.syms.by_name(name) if elf.syms is not None and name in fstart else None
        rows.append(dict({"name": name, "kind": "function" if hit else
                          {OUTSIDE: "outside", UNKNOWN: "unknown", UNMAPPED: "unmapped",
                           NO_BASE: "unmapped"}.get(name, "function"),
                          "start": "0x%x" % hit[1] if hit else None,
                          "end": "0x%x" % hit[2] if hit else None},
                         **_counts(per, events, totals), by_cpu=by_cpu[name]))
    return rows


def _sources(elf, rows, insns, events, annotate, notes):
    """Annotated listings of the top `annotate` functions and the source line of every address
    sampled or listed (addr2line; none without symbols). Returns (annotated, {addr: chain})."""
    addrs = {k[2] for k in insns if k[2] is not None and k[1] not in SPECIAL}
    ann = []
    if elf.syms is not None:
        for row in [r for r in rows if r["kind"] == "function"][:annotate]:
            ann.append(_annotate(elf, row, insns, events, notes))
        for a in ann:
            addrs.update(int(i["addr"], 16) for i in a["instructions"])
    lines = {}
    if elf.syms is not None and addrs:
        try:
            lines = symbolise.source_lines(elf.path, addrs)
        except symbolise.ToolError as exc:
            notes.append("source lines unavailable: %s" % exc)
    return ann, lines


def _hot_code(insns, fstart, lines, ann, events, totals):
    """The hottest instructions and source lines (with their source), and the annotated
    listings' instructions given their source. Returns (instructions, hot lines)."""
    key = _hot_key(events)

    def loc(addr):
        chain = lines.get(addr) if addr is not None else None
        return chain[0][1] if chain else None
    instructions = []
    for (pc, name, addr), per in sorted(insns.items(), key=lambda kv: key((kv[0][0], kv[1])))[:TOP_INSNS]:
        start = fstart.get(name)
        instructions.append(dict({
            "pc": "0x%x" % pc, "addr": "0x%x" % addr if addr is not None else None,
            "function": name, "offset": addr - start if start is not None else None,
            "source": loc(addr)}, **_counts(per, events, totals)))
    for a in ann:
        for i in a["instructions"]:
            i["source"] = loc(int(i["addr"], 16))
    by_line = {}
    for (pc, name, addr), per in insns.items():
        where = loc(addr) if addr in lines else None
        if where:
            for e, n in per.items():
                _add(by_line, (where, name), e, n)
    hot_lines = [dict({"source": w, "function": f}, **_counts(per, events, totals))
                 for (w, f), per in sorted(by_line.items(),
                                           key=lambda kv: key((kv[0], kv[1])))[:TOP_LINES]]
    return instructions, hot_lines


def _per_cpu(prof, cpu):
    per_cpu = []
    for c, info in sorted(prof["cpus"].items()):
        if cpu is not None and c != cpu:
            continue
        end = info.get("end") or {}
        per_cpu.append({"cpu": c, "samples": end.get("samples"), "counted": end.get("counted"),
                        "lost": end.get("lost"), "outside": _count(end.get("outside")),
                        "entries": info["entries_received"],
                        "crc_ok": info["crc_ok"], "balance_ok": info["balance_ok"],
                        "handler_n": end.get("handler_n"), "handler_med": end.get("handler_med"),
                        "handler_p90": end.get("handler_p90")})
    return per_cpu


def _facts(prof, elf, cpu, per_cpu, events):
    """What the profile was (source, events' period, image, ELF found) and what arrived."""
    b = prof["begin"] or {}
    base = prof["image_base"]
    return {"key": prof["key"], "probe": prof["probe"], "source": b.get("source"),
            "events": events, "primary": events[0], "unit": b.get("unit"),
            "period": _num(b.get("period")), "period_min": _num(b.get("period_min")),
            "period_max": _num(b.get("period_max")), "seed": _num(b.get("seed")),
            "cpus": [p["cpu"] for p in per_cpu], "cpu_filter": cpu,
            "image_base": "0x%x" % base if base is not None else None,
            "image_size": prof["image_size"], "build_id": prof["build_id"],
            "fallback": b.get("fallback"), "period_auto": _num(b.get("period_auto")),
            "auto_sample_cost": _num(b.get("auto_sample_cost")),
            "runs": _num(b.get("runs")), "extend_stop": b.get("extend_stop"),
            "region": b.get("region"),
            "extend_min_samples": _num(b.get("min_samples")), "extend_max_ms": _num(b.get("extend_max_ms")),
            "elf": {"path": elf.path, "how": elf.found.get("how") if not elf.error else
                    "%s; unusable: %s" % (elf.found.get("how"), elf.error),
                    "match": elf.found.get("match"), "tried": elf.found.get("tried", []),
                    "symbolised": elf.syms is not None},
            "records_ok": prof["ok"], "record_problems": prof["problems"]}


def _one(prof, elf, cpu, annotate):
    totals, funcs, insns, fstart, by_cpu = _tally(prof, elf, cpu)
    events = list(totals)
    rows = _function_rows(elf, funcs, fstart, by_cpu, events, totals)
    notes = []
    ann, lines = _sources(elf, rows, insns, events, annotate, notes)
    instructions, hot_lines = _hot_code(insns, fstart, lines, ann, events, totals)
    per_cpu = _per_cpu(prof, cpu)
    res = _facts(prof, elf, cpu, per_cpu, events)
    res.update({"totals": totals, "samples": _sum(p["samples"] for p in per_cpu),
                "lost": _sum(p["lost"] for p in per_cpu),
                "outside_measurement": _outside_measurement(prof, per_cpu), "per_cpu": per_cpu,
                "functions": rows,
                "shares": {e: {r["name"]: r["share"][e] for r in rows} for e in events},
                "shares_ci": {e: {r["name"]: r["share_ci"][e] for r in rows} for e in events},
                "outside_image": {e: funcs.get(OUTSIDE, {}).get(e, 0) for e in events},
                "unknown": {e: sum(funcs.get(n, {}).get(e, 0) for n in (UNKNOWN, UNMAPPED, NO_BASE))
                            for e in events},
                "instructions": instructions, "lines": hot_lines, "annotated": ann,
                "cost": _cost(prof["cost"]), "notes": notes})
    res.update(_few_samples(totals))
    res["checks"] = _checks(res)
    return res


def _few_samples(totals):
    """The events with fewer than MIN_SAMPLES samples and the warning the report prints for them
    (with 100 samples a 10% share's 95% CI is about 5.5%..17%: a ranking, not a measurement)."""
    few = {e: n for e, n in totals.items() if n < MIN_SAMPLES}
    warn = ("fewer than %d samples (%s): shares are rough, see their 95%% CIs" % (
        MIN_SAMPLES, ", ".join("%d %s" % (n, e) for e, n in few.items()))) if few else None
    return {"min_samples": MIN_SAMPLES, "few_samples": few, "sample_warning": warn}


def _count(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _outside_measurement(prof, per_cpu):
    """Samples taken outside the measured region (counted apart by the firmware, in no total or
    share): the sum of the ends' `outside`; 0 when the region was marked and no end has any
    (a CPU other than the probe's); None when the begin says no region (`whole_run`) or is older
    than regions."""
    if ((prof["begin"] or {}).get("region")) != "marked":
        return None
    return sum(p["outside"] or 0 for p in per_cpu)


def _num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else (
        int(v) if isinstance(v, str) and v.isdigit() else v)


def _sum(values):
    vals = [v for v in values if isinstance(v, int)]
    return sum(vals) if vals else None


def _cost(c):
    if not c:
        return None
    out = dict(c)
    ppm, target = c.get("overhead_ppm"), c.get("target_ppm")
    out["above_target"] = (ppm > target) if isinstance(ppm, int) and isinstance(target, int) \
        else None
    return out


def _checks(res):
    """Host-side verdicts: the records valid, the overhead within its target."""
    out = [{"name": "prof_records", "probe": res["probe"],
            "status": "pass" if res["records_ok"] else "fail",
            "expected": "chunks contiguous, crc, entries, counted+lost=samples",
            "measured": "%d problem(s)" % res["record_problems"]}]
    c = res["cost"]
    if c and c["above_target"] is not None:
        out.append({"name": "prof_overhead", "probe": res["probe"],
                    "status": "fail" if c["above_target"] else "pass",
                    "expected": "<= %d ppm" % c["target_ppm"],
                    "measured": "%d ppm" % c["overhead_ppm"]})
    return out


def _annotate(elf, row, insns, events, notes):
    """Per-instruction samples of one function, from objdump; the peak is the instruction with
    most samples of the primary event (then of the others)."""
    start, end = int(row["start"], 16), int(row["end"], 16)
    mine = {k[2]: per for k, per in insns.items() if k[1] == row["name"] and k[2] is not None}
    peak = min(mine, key=lambda a: tuple(-mine[a].get(e, 0) for e in events) + (a,)) \
        if mine else start
    lo, hi = start, end
    if end - start > MAX_ANNOTATE_BYTES:
        half = MAX_ANNOTATE_BYTES // 2
        lo, hi = max(start, peak - half), min(end, peak + half)
        notes.append("%s is %d bytes: disassembled around its peak only" % (row["name"],
                                                                            end - start))
    try:
        listing = symbolise.disassemble(elf.path, lo, hi)
    except symbolise.ToolError as exc:
        notes.append("no disassembly of %s: %s" % (row["name"], exc))
        listing = []
    fsum = {e: row["samples"][e] for e in events}
    starts = [a for a, _ in listing]
    placed, inside = {}, 0
    for a, per in mine.items():
        k = bisect.bisect_right(starts, a) - 1
        if k < 0 or (k == len(starts) - 1 and a >= hi):
            continue
        if starts[k] != a:  # a pc inside an instruction: the instruction it falls in gets it
            inside += sum(per.values())
        for e, n in per.items():
            _add(placed, starts[k], e, n)
    out = []
    for addr, text in listing:
        per = placed.get(addr, {})
        share = {e: _share(per.get(e, 0), fsum[e]) for e in events}
        out.append({"addr": "0x%x" % addr, "offset": addr - start, "insn": text,
                    "samples": {e: per.get(e, 0) for e in events}, "share_in_function": share,
                    "share_in_function_ci": {e: share_ci(per.get(e, 0), fsum[e]) for e in events},
                    "hot": any(s >= HOT_SHARE for s in share.values()), "peak": False,
                    "source": None})
    if placed:  # the peak: most samples of the primary event once placed on instructions
        peak = min(placed, key=lambda a: tuple(-placed[a].get(e, 0) for e in events) + (a,))
        out[starts.index(peak)]["peak"] = True
    if inside:
        notes.append("%s: %d sample(s) on pcs that are not instruction starts, attributed to the "
                     "instruction they fall in (a pc off by some bytes?)" % (row["name"], inside))
    return {"function": row["name"], "start": row["start"], "end": row["end"],
            "peak": "0x%x" % peak, "samples": fsum, "instructions": out,
            "loop": hot_loop(out, peak, events, fsum)}


def _jump_target(insn):
    """Target address of a direct jump (`jne 1137 <f+0xe>`, `loop 40 <f>`), else None."""
    parts = insn.split()
    if len(parts) >= 2 and (parts[0].startswith("j") or parts[0].startswith("loop")):
        try:
            return int(parts[1], 16)
        except ValueError:
            return None
    return None


def hot_loop(insns, peak, events, fsum):
    """The innermost loop around the peak: the shortest span [target, jump] of a backward direct
    jump at or after the peak whose target is at or before it. {"start", "end" (address of the
    jump), "first", "last" (indices), "instructions", "samples", "share_in_function"} or None."""
    if not insns:
        return None
    addrs = [int(i["addr"], 16) for i in insns]
    best = None
    for j, i in enumerate(insns):
        t = _jump_target(i["insn"])
        if t is None or not t <= peak <= addrs[j] or t not in addrs:
            continue
        first = addrs.index(t)
        if best is None or j - first < best[1] - best[0]:
            best = (first, j)
    if best is None:
        return None
    first, last = best
    per = {e: sum(i["samples"][e] for i in insns[first:last + 1]) for e in events}
    return {"start": "0x%x" % addrs[first], "end": "0x%x" % addrs[last], "first": first,
            "last": last, "instructions": last - first + 1, "samples": per,
            "share_in_function": {e: _share(per[e], fsum[e]) for e in events},
            "share_in_function_ci": {e: share_ci(per[e], fsum[e]) for e in events}}


def analyse(records, run_dir=None, elf=None, cpu=None, annotate=ANNOTATE, problems=None):
    """{"profiles": [...], "problems": [...], "ok"} for a boot's records (prof and prof_data are
    enough). `elf` overrides the search by build id for every profile. `problems` collects the
    records' problems as stream/parse.py words them."""
    probs = [] if problems is None else problems

    def problem(kind, message, line=None, seq=None):
        probs.append({"kind": kind, "message": message, "line": line, "seq": seq})
    profs = prof_records.collect(records, problem)
    elves, out = {}, []
    for p in profs:
        k = (elf, p["build_id"] if p["begin"] is not None else None)
        if k not in elves:
            elves[k] = _Elf({"path": None, "how": "no `prof kind=begin`: build id unknown",
                             "tried": []} if k == (None, None) else
                            symbolise.find_elf(p["build_id"], run_dir, explicit=elf))
        out.append(_one(p, elves[k], cpu, annotate))
    return {"format": FORMAT, "format_version": 1, "run": run_dir, "profiles": out,
            "problems": probs, "ok": not probs and all(p["records_ok"] for p in out)}


def analyse_run(run, elf=None, cpu=None, annotate=ANNOTATE):
    """analyse() on what load_records(run) finds. Raises RunError."""
    recs, run_dir = load_records(run)
    where = run_dir or (run if os.path.isdir(run) else os.path.dirname(os.path.abspath(run)))
    res = analyse(recs, where, elf=elf, cpu=cpu, annotate=annotate)
    res["records_dir"] = run_dir
    return res


def analyse_dir(out_dir, elf=None, annotate=1):
    """analyse() of a parse directory for the report: an empty result (no profiles) when it has no
    records.jsonl or no profiler records; never raises on the directory's contents."""
    empty = {"format": FORMAT, "format_version": 1, "run": out_dir, "profiles": [],
             "problems": [], "ok": True}
    if not out_dir or records_path(out_dir) is None:
        return empty
    try:
        recs, run_dir = load_records(out_dir)
    except (RunError, OSError, ValueError) as exc:
        return dict(empty, notes=["profiler records unreadable: %s" % exc])
    if not recs:
        return empty
    res = analyse(recs, run_dir, elf=elf, annotate=annotate)
    res["records_dir"] = run_dir
    return res


def write_json(path, res):
    """Write profile.json (atomically)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(res, fh, indent=1)
        fh.write("\n")
    os.replace(tmp, path)


def share(res, probe, function, event=None):
    """Share (0..1) of a probe's samples of `event` (default: its first) in `function`, from an
    analyse() result or a loaded profile.json; None when the probe was not profiled."""
    for p in res.get("profiles", []):
        if p["probe"] == probe or p["key"] == probe:
            ev = event or p["primary"]
            return p["shares"].get(ev, {}).get(function, 0.0)
    return None
