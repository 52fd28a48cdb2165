"""The report's clock section: on x86_64 the TSC calibration (the chosen rate, the rates the
firmware was told, and every calibration window per source with the sources' disagreement), on
AArch64 the generic timer at CNTFRQ_EL0.
"""

from .doc import fhz, fnum, num
from .. import stats
from ..analysis import archinfo

NAME = "tsc"


def analyse(summary, out_dir=None):
    """{"platform": the platform records, "arch": the run's architecture}."""
    return {"platform": summary.get("platform") or {}, "arch": archinfo.arch(summary)}


def _generic_timer(doc, plat):
    """AArch64: the clock is CNTVCT_EL0 at CNTFRQ_EL0 as the firmware programmed it (plat
    kind=tsc source=cntfrq), not measured against another clock; no TSC, no calibration."""
    doc.h(archinfo.clock(archinfo.A64)["title"])
    tsc = plat.get("tsc")
    if not tsc:
        doc.p("no clock summary record (plat kind=tsc)")
        return
    hz = num(tsc.get("hz"))
    doc.kv([("frequency", "%s from %s%s" % (
                "%.6f MHz" % (hz / 1e6) if hz else fnum(tsc.get("hz")), fnum(tsc.get("source")),
                " (CNTFRQ_EL0 as the firmware programmed it, not measured against another clock)"
                if tsc.get("source") == "cntfrq" else "")),
            ("tick", "%s ns" % fnum(1e9 / hz) if hz else "-"),
            ("constant rate", "yes (the generic timer's, by architecture)"
             if tsc.get("invariant") == 1 else fnum(tsc.get("invariant")))])
    doc.p("counter ticks throughout: every cycle count below is generic-timer ticks, except "
          "the sets with unit=pmu_cycles (PMCCNTR_EL0 counts)")


def section(doc, res, out_dir=None, plots=None):
    """TSC calibration (x86_64) or the generic timer (AArch64)."""
    plat, arch = res["platform"], res["arch"]
    if arch == archinfo.A64:
        _generic_timer(doc, plat)
        return
    doc.h("TSC calibration")
    tsc, wins = plat.get("tsc"), plat.get("tsc_cal") or []
    if tsc:
        pm_hz = tsc.get("hz_pm", tsc.get("hz_pm_timer"))
        doc.kv([("chosen", "%s from %s (invariant: %s)" % (fhz(tsc.get("hz")),
                                                          fnum(tsc.get("source")),
                                                          fnum(tsc.get("invariant")))),
                ("pm timer", fhz(pm_hz) if pm_hz else "unavailable"),
                ("hpet", fhz(tsc.get("hz_hpet")) if tsc.get("hz_hpet") else "unavailable"),
                ("cpuid 0x15 / 0x16", "%s / %s" % (fhz(tsc.get("hz_cpuid15")) if
                                                    tsc.get("hz_cpuid15") else "not given",
                                                    fhz(tsc.get("hz_cpuid16")) if
                                                    tsc.get("hz_cpuid16") else "not given")),
                ("firmware disagreement", "%s ppm" % fnum(tsc.get("disagree_ppm")))]
               if "hz_cpuid15" in tsc or "hz_cpuid16" in tsc else
               [("chosen", "%s from %s (invariant: %s)" % (fhz(tsc.get("hz")),
                                                          fnum(tsc.get("source")),
                                                          fnum(tsc.get("invariant"))))])
    else:
        doc.p("no tsc summary record")
    by_src, failed = {}, 0
    for w in wins:
        if w.get("ok", 1) != 1:  # a window the firmware itself marked unusable
            failed += 1
        elif (num(w.get("hz")) or 0) > 0:
            by_src.setdefault(str(w.get("source", "?")), []).append(w["hz"])
    if failed:
        doc.p("%d calibration window(s) marked failed by the firmware (not used below)" % failed)
    if by_src:
        rows, medians = [], {}
        for src, hzs in by_src.items():
            med = stats.median(hzs)
            medians[src] = med
            rows.append([src, len(hzs), fhz(med), fhz(min(hzs)), fhz(max(hzs)),
                         (max(hzs) - min(hzs)) / med * 1e6])
        doc.table(["source", "windows", "median", "min", "max", "spread ppm"], rows)
        srcs = sorted(medians)
        pairs = [("%s vs %s" % (a, b),
                  "%s ppm" % fnum((medians[a] - medians[b]) / medians[b] * 1e6))
                 for i, a in enumerate(srcs) for b in srcs[i + 1:]]
        doc.kv(pairs or [("between sources", "only one source calibrated")])
    else:
        doc.p("no calibration windows reported")
