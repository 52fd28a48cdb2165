"""The cache-footprint part of the Interrupts report (probe irq_footprint: Schaelicke et al.'s
experiment, calibrated on the machine against handlers of known footprint).

The firmware does the arithmetic (integer, milli-units) and states it in its records: per level a
`cold` set (per-line miss cost, calibrated range, saturation), `calib` sets (the response curve:
measured lines for each K of the grid, direct calls), `heldout` sets with their `footprint_k`
checks, and `irq` sets (basic / refined experiment, variants idle / k0 / kn) carrying raw lines and
the K recovered through the curve. `analyse(summary)` gathers them per level; report/footprint.py
renders the tables. Nothing is recomputed from the raw samples here, so the report shows exactly
what the checks judged."""

M = 1000.0  # the firmware's milli-units


def from_milli(v):
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
        row = {"k": p.get("k"), "lines": from_milli(p.get("mlines")), "ci": from_milli(p.get("ci_mlines")),
               "reps": p.get("reps"), "converged": p.get("converged"), "set": s.get("set")}
        if what == "cold":
            lv.update(cost=from_milli(p.get("cost_mcyc")), effect=p.get("effect"), valid_min=p.get("valid_min"),
                      valid_max=p.get("valid_max"), sat_k=p.get("sat_k"), reps=p.get("reps"),
                      converged=p.get("converged"), retouch=p.get("retouch"), method=p.get("method"),
                      prefetchers=p.get("prefetchers"), prefetchers_changed=p.get("prefetchers_changed"),
                      event=p.get("event"), vendor_event=p.get("vendor_event"),
                      demand_only=p.get("demand_only"), cold_mpl=from_milli(p.get("cold_mpl_milli")),
                      ctr_skipped=p.get("ctr_skipped"), ctr_set=p.get("ctr_set"))
        elif what == "calib":
            row["ratio"] = from_milli(p.get("ratio_milli"))
            lv["curve"].append(row)
        elif what == "heldout":
            lv["heldout"].append(row)
        else:
            row.update(experiment=p.get("experiment"), variant=p.get("variant"), vs=p.get("vs"),
                       handler_lines=from_milli(p.get("handler_mlines")), handler_ci=from_milli(p.get("handler_ci_mlines")),
                       k_total=from_milli(p.get("k_total_milli")),
                       cal_status=p.get("cal_status"), k_est=from_milli(p.get("k_est_milli")),
                       k_lo=from_milli(p.get("k_ci_low_milli")), k_hi=from_milli(p.get("k_ci_high_milli")),
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
