"""The displacement table of the report's Interrupts section (handler cost: displacement vs direct,
per handler of known work), from analysis/displace.py's rows and the probe's check records.
"""

from .doc import fnum
from ..analysis.displace import constant_check


def _ci(t):
    v, lo, hi = t
    return "%s [%s, %s]" % (fnum(v), fnum(lo), fnum(hi)) if v is not None else "-"


def section(doc, rws, checks):
    """The displacement table (inside the report's Interrupts section)."""
    doc.h("Handler cost: displacement vs direct", 3)
    doc.p("Handlers of known work (irq_disp_work, cycles of arch_spin). Per interrupt: displacement = "
          "the excess of the fluid chunk the interrupt landed in over the nominal chunk; direct = its "
          "entry..exit stamps; delivery = displacement - direct, paired interrupt by interrupt (median "
          "and lower quartile, 95% order-statistic CI; the quartile's CIs are simultaneous over the "
          "handlers). Per window (Woodside): each loaded window against its own calibration window, "
          "background gaps taken out; delivery median [CI] and mean +- the standard error of the paired "
          "window differences (the mean carries any window where the hypervisor struck at an interrupt). e_res: measured clock resolution / interrupts per window. Cycles.")
    table = []
    for r in rws:
        c = r["check"] or {}
        table.append([fnum(r["work"]), fnum(r["interrupts"]), fnum(r["displacement"]), fnum(r["direct"]),
                      _ci(r["delivery"]),
                      # the firmware's (simultaneous over the handlers: what delivery_constant judged)
                      _ci((c["delivery_q25"], c.get("delivery_q25_ci_low"), c.get("delivery_q25_ci_high"))
                          if "delivery_q25" in c else r["delivery_q25"]),
                      _ci((c.get("win_delivery"), c.get("win_delivery_ci_low"), c.get("win_delivery_ci_high"))),
                      "%s +- %s" % (fnum(r["win_delivery_mean"]), fnum(r["win_delivery_se"])),
                      fnum(r["e_res"]), fnum(r["gaps_per_window"]),
                      fnum(r["smi_per_window"]) if r["smi_per_window"] is not None else
                      "unavailable (%s)" % (r["smi_note"] or "?"), c.get("status", "-")])
    doc.table(["work", "interrupts", "displacement", "direct", "delivery median [CI]", "delivery q25 [CI]",
               "window delivery median [CI]", "window delivery mean +- SE", "e_res", "background cycles/window pair", "SMIs/window", "check"], table)
    units = units_note(rws)
    if units:
        doc.p(units)
    k = constant_check(checks)
    if k:
        doc.kv([("delivery constant across work", "%s (lower quartiles %s..%s; CIs meet: max low %s <= min "
                 "high %s)" % (k.get("status"), fnum(k.get("q25_min")), fnum(k.get("q25_max")),
                               fnum(k.get("max_ci_low")), fnum(k.get("min_ci_high"))))])


def units_note(rws):
    """Where work and results are in different clocks (AArch64: work_unit, time_unit), say which;
    None where both are the build's cycles (x86_64: the records carry no unit fields)."""
    r = next((r for r in rws if r.get("work_unit")), None)
    if not r:
        return None
    hz = r.get("hz")
    note = "Units: work in %s, every other column in %s%s (work_ticks: the work in that clock, by the " \
           "two rates of the same spin)." % (r["work_unit"], r["time_unit"] or "?",
                                             " of the %.4g MHz counter" % (hz / 1e6) if hz else "")
    if r.get("work_clock"):
        note += " " + r["work_clock"] + "."
    return note
