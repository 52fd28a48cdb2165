"""A sample set put together from its records (docs/protocol.md, "samples" and "ctr"): the
`samples` chunks placed by index into the n values the `probe` record declares (count mismatch,
gaps, overlaps and values beyond n reported as problems), and the `ctr` chunks of its counter
events assembled the same way, per event and pass. parse.py calls these per set; every damage
found goes to its problem list (`prob.add`) and the data goes on.
"""

from . import logscan, protocol

MAX_SET = 1 << 24  # larger n or i values are damage, not data (and would exhaust memory)


def int_field(value):
    """A decimal or 0x-hex field as an int, or None when it is neither."""
    try:
        return int(value, 0) if value.startswith("0x") else int(value)
    except (ValueError, AttributeError):
        return None


def ranges(indices):
    """Sorted integers -> [[first, last], ...] runs."""
    out = []
    for i in indices:
        if out and i == out[-1][1] + 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out


def fmt_ranges(rs, limit=12):
    """Runs as text ('3, 5-9'), the first `limit` of them."""
    text = ", ".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in rs[:limit])
    return text + (", ... (%d ranges)" % len(rs) if len(rs) > limit else "")


def assemble_set(pid, probe, chunks, prob):
    """Put a set's sample chunks in place by index; report count mismatch, gaps and overlaps."""
    line = probe["line"] if probe else None
    declared = int_field(probe["fields"].get("n")) if probe else None
    if probe and (declared is None or not 0 <= declared <= MAX_SET):
        prob.add("bad_field", "set %s: probe n=%r is not a usable count"
                 % (pid, probe["fields"].get("n")), line, probe["seq"])
        declared = None
    slots = {}
    overlap, beyond, issues = [], [], []
    for ch in chunks:
        f = ch["fields"]
        start, cnt = int_field(f.get("i")), int_field(f.get("n"))
        try:
            values = protocol.decode_values(f.get("v", ""), version=ch.get("version", 1))
        except ValueError as exc:
            prob.add("chunk", "set %s: samples chunk unusable: %s" % (pid, exc),
                     ch["line"], ch["seq"])
            continue
        if start is None or not 0 <= start <= MAX_SET:
            prob.add("chunk", "set %s: samples chunk without a usable i" % pid,
                     ch["line"], ch["seq"])
            continue
        if cnt != len(values):
            prob.add("chunk", "set %s: chunk declares n=%s but carries %d values"
                     % (pid, f.get("n"), len(values)), ch["line"], ch["seq"])
        chunk_max = protocol.CHUNK_MAX.get(ch.get("version"), protocol.CHUNK_MAX[1])
        if len(values) > chunk_max:
            prob.add("chunk", "set %s: chunk carries %d values (limit %d)"
                     % (pid, len(values), chunk_max), ch["line"], ch["seq"])
        if probe and ch["seq"] < probe["seq"]:
            prob.add("order", "set %s: samples precede their probe record" % pid,
                     ch["line"], ch["seq"])
        for k, v in enumerate(values):
            j = start + k
            if declared is not None and j >= declared:
                beyond.append(j)
            elif j in slots:
                overlap.append(j)
            else:
                slots[j] = v
    size = declared if declared is not None else (max(slots) + 1 if slots else 0)
    missing, prev = [], -1
    for j in sorted(slots) + [size]:
        if j > prev + 1:
            missing.append([prev + 1, j - 1])
        prev = j
    if overlap:
        issues.append("overlapping indices %s" % fmt_ranges(ranges(sorted(set(overlap)))))
        prob.add("set_overlap", "set %s: sample indices sent twice: %s"
                 % (pid, fmt_ranges(ranges(sorted(set(overlap))))), line)
    if beyond:
        issues.append("%d values beyond n=%s" % (len(beyond), declared))
        prob.add("set_overflow", "set %s: %d values beyond declared n=%s"
                 % (pid, len(beyond), declared), line)
    if missing:
        issues.append("missing indices %s" % fmt_ranges(missing))
        prob.add("set_count", "set %s: %d of %s samples received; missing indices %s"
                 % (pid, len(slots), size, fmt_ranges(missing)), line)
    values = [slots[j] for j in sorted(slots)]
    complete = not missing and not overlap and not beyond and declared is not None
    return {"received": len(slots), "complete": complete,
            "missing_indices": missing[:logscan.FIRST_N], "missing_ranges": len(missing),
            "problems": issues}, values


def assemble_counters(pid, probe, chunks, prob):
    """A set's counter values: the events its probe record declares (ctr_events, ctr_passes),
    each with its pass, overhead, wraps and n values assembled like samples (`tsc` of the
    repeated passes too). Returns None when the set declares no counters and has no ctr records."""
    f = probe["fields"]
    declared = [e for e in f.get("ctr_events", "").split(",") if e]
    if not declared and not chunks:
        return None
    passes = int_field(f.get("ctr_passes", "1")) or 1
    by_key = {}
    for ch in chunks:
        cf = ch["fields"]
        by_key.setdefault((cf.get("event", "?"), cf.get("pass", "0")), []).append(ch)
    events, complete = {}, True
    if chunks and not declared:
        prob.add("ctr_undeclared", "set %s: ctr records but the probe record declares no "
                 "ctr_events" % pid, probe["line"], probe["seq"])
        complete = False
    for (event, pas), chs in sorted(by_key.items()):
        p = int_field(pas)
        if p is None or not 0 <= p < passes or (event not in declared and not
                                                 (event == "tsc" and p and p > 0)):
            prob.add("ctr_unknown", "set %s: ctr record for event %s pass %s not declared "
                     "(ctr_events=%s, ctr_passes=%d)" % (pid, event, pas, ",".join(declared),
                                                         passes), chs[0]["line"], chs[0]["seq"])
            complete = False
            continue
        info, values = assemble_set("%s ctr %s" % (pid, event), probe, chs, prob)
        first = chs[0]["fields"]
        key = event if event != "tsc" else "tsc.%d" % p
        events[key] = {"event": event, "pass": p, "overhead": int_field(first.get("overhead", "0")) or 0,
                       "wraps": sum(int_field(c["fields"].get("wraps", "0")) or 0 for c in chs),
                       "values": values, "received": info["received"],
                       "complete": info["complete"]}
        complete = complete and info["complete"]
    for e in declared:
        if e not in events:
            prob.add("ctr_missing", "set %s: event %s declared but no ctr records" % (pid, e),
                     probe["line"], probe["seq"])
            complete = False
    return {"set": f.get("ctr_set"), "events_declared": declared, "passes": passes,
            "refused": [e for e in f.get("ctr_refused", "").split(",") if e],
            "events": events, "complete": complete}
