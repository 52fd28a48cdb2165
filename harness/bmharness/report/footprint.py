"""The cache-footprint part of the report's Interrupts section (probe irq_footprint), from
analysis/footprint.py's levels: the method, the calibration curve, the held-out checks and the
interrupt's own footprint read back through the curve, a level at a time.
"""

from .doc import fnum
from ..analysis.footprint import from_milli


def _pm(v, ci):
    if v is None:
        return "-"
    return "%s ± %s" % (fnum(v), fnum(ci)) if ci is not None else fnum(v)


def section(doc, fp):
    """Render the footprint part (a level at a time)."""
    if not fp or not fp["levels"]:
        return
    doc.h("Cache footprint of one interrupt", 3)
    doc.p("Schaelicke et al.: fill the level with a pointer chain, run the handler, re-touch every line "
          "in the REVERSE order of the fill and convert the extra time to lines by the level's per-line "
          "miss cost. Calibration: a direct call of a handler touching K lines (random order, own buffer) "
          "over a grid of K gives the response curve; measured interrupt footprints are read back "
          "through it (K with CI), only inside its calibrated range [valid_min, valid_max] (beyond: "
          "saturated; below: below_range). Held-out K must come back within ±20% (checks footprint_k). "
          "Each series repeats until the 95% CI of the trimmed mean is within 5% of the mean or its "
          "time bound (irq_fp_ms); each repetition keeps the fastest of 3 rounds. The measure of a "
          "re-touch is the level's miss count where the PMU counts it (method=pmu: one miss is one "
          "line; demand-only events where the CPU has them, else the general miss event, which also "
          "counts prefetches), its time otherwise (method=time: cycles / per-line miss cost). Hardware "
          "prefetchers are left as found (on after reset; neither read nor changed): lines they pull "
          "in are part of what the curve absorbs.")
    for lv in fp["levels"]:
        name = "L%s %s" % (lv["level"], lv["type"])
        if lv.get("method") == "pmu":
            measure = "measure: PMU misses, event %s (%s), %s, cold re-touch %s misses/line" % (
                lv.get("event"), lv.get("vendor_event") or "-",
                "demand-only" if lv.get("demand_only") else "may count prefetches", fnum(lv.get("cold_mpl")))
        else:
            measure = "measure: time, miss cost %s cycles/line%s" % (
                fnum(lv["cost"]), " (miss counter: %s)" % lv["ctr_skip"] if lv.get("ctr_skip") else "")
        doc.kv([(name, "%s lines in the chain, %s; calibrated range K = %s..%s, "
                 "saturates at %s; %s repetitions%s" % (
                     fnum(lv["nodes"]), measure, fnum(lv["valid_min"]), fnum(lv["valid_max"]),
                     fnum(lv["sat_k"]) if lv["sat_k"] else "none on the grid", fnum(lv.get("reps")),
                     "" if lv.get("converged") else " (time bound reached before the CI bound)"))])
        if lv["no_effect"]:
            doc.p("%s: checks skipped — %s" % (name, lv["no_effect"]))
        if lv["curve"]:
            doc.table(["K (direct call)", "measured lines ± CI", "measured/K", "in range"],
                      [[r["k"], _pm(r["lines"], r["ci"]), fnum(r.get("ratio")),
                        "yes" if lv["valid_min"] is not None and r["k"] and
                        lv["valid_min"] <= r["k"] <= (lv["valid_max"] or 0) else "no"] for r in lv["curve"]])
        if lv["checks"]:
            doc.table(["held-out K", "status", "recovered K", "CI", "raw lines ± CI", "converged"],
                      [[c.get("k"), c.get("status"), c.get("measured"),
                        "%s..%s" % (c.get("ci_low"), c.get("ci_high")) if c.get("ci_low") is not None else "-",
                        _pm(from_milli(c.get("raw_mlines")), from_milli(c.get("raw_ci_mlines"))),
                        "yes" if c.get("converged") else "no"] for c in lv["checks"]])
        if lv["irq"]:
            rows = []
            for r in lv["irq"]:
                if r["variant"] == "idle":
                    continue
                cal = r["cal_status"]
                kcol = ("%s (%s..%s)" % (fnum(r["k_est"]), fnum(r["k_lo"]), fnum(r["k_hi"]))
                        if cal == "ok" else cal)
                rows.append([r["experiment"], r["variant"], r["k"], r["vs"], _pm(r["lines"], r["ci"]),
                             kcol, fnum(r["k_total"]), "%s..%s" % (fnum(r["valid_min"]), fnum(r["valid_max"])),
                             r["reps"], "yes" if r["converged"] else "no", r["not_pending"]])
            doc.table(["experiment", "variant", "handler K", "vs", "raw lines ± CI", "calibrated K (CI)",
                       "K total (kn)", "range", "reps", "converged", "not pending"], rows)
    if fp["irq_skip"]:
        doc.p("interrupt measurements skipped: %s" % fp["irq_skip"])
    else:
        doc.p("k0 vs idle: the footprint of the interrupt's delivery, entry and exit (handler touching "
              "nothing; in the hosted build a signal, whose kernel entry may flush the TLB under "
              "page-table isolation: that cost is in this number, not in the handler estimates); kn: "
              "the known handler's K read back on top of the delivery's, K(kn vs idle) - K(k0 vs idle), "
              "next to its true K (the curve comes from direct calls: an interrupt path need not add "
              "up the same way).")
