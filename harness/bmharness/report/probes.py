"""The report's Probes section: one row per set of the probes without a section of their own
(cycles per operation with CI, p1/p99 and the bimodality verdict, then the same in ns), and a note
per set; the memory and interrupt sets are only counted, their sections show them.
"""

from .doc import fnum, ns, num
from ..analysis import archinfo, irq, memory

NAME = "probes"


def analyse(summary, out_dir=None):
    """{"sets", "tsc_hz" (plat kind=tsc), "clock" (archinfo.clock)}."""
    return {"sets": summary.get("sets") or [],
            "tsc_hz": ((summary.get("platform") or {}).get("tsc") or {}).get("hz"),
            "clock": archinfo.clock(summary)}


def section(doc, res, out_dir=None, plots=None):
    """The per-set tables (cycles and ns per operation) and notes; the sets of the Memory,
    Multi-core and Interrupts sections are only counted here."""
    sets, tsc_hz, clk = res["sets"], res["tsc_hz"], res["clock"]
    doc.h("Probes")
    if not sets:
        doc.p("no probe sets")
        return
    mem = {}
    for s in sets:
        if s.get("name") in memory.SECTION_PROBES + irq.SECTION_PROBES:
            mem[s["name"]] = mem.get(s["name"], 0) + 1
    for where, names in (("Memory", memory.PROBES), ("Multi-core bandwidth", ("membw_mc",)),
                         ("Interrupts", irq.SECTION_PROBES)):
        here = ["%d %s set(s)" % (n, name) for name, n in sorted(mem.items()) if name in names]
        if here:
            doc.p("%s: in the %s section" % (", ".join(here), where))
    if mem:
        sets = [s for s in sets if s.get("name") not in memory.SECTION_PROBES + irq.SECTION_PROBES]
        if not sets:
            return
    rows_c, rows_ns, notes = [], [], []
    for s in sets:
        st = (s.get("stats") or {}).get("per_op") or {}
        hz = num(s.get("tsc_hz")) or num(tsc_hz)
        if s.get("unit") == "pmu_cycles":  # AArch64 PMCCNTR_EL0 counts: no known rate, no ns
            hz = None
        params = " ".join("%s=%s" % kv for kv in (s.get("params") or {}).items())
        recv = "%s/%s" % (s.get("received"), fnum(s.get("n")))
        ci = "±%s" % fnum(st.get("ci95_half")) if st.get("ci95_half") is not None else "-"
        rel = "%.1f%%" % (100 * st["ci95_rel"]) if st.get("ci95_rel") is not None else "-"
        rows_c.append([s.get("set"), s.get("name"), params or "-", recv, s.get("iters"),
                       st.get("min"), st.get("median"), st.get("trimmed_mean"), st.get("mean"),
                       ci, rel, st.get("stddev"), st.get("p1"), st.get("p99"), st.get("max"),
                       "YES" if st.get("bimodal") else "no"])
        rows_ns.append([s.get("set"), s.get("name"), params or "-"] +
                       [ns(st.get(k), hz) for k in ("min", "median", "trimmed_mean", "mean")] +
                       ["±%s" % fnum(ns(st.get("ci95_half"), hz)) if st.get("ci95_half")
                        is not None else "-"] +
                       [ns(st.get(k), hz) for k in ("p99", "max")])
        note = "set %s %s: " % (s.get("set"), s.get("name"))
        if st.get("n", 0) == 0:
            note += st.get("note", "no samples")
        else:
            note += st.get("bimodal_explanation", "")
            note += "; CI within 5%% of mean: %s" % fnum(st.get("ci_within_5pct"))
            if (s.get("stats") or {}).get("negative"):
                note += "; %d values below the timer overhead" % s["stats"]["negative"]
        if not s.get("complete"):
            note += "; INCOMPLETE: " + "; ".join(s.get("problems") or ["samples missing"])
        notes.append(note)
    doc.p("%s per operation ((sample - overhead) / iters%s); CI = 95%% Student t; p1/p99 only "
          "from N >= 100 (fewer samples do not reach a 1%% tail: '-')" % (
              clk["unit"], "; generic timer CNTVCT_EL0, PMCCNTR_EL0 counts for unit=pmu_cycles "
              "sets" if clk is archinfo.CLOCKS[archinfo.A64] else ""))
    doc.table(["set", "probe", "params", "N", "iters", "min", "median", "tmean10", "mean",
               "ci95", "ci/mean", "sd", "p1", "p99", "max", "bimodal"], rows_c)
    if any(num(s.get("tsc_hz")) for s in sets) or num(tsc_hz):
        doc.p("nanoseconds per operation (%s / %s%s)" % (
            clk["short"], clk["hz"], "; none for pmu_cycles sets: no known rate"
            if any(s.get("unit") == "pmu_cycles" for s in sets) else ""))
        doc.table(["set", "probe", "params", "min", "median", "tmean10", "mean", "ci95", "p99",
                   "max"], rows_ns)
    else:
        doc.p("nanoseconds: unknown (no %s frequency)" % clk["hz_source"])
    doc.list(notes)
