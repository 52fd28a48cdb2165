"""The report's Interrupts section, from analysis/irq.py's result: the latency table (irq_lat.py),
the masked window, exception round trips, handler cost by displacement (displace.py), the cache
footprint (footprint.py), platform noise and the interrupt plots (irq_plots.py).
"""

import os

from . import displace, footprint, irq_lat, irq_plots
from .doc import fnum, ns, num
from ..analysis import archinfo
from ..analysis.irq import analyse

NAME = "irq"
__all__ = ("NAME", "analyse", "draw", "section")


def draw(res, out_dir, stamp=None):
    """The interrupt plots (irq_plots.draw): {"files": [(name, path, caption)], "error"}."""
    return irq_plots.draw(res, out_dir, stamp)


PERCENTILES = (("min", 0), ("median", 50), ("p99", 99), ("p99.9", 99.9), ("max", 100))


def section(doc, irq, out_dir, plot_info=None):
    """The report's Interrupts section (nothing when the run had no interrupt probe)."""
    if not any(irq[k] for k in ("latency", "masked", "exceptions", "displace", "noise", "skips")) and \
            not (irq["footprint"] or {}).get("levels"):
        return
    doc.h("Interrupts")
    unit = archinfo.clock(irq.get("arch", archinfo.X86))["unit"]  # cycles, or counter ticks
    apic = irq.get("apic")
    if isinstance(apic, dict):
        deadline = "yes" if apic.get("tsc_deadline") else "no"
        if apic.get("tsc_deadline_refused"):  # reported by CPUID, but on Linux's errata list
            deadline = "reported but refused (%s)" % apic["tsc_deadline_refused"]
        doc.kv([("local APIC", "%s, timer %s Hz calibrated against the TSC, TSC-deadline %s" % (
            apic.get("mode", "?"), fnum(apic.get("timer_hz")), deadline))])
    if irq["latency"]:
        doc.h("Latency", 3)
        irq_lat.table(doc, irq["latency"], irq.get("arch", archinfo.X86))
    for m in irq["masked"]:
        doc.kv([("masked window", "interrupt armed while masked: taken during the masked window %s, "
                 "after unmask %s (%s %s after the unmask), masked samples %s/%s complete" % (
                     fnum(m.get("taken_masked")), fnum(m.get("taken_after_unmask")),
                     fnum(m.get("after_unmask_cycles")), unit, fnum(m.get("received")), fnum(m.get("n"))))])
    if irq["exceptions"]:
        doc.h("Exception round trip", 3)
        doc.table(["kind", "N", "min ns", "median", "p99", "p99.9", "max", "median " + unit],
                  [[e["kind"], e["n"]] + [fnum(ns(e[k], e["hz"])) for k, _ in PERCENTILES] +
                   [fnum(e["median"])] for e in irq["exceptions"]])
    if irq["displace"]:
        displace.section(doc, irq["displace"], irq.get("displace_checks"))
    footprint.section(doc, irq["footprint"])
    nz = irq["noise"]
    if nz:
        hz = nz["hz"]
        doc.h("Platform noise", 3)
        doc.kv([("gaps", "%s over %s s (threshold %s %s = %s ns; hwlat's default: %s ns; loop step median "
                          "%s %s, p90 %s)" % (
            fnum(nz["count"]), fnum(nz["window_cycles"] / hz if hz else None), fnum(nz["threshold_cycles"]),
            unit, fnum(nz.get("threshold_ns")), fnum(nz.get("hwlat_ns")), fnum(nz["median_step"]), unit,
            fnum(nz.get("p90_step")))),
            ("stolen", "%s ms total (%s of the window), longest gap %s us" % (
                fnum(ns(nz["total_cycles"], hz) / 1e6 if hz else None),
                "%.3f%%" % (100 * nz["share"]) if nz["share"] is not None else "-",
                fnum(ns(num(nz["longest_cycles"]), hz) / 1e3 if hz and nz["longest_cycles"] is not None
                     else None))),
            ("interrupts masked", fnum(bool(nz["masked"])))])
        if irq.get("arch", archinfo.X86) == archinfo.X86:  # no SMI count elsewhere
            doc.kv([("SMIs", "%s%s%s" % (fnum(nz["smi"]), "" if nz.get("smi_gaps") is None else
                                 ", gaps with an SMI: %d of %d stored" % (nz["smi_gaps"], len(nz["lens"])),
                                 " (%s)" % nz["smi_note"] if nz.get("smi_note") else ""))])
    for name, path, caption in (plot_info or {}).get("files", []):
        doc.img(os.path.relpath(path, out_dir), caption)
    if (plot_info or {}).get("error"):
        doc.p("plots: %s" % plot_info["error"])
    if irq["skips"]:
        doc.list("skipped %s%s: %s" % (k.get("probe"), " (%s)" % k["source"] if k.get("source") else "",
                                       k.get("reason")) for k in irq["skips"])
