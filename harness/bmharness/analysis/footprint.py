"""The cache-footprint part of the Interrupts report (probe irq_footprint: Schaelicke et al.'s
experiment, calibrated on the machine against handlers of known footprint).

The firmware does the arithmetic (integer, milli-units) and states it in its records: per level a
`cold` set (per-line miss cost, calibrated range, saturation), `calib` sets (the response curve:
measured lines for each K of the grid, direct calls), `heldout` sets with their `footprint_k`
checks, and `irq` sets (basic / refined experiment, variants idle / k0 / kn) carrying raw lines and
the K recovered through the curve. `analyse(summary)` gathers them per level; `section(doc, ...)`
renders the tables. Nothing is recomputed from the raw samples here, so the report shows exactly
what the checks judged."""

M = 1000.0  # the firmware's milli-units


def _m(v):
    return v / M if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _level(levels, p):
    key = (p.get("level"), p.get("type"))
    return levels.setdefault(key, {"level": key[0], "type": key[1], "nodes": p.get("nodes"), "curve": [],
                                  "heldout": [], "checks": [], "irq": [], "no_effect": None,
                                  "cost": None, "valid_min": None, "valid_max": None, "sat_k": None})


def analyse(summary):
    """[{level, type, nodes, cost (cycles per line; method=time), method (pmu|time), event,
    demand_only, cold_mpl (misses per line of a cold re-touch; method=pmu), ctr_skip (why the miss
    counter did not count, or None), effect, valid_min, valid_max, sat_k, reps, converged,
    curve: [{k, lines, ci, ratio}], heldout, checks, irq: [...], no_effect}], plus the reason the
    interrupt part was skipped (or None)."""
    levels = {}
    for s in summary.get("sets") or []:
        if s.get("name") != "irq_footprint":
            continue
        p = s.get("params") or {}
        what = p.get("what")
        if what not in ("cold", "calib", "heldout", "irq"):
            continue
        lv = _level(levels, p)
        row = {"k": p.get("k"), "lines": _m(p.get("mlines")), "ci": _m(p.get("ci_mlines")),
               "reps": p.get("reps"), "converged": p.get("converged"), "set": s.get("set")}
        if what == "cold":
            lv.update(cost=_m(p.get("cost_mcyc")), effect=p.get("effect"), valid_min=p.get("valid_min"),
                      valid_max=p.get("valid_max"), sat_k=p.get("sat_k"), reps=p.get("reps"),
                      converged=p.get("converged"), retouch=p.get("retouch"), method=p.get("method"),
                      prefetchers=p.get("prefetchers"), prefetchers_changed=p.get("prefetchers_changed"),
                      event=p.get("event"), vendor_event=p.get("vendor_event"),
                      demand_only=p.get("demand_only"), cold_mpl=_m(p.get("cold_mpl_milli")),
                      ctr_skipped=p.get("ctr_skipped"), ctr_set=p.get("ctr_set"))
        elif what == "calib":
            row["ratio"] = _m(p.get("ratio_milli"))
            lv["curve"].append(row)
        elif what == "heldout":
            lv["heldout"].append(row)
        else:
            row.update(experiment=p.get("experiment"), variant=p.get("variant"), vs=p.get("vs"),
                       handler_lines=_m(p.get("handler_mlines")), handler_ci=_m(p.get("handler_ci_mlines")),
                       k_total=_m(p.get("k_total_milli")),
                       cal_status=p.get("cal_status"), k_est=_m(p.get("k_est_milli")),
                       k_lo=_m(p.get("k_ci_low_milli")), k_hi=_m(p.get("k_ci_high_milli")),
                       valid_min=p.get("valid_min"), valid_max=p.get("valid_max"), source=p.get("source"),
                       not_pending=p.get("not_pending"), not_taken=p.get("not_taken"))
            lv["irq"].append(row)
    for c in summary.get("checks") or []:
        if c.get("name") == "footprint_k":
            _level(levels, c)["checks"].append(c)
    irq_skip = None
    ctr_skips = {}
    for k in summary.get("skips") or []:
        if k.get("probe") != "irq_footprint":
            continue
        if k.get("ctr_set"):  # the miss counter of a level's set could not count (once per reason)
            ctr_skips.setdefault(k["ctr_set"], k.get("reason"))
        elif k.get("check") == "footprint_k":
            for lv in levels.values():
                if lv["level"] == k.get("level") and k.get("type", lv["type"]) == lv["type"]:
                    lv["no_effect"] = k.get("reason")
        elif k.get("part") == "interrupt":
            irq_skip = k.get("reason")
    out = sorted(levels.values(), key=lambda lv: (lv["level"] or 0, str(lv["type"])))
    for lv in out:
        # timed although counters were asked for: not readable here (ctr_skipped) or refused (ctr_set)
        lv["ctr_skip"] = (ctr_skips.get(lv.get("ctr_skipped") or lv.get("ctr_set"))
                          if lv.get("method") != "pmu" else None)
        lv["curve"].sort(key=lambda r: r["k"] or 0)
        lv["heldout"].sort(key=lambda r: r["k"] or 0)
        lv["checks"].sort(key=lambda c: c.get("k") or 0)
    return {"levels": out, "irq_skip": irq_skip}


def delivery(lv, experiment):
    """The interrupt's own footprint (k0 vs idle: delivery, entry and exit with a handler that
    touches nothing) of one experiment at a level, or None."""
    for r in lv["irq"]:
        if r["experiment"] == experiment and r["variant"] == "k0":
            return r
    return None


def _pm(v, ci, fnum):
    if v is None:
        return "-"
    return "%s ± %s" % (fnum(v), fnum(ci)) if ci is not None else fnum(v)


def section(doc, fp, fnum):
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
                      [[r["k"], _pm(r["lines"], r["ci"], fnum), fnum(r.get("ratio")),
                        "yes" if lv["valid_min"] is not None and r["k"] and
                        lv["valid_min"] <= r["k"] <= (lv["valid_max"] or 0) else "no"] for r in lv["curve"]])
        if lv["checks"]:
            doc.table(["held-out K", "status", "recovered K", "CI", "raw lines ± CI", "converged"],
                      [[c.get("k"), c.get("status"), c.get("measured"),
                        "%s..%s" % (c.get("ci_low"), c.get("ci_high")) if c.get("ci_low") is not None else "-",
                        _pm(_m(c.get("raw_mlines")), _m(c.get("raw_ci_mlines")), fnum),
                        "yes" if c.get("converged") else "no"] for c in lv["checks"]])
        if lv["irq"]:
            rows = []
            for r in lv["irq"]:
                if r["variant"] == "idle":
                    continue
                cal = r["cal_status"]
                kcol = ("%s (%s..%s)" % (fnum(r["k_est"]), fnum(r["k_lo"]), fnum(r["k_hi"]))
                        if cal == "ok" else cal)
                rows.append([r["experiment"], r["variant"], r["k"], r["vs"], _pm(r["lines"], r["ci"], fnum),
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
