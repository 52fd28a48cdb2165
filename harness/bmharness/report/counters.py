"""The report's Counters section, from analysis/counters.py's result: the PMU's status, the
counter checks, the cost of the counters themselves, and per set IPC, misses, effective frequency
and energy per byte (the last two on x86_64 only), with the samples flagged as wrapped or below
the overhead.
"""

from ..analysis import archinfo, counters
from ..analysis.counters import analyse

NAME = "counters"
__all__ = ("NAME", "analyse", "section")


def _fmt(x, digits=3):
    if x is None:
        return "-"
    if isinstance(x, float):
        return "%.*g" % (digits, x)
    return str(x)


def section(doc, an, out_dir=None, plots=None):
    """The report's Counters section."""
    doc.h("Counters")
    doc.kv([("PMU", an["status"])])
    for c in an["checks"]:
        doc.p("check %s: %s (expected %s, measured %s, counter overhead %s, tolerance %s)" % (
            c.get("name"), str(c.get("status")).upper(), c.get("expected"), c.get("measured"),
            c.get("overhead"), c.get("tolerance")))
    for k in an["skipped_checks"]:
        doc.p("%s skipped: %s" % (k.get("probe"), k.get("reason")))
    if an["cost"]:
        rows = []
        for s in an["cost"]:
            p = s.get("params") or {}
            st = (s.get("stats") or {}).get("per_op") or {}
            extra = ", ".join("%s %s" % (k, _fmt(v.get("overhead"))) for k, v in
                              ((s.get("counters") or {}).get("events") or {}).items())
            rows.append([p.get("op"), p.get("level", "-"), p.get("after", "-"), _fmt(st.get("median")),
                         extra or "-"])
        clk = archinfo.clock(an["arch"])
        doc.p("cost of the counters themselves (Schaelicke Table 2): %s per operation, and the "
              "counter overhead each read adds" % clk["unit"])
        doc.table(["op", "level", "after", "%s/op (median)" % clk["short"],
                   "counter overhead per read"], rows)
    if not an["sets"]:
        doc.p("no counter values in this run")
        return
    rows = []
    x86 = an["arch"] == archinfo.X86  # APERF/MPERF and RAPL exist on x86_64 only
    for f in an["sets"][:60]:
        mk = f.get("misses_per_kib") or f.get("misses_per_load") or {}
        rows.append([f["set"], f["name"], f.get("ctr_set"), f.get("passes"), _fmt(f.get("ipc")),
                     ", ".join("%s %s" % (k, _fmt(v)) for k, v in mk.items()) or "-"]
                    + ([_fmt(f["eff_hz"] / 1e9 if f.get("eff_hz") else None),
                        ", ".join("%s %s" % (k, _fmt(v)) for k, v in (f.get("nj_per_byte") or {}).items())
                        or ("per core: see cpu=all" if f.get("energy_note") else "-")]
                       if x86 else []))
    if x86:
        doc.p("per set: IPC, misses per KiB moved (bandwidth) or per load (latency), effective GHz "
              "(APERF/MPERF), nJ per byte (RAPL); counter overhead subtracted")
    else:
        doc.p("per set: IPC, misses per KiB moved (bandwidth) or per load (latency) from the "
              "PMUv3 event counters; counter overhead subtracted (no APERF/MPERF or RAPL on %s)"
              % an["arch"])
    doc.table(["set", "probe", "ctr set", "passes", "IPC", "misses"]
              + (["eff GHz", "nJ/B"] if x86 else []), rows)
    if any(f.get("energy_note") for f in an["sets"]):
        doc.p("nJ/B %s" % counters.PER_CORE_ENERGY_NOTE)
    flagged = ["set %s %s: %s" % (f["set"], name, ", ".join(
        "%d %s" % (n, "wrapped (>= 2^63, excluded)" if k == "wrapped" else
                   "below the overhead (clamped at 0 in medians, unclamped in energy means)")
        for k, n in x.items() if n))
        for f in an["sets"] for name, x in f.get("excluded", {}).items()]
    if flagged:
        doc.p("flagged counter samples: " + "; ".join(flagged[:20])
              + (" (%d more)" % (len(flagged) - 20) if len(flagged) > 20 else ""))
    if len(an["sets"]) > 60:
        doc.p("(%d more sets in summary.json)" % (len(an["sets"]) - 60))
