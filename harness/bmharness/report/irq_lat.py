"""The interrupt latency table (the Latency part of the report's Interrupts section), from the rows
of analysis/irq.py (irq_lat.latency_summary per set, and the set's params): entry - deadline in ns
with the order-statistic CIs, the deadline's stated uncertainty, early arrivals within it, the
armed/taken/lost counts and, on x86_64, SMIs and the effective frequency.
"""

from .doc import fnum, ns, num
from ..analysis import archinfo


def ci_text(value, ci, hz):
    """'36.1 [35.2, 37.0]' in ns; '?' for a side the sample cannot bound."""
    if value is None:
        return "-"
    if not ci:
        return fnum(ns(value, hz))
    side = [fnum(ns(ci[k], hz)) if ci.get(k) is not None else "?" for k in ("lo", "hi")]
    return "%s [%s, %s]" % (fnum(ns(value, hz)), side[0], side[1])


def _early_text(p):
    if "early_quantised" in p:
        return "%s (<1 tick)" % fnum(p.get("early_quantised"))
    if "early_within_uncertainty" in p:
        return "%s (<unc)" % fnum(p.get("early_within_uncertainty"))
    if "invalid_negative" in p:
        return "%s invalid<0" % fnum(p.get("invalid_negative"))
    return "-"


def _unc_text(p, hz):
    if "uncertainty_median" in p:
        return "+-%s/%s" % (fnum(ns(num(p.get("uncertainty_median")), hz)),
                            fnum(ns(num(p.get("uncertainty_max")), hz)))
    if "tick_cycles" in p:
        tick = ns(num(p.get("tick_cycles")), hz)
        # a zero tick (AArch64 cntv_oneshot: the compare value is the deadline) has no sign
        return fnum(0.0) if tick == 0 else "-%s" % fnum(tick)
    return "0" if p.get("deadline") == "tsc_deadline" else "-"


def _smi_text(p):
    if "smi_count" in p:
        return fnum(p.get("smi_count"))
    return "n/a" if "smi" in p else "-"


def _freq_text(p):
    hz = num(p.get("eff_hz"))
    if hz:
        return "%.3f GHz" % (hz / 1e9)
    return "n/a" if "eff_freq" in p else "-"


UNCERTAINTY_X86 = ("(HPET: TSC-bracketed counter read, half-width + one HPET period; periodic: "
                   "bracketed count read + one tick; '-t': APIC one-shot, due up to one tick before "
                   "the deadline)")


UNCERTAINTY_A64 = ("(cntv_oneshot: 0, the compare value is the deadline in the clock the entry "
                   "stamp reads; sgi_self: 0, the counter read just before the send)")


def table(doc, rows, arch=archinfo.X86):
    """The latency table; rows are irq.analyse()'s latency entries (params in r["params"]).
    Off x86_64 there are no SMI counts and no APERF/MPERF: those columns are left out."""
    x86 = arch == archinfo.X86
    clk = archinfo.clock(arch)
    doc.p("entry - deadline in ns (%s at %s). median and p99 with a distribution-free 95%% "
          "CI from order statistics ('?': the sample is too small to bound that side; the p99's upper "
          "side needs N >= 368); p99.9 only where N x 0.001 >= 10. deadline +-: the deadline's stated "
          "uncertainty, median/max over the set %s. early: arrivals before the deadline but within that bound - quantisation, "
          "kept out of the samples and out of the failures. armed/taken/lost/early/extra/spurious: every "
          "armed interrupt must be taken exactly once. trunc: the set hit irq_set_ms before N samples."
          % (clk["unit"], clk["rate"], UNCERTAINTY_X86 if x86 else UNCERTAINTY_A64))
    out = []
    for r in rows:
        p, hz = r["params"], r["hz"]
        out.append([r["source"], r["mode"], r["wait"], r["n"], fnum(ns(r["min"], hz)),
                    ci_text(r["median"], r.get("median_ci"), hz),
                    ci_text(r["p99"], r.get("p99_ci"), hz),
                    fnum(ns(r.get("p99.9"), hz)) if r.get("p99.9") is not None else "n<10000",
                    fnum(ns(r["max"], hz)),
                    "%s/%s/%s/%s/%s/%s" % tuple(fnum(p.get(k)) for k in (
                        "armed", "taken", "lost", "early", "extra", "spurious")),
                    _early_text(p), _unc_text(p, hz),
                    fnum(bool(p.get("truncated_by_time")))]
                   + ([_smi_text(p), _freq_text(p)] if x86 else []) + [r["deadline"]])
    doc.table(["source", "mode", "wait", "N", "min ns", "median [95% CI]", "p99 [95% CI]", "p99.9", "max",
               "armed/taken/lost/early/extra/spur", "early ok", "deadline +- ns", "trunc"]
              + (["SMIs", "eff freq"] if x86 else []) + ["deadline"], out)
