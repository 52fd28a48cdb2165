"""The report's first section, "At a glance": what the machine does in one screen (at most
MAX_LINES lines of at most WIDTH columns), rendered from analysis/headline.py's dict. Nothing
here computes a figure; it picks words, rounds and cuts to fit.

Order: the EMULATED banner (a QEMU TCG run's numbers are the emulator's), machine and run, clock,
noise, interrupt latency, the memory table (per cache level and DRAM: read/write/copy GB/s with
the 95% CI of the median, load latency in ns, the knee found), one line of the L1 plateaus in
bytes per core cycle against the CPU's limits (a caution line under it where shared_core.py found
the figure not steady: its spread, bimodal samples, the load reference, the likely cause) and DRAM
against its SMBIOS peak, the checks grouped by name and
status (failures first), skips grouped by reason, and the status line. `report --summary` prints
this section alone; `report` writes the dict to DIR/headline.json.
"""

import json
import os

from .doc import Doc, Marked, fbytes, fhz
from ..analysis import headline as headline_analysis, limits

NAME = "headline"
WIDTH = 100          # columns of the first screen
MAX_LINES = 25       # its lines
MAX_CHECK_ROWS = 5   # check groups shown; the rest summed up in one row
MAX_SKIP_REASONS = 3
TITLE = "At a glance"


def g3(x):
    """Three significant digits, no exponent for the ranges met here; '-' for None."""
    if x is None:
        return "-"
    a = abs(x)
    return ("%.0f" % x if a >= 100 else "%.1f" % x if a >= 10 else "%.2f" % x if a >= 1 else
            "%.3f" % x if a >= 0.01 else "%.2g" % x)


def _ci(v, key, unit_key, path):
    """'value (lo-hi)' of a plateau point, or '-'; marked with its headline.json path (path +
    '/' + key) for the HTML report's data attributes."""
    if not v:
        return "-"
    lo, hi = v.get("ci_lo_" + unit_key), v.get("ci_hi_" + unit_key)
    text = "%s (%s-%s)" % (g3(v[key]), g3(lo), g3(hi)) if lo is not None and hi is not None \
        else g3(v[key])
    return Marked(text, "%s/%s" % (path, key), v[key])


# A key/value line's text: the screen's 100 columns less the key column ("  machine  ", 11), so a
# cut line is not wrapped onto a line of its own.
LINE_TEXT = 88


def _cut(text, n):
    return text if len(text) <= n else text[:n - 1] + "…"


def _banner(doc, hl):
    em = hl.get("emulated")
    if em:
        doc.p("EMULATED CPU (%s, %s): figures are the emulator's"
              % (em["emulator"], em["evidence"]))
    elif hl.get("virtual_machine"):
        doc.p("virtual machine (hypervisor %s): real CPU, figures include the hypervisor's "
              "overhead" % hl["virtual_machine"])


def _machine(hl):
    m, c = hl["machine"], hl["clock"]
    ident = "/".join(str(m[k]) for k in ("family", "model", "stepping") if m.get(k) is not None)
    cpu = "%s (%s%s)" % (m.get("cpu") or "unknown CPU", m.get("vendor") or "?",
                         " " + ident if ident else "")
    cores = "%s core(s) online" % m["cores_online"] if m.get("cores_online") else "cores unknown"
    mem = ("%s installed" % fbytes(m["memory_installed_bytes"])
           if m.get("memory_installed_bytes") else
           "memory map %s" % fbytes(m["memory_map_bytes"]) if m.get("memory_map_bytes") else None)
    # UEFI: the firmware (its UEFI revision); hosted: the OS ("hosted on Linux ...")
    sw = (m.get("firmware") and "%s%s" % (m["firmware"], " (UEFI %s)" % m["uefi"] if m.get("uefi")
                                          else "") or
          "%s on %s" % (m.get("env") or "", m.get("os") or "-"))
    q = hl.get("qemu") or {}
    # the boot's start to the minute (ISO 2026-11-26T05:47:09Z -> 2026-11-26 05:47Z): the line
    # must fit the screen with the build and QEMU's duration
    started = q.get("started_utc")
    when = ("%s %sZ" % (started[:10], started[11:16]) if started and len(started) >= 16 else
            started or "parsed %s" % (m.get("parsed_utc") or "-")[:10])
    run = "%s %s, build %s, %s" % (m.get("arch"), sw, m.get("build"), when)
    if q:
        run += ", QEMU %s s" % g3(q.get("duration_s"))
    clock = "%s %s (%s%s)" % (c["name"], fhz(c["hz"]) if c.get("hz") else "rate unknown",
                              c.get("source") or "source unknown",
                              {0: ", not invariant", 1: ", invariant"}.get(c.get("invariant"), ""))
    if c.get("hz"):
        clock = Marked(clock, "clock/hz", c["hz"])
    system = [("system", _cut(m["system"], LINE_TEXT))] if m.get("system") else []
    return system + [("machine", _cut(", ".join(x for x in (cpu, cores, mem) if x), LINE_TEXT)),
                     ("run", _cut(run, LINE_TEXT)), ("clock", clock)]


def _us(ns):
    return g3(ns / 1e3) if ns is not None else "-"


def _noise_irq(hl):
    out = []
    n = hl.get("noise")
    if n and n.get("stolen_ns") is not None:
        out.append(("noise", Marked("%s ms stolen in %s s (%s%%), %s gaps, longest %s us" % (
            g3(n["stolen_ns"] / 1e6), g3((n.get("window_ns") or 0) / 1e9),
            g3(100 * (n.get("share") or 0)), n.get("gaps"),
            g3((n.get("longest_ns") or 0) / 1e3)), "noise/stolen_ns", n["stolen_ns"])))
    irq = hl.get("irq_latency") or []
    if irq:
        parts = ["%s %s/%s" % (r["source"], _us(r["median_ns"]), _us(r["p99_ns"])) for r in irq]
        waits = sorted({r["wait"] for r in irq if r.get("wait")})
        out.append(("irq us", _cut("median/p99 (%s): %s" % ("/".join(waits) or "-",
                                                          ", ".join(parts)), 170)))
    return out


def _memory(doc, hl):
    mem = hl.get("memory") or {}
    if not mem.get("measured"):
        doc.p("memory: not measured (no membw or latency sets)")
        return
    rows, notes = [], []
    dram = mem.get("dram")
    paths = ["memory/levels/%d" % i for i in range(len(mem["levels"]))] + ["memory/dram"]
    for path, lv in zip(paths, mem["levels"] + ([dram] if dram else [])):
        if lv["name"] == "DRAM" and not lv.get("measured"):
            notes.append("DRAM not reached: the sweep ends at %s, below %s" % (
                fbytes(lv.get("largest_swept_bytes")), fbytes(lv["range_bytes"][0])))
            continue
        size = fbytes(lv["size_bytes"]) if lv.get("size_bytes") else ">=" + fbytes(
            lv["range_bytes"][0])
        rows.append([lv["name"], size] + [_ci(lv.get(k), "gbps", "gbps", path + "/" + k)
                                          for k in ("read", "write", "copy")]
                    + [_ci(lv.get("latency"), "ns", "ns", path + "/latency")])
    doc.table(["level", "size", "read GB/s (CI95)", "write GB/s", "copy GB/s", "load ns"], rows)
    notes += per_cycle_lines(mem)
    src = mem.get("cache_source") or "CPUID"
    knees = ", ".join("%s %s" % (lv["name"], fbytes(lv["knee_bytes"]) + (
        "" if mem.get("no_verdict") else " " + lv.get("knee_status", "")) if lv.get("knee_bytes")
        else lv.get("knee_status") or "-") for lv in mem["levels"])
    if mem.get("no_verdict"):
        notes.append("knees (the host's, no verdict vs %s): %s" % (src, knees))
    else:
        extra = mem.get("extra_knees_bytes") or []
        notes.append("knees vs %s: %s%s" % (src, knees, "; extra knee(s) at %s" % ", ".join(
            fbytes(k) for k in extra) if extra else ""))
    for n in notes:
        doc.p(_cut(n, WIDTH - 4))


def _ghz(hz):
    return g3(hz / 1e9) if hz else "-"


def per_cycle_lines(mem):
    """Two lines: 'L1d B/cycle: read 63.2 = 0.99 of 2 x 32 B, write ..., copy ... = 0.94 of 64'
    (limits.py's words; 'limit unknown' without a row) and the core clock of those sets with
    DRAM against its SMBIOS peak."""
    l1 = (mem.get("levels") or [None])[0] or {}
    pts = [(k, l1.get(k)) for k in ("read", "write", "copy") if l1.get(k)]
    clk = next((p for _, p in pts if p.get("core_hz")), None)
    name = l1.get("name") or "L1"
    if clk:
        parts = []
        for k, p in pts:
            li = p.get("limit")
            if p.get("bytes_per_cycle") is None:
                parts.append("%s -" % k)
            elif li and li.get("fraction") is not None:
                # the screen's width: "2x32 B" (report.md's Memory section spells it out); "?":
                # not the machine's steady figure, the caution line below says why
                parts.append("%s %s = %.2f%s of %s" % (
                    k, g3(p["bytes_per_cycle"]), li["fraction"],
                    "" if (p.get("sets") or {}).get("ok", True) else "?",
                    li["text"].replace(" x ", "x") if k != "copy" else "%g B" % li["bpc"]))
            else:
                parts.append("%s %s" % (k, g3(p["bytes_per_cycle"])))
        first = "%s B/cycle: %s" % (name, ", ".join(parts))
        if not any(p.get("limit") for _, p in pts):
            first += " (%s)" % limits.UNKNOWN
        second = "core clock %s GHz (%s-%s, %s)" % (
            _ghz(clk["core_hz"]), _ghz(clk.get("core_hz_lo")), _ghz(clk.get("core_hz_hi")),
            clk.get("core_clock_source"))
    else:
        first, second = "%s B/cycle: no core clock for its sets" % name, None
    cautions = [caution_line(name, k, p.get("sets")) for k, p in pts]
    dram = mem.get("dram") or {}
    if dram.get("measured"):
        d = "DRAM " + ("%.2f of SMBIOS peak %s GB/s" % (dram["peak_fraction"], g3(
            dram["peak_gbps"])) if dram.get("peak_fraction") is not None else "peak unknown")
        second = "%s; %s" % (second, d) if second else d
    return [first] + [c for c in cautions if c] + ([second] if second else [])


def caution_line(name, kernel, sets):
    """'L1d read not steady, likely <cause>: <flags>' for a plateau shared_core.judge flagged,
    else None: the first screen must not give a moment's figure as the machine's."""
    if not sets or sets.get("ok", True):
        return None
    why = ("likely %s" % sets["cause"] if sets.get("cause") else
           "an emulator's timing" if sets.get("emulated") else
           "cause unknown (the load reference held)" if sets.get("ref_per_cycle") else
           "cause unknown (no load reference)")
    # the cause first: a line cut at the screen's width keeps it
    return "%s %s not steady, %s: %s" % (name, kernel, why, "; ".join(sets["flags"]))


def _checks(doc, hl, max_rows):
    ch = hl["checks"]
    if not ch["n"]:
        doc.p("checks: none in this run")
        return
    rows = ch["rows"]
    if len(rows) > max_rows:  # the summing-up row takes the last place
        shown, rest = rows[:max_rows - 1], rows[max_rows - 1:]
    else:
        shown, rest = rows, []

    def val(v):
        if isinstance(v, list) and all(isinstance(x, (int, float)) for x in v):
            return "%s..%s" % (g3(v[0]), g3(v[-1]))
        if isinstance(v, list):
            return "%d values" % len(v)
        return g3(v) if isinstance(v, float) else "-" if v is None else str(v)
    table = [[r["name"], r["status"].upper(), Marked(str(r["count"]), "checks/rows/%d/count" % i,
                                                     r["count"]),
              _cut(val(r["expected"]), 22), _cut(val(r["measured"]), 22)]
             for i, r in enumerate(shown)]
    if rest:
        table.append(["%d more check group(s)" % len(rest), ",".join(sorted(
            {r["status"] for r in rest})), str(sum(r["count"] for r in rest)), "", ""])
    doc.table(["check (%d)" % ch["n"], "status", "n", "expected", "measured"], table)


def _skips(hl):
    sk = hl["skips"]
    if not sk["n"]:
        return []
    shown = sk["reasons"][:MAX_SKIP_REASONS]
    more = len(sk["reasons"]) - len(shown)
    text = "; ".join("%dx %s" % (r["count"], _cut(r["reason"], 40)) for r in shown)
    return [("skips", _cut("%d: %s%s" % (sk["n"], text, "; %d more reason(s)" % more
                                         if more else ""), WIDTH - 12))]


def section(doc, hl, status):
    """The first screen into doc, at most MAX_LINES lines (fewer check rows until it fits).
    status: report.status_lines()'s (ok, reasons)."""
    for rows in range(MAX_CHECK_ROWS, 0, -1):
        part = Doc()
        _section(part, hl, status, rows)
        if len(part.text(WIDTH).splitlines()) <= MAX_LINES:
            break
    doc.blocks += part.blocks


def _section(doc, hl, status, check_rows):
    doc.width(WIDTH)
    doc.h(TITLE, 1)
    _banner(doc, hl)
    doc.kv(_machine(hl) + _noise_irq(hl))
    _memory(doc, hl)
    _checks(doc, hl, check_rows)
    ok, reasons = status
    doc.kv(_skips(hl) + [("STATUS", Marked(
        "OK: log complete and valid, firmware status ok" if ok else
        _cut("FAILED: " + "; ".join(reasons), 2 * WIDTH - 24), "status/ok", ok))])
    doc.width(None)


def summary_text(hl, status):
    """The first screen alone, as `report --summary` prints it."""
    doc = Doc()
    section(doc, hl, status)
    return doc.text(WIDTH)


def write_json(path, hl, status):
    """headline.json: the dict with the status added."""
    ok, reasons = status
    with open(path, "w") as fh:
        json.dump(dict(hl, status={"ok": ok, "reasons": reasons}), fh, indent=1)
        fh.write("\n")


def compute(summary, out_dir=None, results=None, run=None):
    """analysis/headline.compute with the report's memory and irq results when it has them."""
    results = results or {}
    run_path = os.path.join(out_dir, "run.json") if out_dir and run is None else None
    if run_path and os.path.exists(run_path):
        with open(run_path) as fh:
            run = json.load(fh)
    return headline_analysis.compute(summary, out_dir, mem=results.get("memory"),
                                     irq_res=results.get("irq"), run=run)
