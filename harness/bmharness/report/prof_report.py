"""Rendering of analysis/profile.py's results onto a report Doc: the report's Profile section
(`analyse`, `section`) and the fuller listing of `baremetric profile` (`listing`). Tables carry one samples column and one
% column per event, as DCPI's per-instruction view shows cycles next to misses. Nothing here
computes: every figure is analysis/profile.py's.
"""

from ..analysis import profile

REPORT_TOP = 10     # functions in the report's table
CLI_TOP = 20        # default --top of `baremetric profile`
CLI_MAX_LISTING = 400  # instructions of an annotated function printed in full, else around its peak
RAW_PCS = 20        # pcs in the raw table (no ELF) / hottest instructions table
NAME = "profile"    # the report section's name


def analyse(summary, out_dir=None):
    """profile.analyse_dir of the parse directory (the profiler's records are in records.jsonl,
    not in the summary)."""
    return profile.analyse_dir(out_dir)


def _pct(x):
    return "%.1f" % (100.0 * x) if x is not None else "-"


def _pct_ci(x, ci):
    """A share in % with its 95% CI: `76.9 [74.6-79.1]`."""
    if x is None:
        return "-"
    return "%s [%s-%s]" % (_pct(x), _pct(ci[0]), _pct(ci[1])) if ci else _pct(x)


def _ev_headers(p):
    hs = []
    for e in p["events"]:
        hs += [e, "% [95% CI]" + (" " + e if len(p["events"]) > 1 else "")]
    return hs


def _ev_cells(p, samples, share, ci=None):
    cells = []
    for e in p["events"]:
        cells += [samples.get(e, 0), _pct_ci(share.get(e), (ci or {}).get(e))]
    return cells


def _title(p):
    return "%s (%s, %s%s)" % (p["key"], p["source"] or "source ?", ",".join(p["events"]),
                              ", cpu %d only" % p["cpu_filter"] if p["cpu_filter"] is not None
                              else "")


def _period(p):
    if p["period"] is None:
        return "-"
    rng = ("uniform in [%s, %s]" % (p["period_min"], p["period_max"])
           if p["period_min"] is not None else "")
    auto = ("chosen by the firmware to stay under the overhead target%s" % (
        ", %s cycles per sample measured" % p["auto_sample_cost"] if p["auto_sample_cost"]
        else "")) if p.get("period_auto") == 1 else ""
    return "%s %s%s" % (p["period"], p["unit"] or "", " (%s)" % "; ".join(
        x for x in (rng, auto) if x) if rng or auto else "")


# Why the profile has as many runs of the probe as it has (prof begin's extend_stop).
EXTEND_STOPS = {
    "fixed_period": "the period was given: one run",
    "samples": "enough samples",
    "time": "the time bound (%s ms) came first",
    "runs": "the run bound came first",
    "failed": "a repeated run did not end well; the runs before it are kept",
}


def _runs(p):
    """How many runs of the probe the profile covers, and why (older logs: no runs field)."""
    if p.get("runs") is None:
        return None
    why = EXTEND_STOPS.get(p.get("extend_stop"), p.get("extend_stop") or "?")
    if "%s" in why:
        why = why % (p.get("extend_max_ms") or "?")
    more = (", the later ones muted: the probe's records are those of the first"
            if p["runs"] > 1 else "")
    goal = " (goal %s samples)" % p["extend_min_samples"] if p.get("extend_min_samples") else ""
    return "%d run(s) of the probe%s; %s%s" % (p["runs"], more, why, goal)


def _outside_measurement(p):
    """The samples the firmware counted apart, outside the measured region (prof begin's
    `region`, the ends' `outside`), or why there are none."""
    n = p.get("outside_measurement")
    if p.get("region") == "whole_run":
        return "none separated: the probe marks no measured region, its whole run is profiled"
    if n is None:
        return "not separated (a log from before measured regions: the whole run is profiled)"
    taken = n + (p["samples"] or 0)
    return ("%d of the %d taken (%s%%): everything but the timed runs of the probe's operation "
            "(its set-up and records, the runner's reference timings and bookkeeping); in no "
            "share below" % (
                n, taken, _pct_ci(n / taken if taken else None, profile.share_ci(n, taken))))


def _facts(doc, p):
    elf = p["elf"]
    samples = "%s %s, %s counted, %s lost" % (
        "-" if p["samples"] is None else p["samples"],
        "in the measurement" if p.get("outside_measurement") is not None else "taken",
        ", ".join("%d %s" % (n, e) for e, n in p["totals"].items()),
        "-" if p["lost"] is None else p["lost"])
    out = p["outside_image"][p["primary"]]
    doc.kv([("source", (p["source"] or "?") + (" (fallback: %s)" % p["fallback"]
                                               if p["fallback"] else "")),
            ("events", ", ".join(p["events"])), ("period", _period(p)),
            ("runs", _runs(p) or "1 (not recorded)"),
            ("cpus", ", ".join(str(c) for c in p["cpus"]) or "none"),
            ("samples", samples),
            ("outside the measurement", _outside_measurement(p)),
            ("outside the image", "%d (%s%% of %s)" % (out, _pct_ci(p["shares"][p["primary"]].get(
                profile.OUTSIDE, 0.0), profile.share_ci(out, p["totals"][p["primary"]])),
                p["primary"])),
            ("image", "base %s, %s bytes, build id %s" % (p["image_base"], p["image_size"],
                                                          p["build_id"])),
            ("ELF", "%s (%s)" % (elf["path"], elf["how"]) if elf["path"] else
             "NOT FOUND: %s; pcs are shown raw" % elf["how"]),
            ("records", "valid" if p["records_ok"] else
             "%d PROBLEM(S) (see Validation)" % p["record_problems"])])


def _cost(doc, p):
    c = p["cost"]
    if not c:
        doc.kv([("overhead", "not measured (no `prof kind=cost` record)")])
        return
    if c.get("skipped"):
        doc.kv([("overhead", "not measured: %s" % c["skipped"])])
        return
    ppm, target = c.get("overhead_ppm"), c.get("target_ppm")
    verdict = ("ABOVE TARGET" if c["above_target"] else "within target"
               if c["above_target"] is not None else "not judged")
    doc.kv([("overhead", "%s ppm (%s%%) vs target %s ppm: %s; spin round %s cycles off, %s on, "
             "%s rounds%s" % (ppm, _pct(ppm / 1e6) if isinstance(ppm, int) else "-", target,
                              verdict, c.get("off"), c.get("on"), c.get("rounds"),
                              "; %s cycles per sample" % c["per_sample"]
                              if c.get("per_sample") else ""))])
    if isinstance(c.get("run_overhead_ppm"), int):
        doc.kv([("on this probe", "about %s ppm (%s%%): %s samples x the per-sample cost over the run's "
                 "%s cycles (an estimate)" % (c["run_overhead_ppm"], _pct(c["run_overhead_ppm"] / 1e6),
                                              c.get("run_samples"), c.get("run_cycles")))])


def _functions(doc, p, top):
    """Functions by the primary event, cumulative %; with several CPUs, the primary event's
    samples per CPU (cpu order as in `cpus`)."""
    rows, cum, ev = [], 0.0, p["primary"]
    multi = len(p["cpus"]) > 1
    for r in p["functions"][:top]:
        cum += r["share"][ev]
        rows.append([r["name"]] + _ev_cells(p, r["samples"], r["share"], r.get("share_ci")) +
                    [_pct(cum)] +
                    (["/".join(str(r["by_cpu"].get(str(c), {}).get(ev, 0)) for c in p["cpus"])]
                     if multi else []))
    rest = p["functions"][top:]
    if rest:
        sums = {e: sum(r["samples"][e] for r in rest) for e in p["events"]}
        shares = {e: sum(r["share"][e] for r in rest) for e in p["events"]}
        cis = {e: profile.share_ci(sums[e], p["totals"][e]) for e in p["events"]}
        rows.append(["(%d more)" % len(rest)] + _ev_cells(p, sums, shares, cis) + ["100.0"] +
                    (["-"] if multi else []))
    doc.table(["function"] + _ev_headers(p) + ["cum %"] +
              (["%s by cpu %s" % (ev, "/".join(str(c) for c in p["cpus"]))] if multi else []),
              rows)


def _raw_pcs(doc, p, n):
    doc.p("hottest pcs (ELF address = pc - image_base)")
    doc.table(["pc", "ELF address", "where"] + _ev_headers(p) + ["source"],
              [[i["pc"], i["addr"] or "-", i["function"] +
                ("+0x%x" % i["offset"] if i["offset"] is not None else "")]
               + _ev_cells(p, i["samples"], i["share"], i.get("share_ci")) + [i["source"] or "-"]
               for i in p["instructions"][:n]])


def _lines(doc, p, n):
    if p["lines"]:
        doc.p("hottest source lines (addr2line; inlined code counts for its innermost line)")
        doc.table(["source line", "function"] + _ev_headers(p),
                  [[r["source"], r["function"]] + _ev_cells(p, r["samples"], r["share"],
                                                            r.get("share_ci"))
                   for r in p["lines"][:n]])


def _insn_rows(p, insns):
    """Rows of an annotated listing: zero counts blank (the hot ones stand out), numbers padded
    on the left so the columns stay right-aligned."""
    rows = []
    for i in insns:
        mark = "=>" if i["peak"] else ">" if i["hot"] else ""
        cells = []
        for e in p["events"]:
            cells += [str(i["samples"][e]) if i["samples"][e] else "",
                      _pct_ci(i["share_in_function"][e], (i.get("share_in_function_ci") or {}).get(e))
                      if i["samples"][e] else ""]
        rows.append([mark, "%s +%d" % (i["addr"], i["offset"])] + cells +
                    [i["insn"], i["source"] or ""])
    for col in range(2, 2 + 2 * len(p["events"])):
        w = max([len(r[col]) for r in rows] + [1])
        for r in rows:
            r[col] = r[col].rjust(w)
    return rows


def _window(insns, size, loop=None):
    """The hot loop when it has at most `size` instructions (with the instructions around it up
    to `size`), else the `size` instructions around the peak."""
    if loop and loop["instructions"] <= size:
        spare = size - loop["instructions"]
        lo = max(0, min(loop["first"] - spare // 2, len(insns) - size))
        return insns[lo:lo + size], lo
    k = next((n for n, i in enumerate(insns) if i["peak"]), 0)
    lo = max(0, min(k - size // 2, len(insns) - size))
    return insns[lo:lo + size], lo


def _annotated(doc, p, a, size):
    loop = a.get("loop")
    insns, lo = _window(a["instructions"], size, loop) if size else (a["instructions"], 0)
    if not a["instructions"]:
        doc.p("%s: no disassembly" % a["function"])
        return
    hdr = []
    for e in p["events"]:
        hdr += [e, "% fn [95% CI]" + (" " + e if len(p["events"]) > 1 else "")]
    doc.p("%s [%s, %s): %s; instructions %d-%d of %d; => peak, > at least %d%% of the "
          "function's samples of an event" % (
              a["function"], a["start"], a["end"],
              ", ".join("%d %s" % (n, e) for e, n in a["samples"].items()),
              lo + 1, lo + len(insns), len(a["instructions"]), round(100 * profile.HOT_SHARE)))
    if loop:
        doc.p("hot loop of %s: %s..%s (%d instructions, closed by the backward jump at %s): %s "
              "of the function's samples" % (
                  a["function"], loop["start"], loop["end"], loop["instructions"], loop["end"],
                  ", ".join("%s%% %s" % (_pct_ci(v, (loop.get("share_in_function_ci") or {}).get(e)), e)
                            for e, v in loop["share_in_function"].items())))
    doc.table(["", "address"] + hdr + ["instruction", "source"], _insn_rows(p, insns))


def _handler(doc, p):
    region = p.get("outside_measurement") is not None
    rows = [[c["cpu"], c["samples"]] + ([c.get("outside") or 0] if region else []) +
            [c["counted"], c["lost"], c["entries"],
             {True: "ok", False: "BAD", None: "-"}[c["crc_ok"]],
             {True: "ok", False: "BAD", None: "-"}[c["balance_ok"]],
             c["handler_n"], c["handler_med"], c["handler_p90"]] for c in p["per_cpu"]]
    if rows:
        doc.table(["cpu", "samples"] + (["outside"] if region else []) +
                  ["counted", "lost", "entries", "crc", "counted+lost",
                   "handler n", "handler med cyc", "handler p90 cyc"], rows)


def _one(doc, p, top, annotate_all, excerpt):
    doc.h("Profile of " + _title(p), 3)
    _facts(doc, p)
    if p.get("sample_warning"):
        doc.p("WARNING: " + p["sample_warning"])
    _cost(doc, p)
    _handler(doc, p)
    if not p["totals"] or not sum(p["totals"].values()):
        doc.p("no samples")
        return
    _functions(doc, p, top)
    if not p["elf"]["symbolised"] or not excerpt:  # the report shows it only without the ELF
        _raw_pcs(doc, p, RAW_PCS)
    if not excerpt:
        _lines(doc, p, RAW_PCS)
    for a in p["annotated"][:None if annotate_all else 1]:
        n = len(a["instructions"])
        _annotated(doc, p, a, excerpt or (CLI_MAX_LISTING if n > CLI_MAX_LISTING else 0))
    doc.list(p["notes"])


def section(doc, res, out_dir=None, plots=None):
    """The report's Profile section (nothing when no probe was profiled)."""
    if not res or not res.get("profiles"):
        return
    doc.h("Profile")
    doc.p("samples per function and event, of the measured region where the probe marks one "
          "(share of the event's samples with its 95%% Wilson score "
          "interval, [lo-hi] in %%; samples outside the "
          "image or outside every symbol have rows of their own); annotated: %d instructions of "
          "the hottest function, its hot loop or else around its peak "
          "(`harness/baremetric profile RUN` lists more)" % profile.EXCERPT)
    for p in res["profiles"]:
        _one(doc, p, REPORT_TOP, False, profile.EXCERPT)


def listing(doc, res, top=CLI_TOP):
    """`baremetric profile`: every profile with its functions, hottest pcs and the annotated
    disassembly of its top functions."""
    for p in res["profiles"]:
        _one(doc, p, top, True, 0)
    if res["problems"]:
        doc.h("Problems in the profiler's records", 3)
        doc.list("%s%s: %s" % (q["kind"], " (line %d)" % q["line"] if q["line"] else "",
                               q["message"]) for q in res["problems"])
