"""Memory probes: bandwidth and latency curves over buffer sizes, cache levels found in them and
matched with CPUID's, and the DRAM peak comparison.

`analyse(summary, out_dir)` builds everything from summary.json (and, for the CIs, the raw files
under out_dir when given):

- a curve per (kernel, width) for `membw` and per pattern (stride) for `latency` -- plus
  `cpus`/`cpu` when they vary; calibration parameters and the shuffle seed do not split curves
  -- with one point per set: GB/s (10^9 B/s) = bytes_per_op * tsc_hz / median cycles per pass,
  also under the other byte convention (a copy counted once instead of read + written); ns and
  cycles per load; a 95% CI of the median (order statistics of the raw samples; the summary's
  CI of the mean without them) in the same unit, for error bars;
- knees (knees.py): the random-pattern latency curve is the primary source, the other curves
  (not the non-temporal kernels, which bypass the caches) secondary; matched with the CPUID data
  and unified cache sizes;
- the best kernel per size, and achieved vs theoretical DRAM peak (plat kind=dram_peak);
- per membw point the core clock during its set (core_clock.py) and the bandwidth in bytes per
  core cycle; the CPU's L1 limits (limits.py) for the fractions headline.py states.

On AArch64 the cache sizes come from CLIDR/CCSIDR and the "cycles" are generic-timer ticks
(archinfo). On an emulated CPU (QEMU TCG: archinfo.emulated_cpu) the knees are still found --
they are the emulator's host's -- but matched with no verdict: the CPU described has no caches.

The report's Memory section renders the result (report/memory.py); nothing here formats text
for it.
"""

from . import archinfo, core_clock, knees, limits
from .. import stats
from ..stream.values import num

MEMBW, LATENCY, MEMBW_MC = "membw", "latency", "membw_mc"
PROBES = (MEMBW, LATENCY)
# Sets reported in sections of their own rather than the per-set probe table and histograms:
# these curves and the multi-core bandwidth (multicore.py).
SECTION_PROBES = PROBES + ("membw_mc",)
# Parameters that tell curves apart; the others vary along a curve (size, bytes, page) or from
# set to set (calibration: target, cal_steps; the shuffle's seed).
IDENTITY = {MEMBW: ("kernel", "width", "convention", "cpus", "cpu"),
            LATENCY: ("pattern", "stride", "line", "cpus", "cpu")}
MAIN = {MEMBW: ("kernel", "width"), LATENCY: ("pattern", "stride")}
NT_KERNELS = ("write_nt", "copy_nt")   # bypass the caches: no knees expected
DRAM_FACTOR = 4                        # sizes >= 4x the largest cache count as DRAM


size_text = knees.size_text


def div(a, b):
    """a / b, or None when either is missing or b is 0."""
    return a / b if a is not None and b else None


def point(s, hz, out_dir=None):
    """One set as a curve point: cycles per op, and GB/s (membw) or ns (latency). The CI is that
    of the median (order statistics) when the raw file is readable, else the mean's from the
    summary ("ci": "median" or "mean")."""
    params = s.get("params") or {}
    st = (s.get("stats") or {}).get("per_op") or {}
    med = num(st.get("median"))
    # stats.raw_per_op, as export and compare read it: wrapped samples (>= 2^63) left out
    vals = sorted(stats.raw_per_op(out_dir, s) or []) or None
    ci = stats.median_ci(vals) if vals else None
    kind = "median" if ci else "mean"
    ci = ci or (st.get("ci95") if isinstance(st.get("ci95"), list) else None)
    lo, hi = (num(ci[0]), num(ci[1])) if ci else (None, None)
    p = {"set": s.get("set"), "size": num(params.get("size")), "n": st.get("n", 0),
         "cycles": med, "cycles_lo": lo, "cycles_hi": hi, "ci": kind if ci else None,
         "ci_coverage": stats.median_ci_coverage(len(vals)) if kind == "median" else None,
         "page": params.get("page"), "bimodal": bool(st.get("bimodal")),
         "complete": s.get("complete", True)}
    if med is not None and med <= 0:
        p["cycles"] = med = None  # below the timer overhead: no rate can be derived
    if s.get("name") in (MEMBW, "membw_mc"):
        bpo = num(params.get("bytes_per_op"))
        rb, wb = num(params.get("read_bytes")), num(params.get("write_bytes"))
        alt = None
        if rb is not None and wb is not None:
            # rw counts a copy's bytes read + written; the other convention counts them once.
            alt = max(rb, wb) if params.get("convention", "rw") == "rw" else rb + wb
        p["bytes"], p["alt_bytes"] = bpo, alt
        p["bpc"] = div(bpo, med)
        p["gbps"] = div(bpo * hz / 1e9 if bpo and hz else None, med)
        p["gbps_alt"] = div(alt * hz / 1e9 if alt and hz else None, med)
        # Fewer cycles -> more bandwidth: the CI's ends swap.
        p["gbps_lo"] = div(bpo * hz / 1e9 if bpo and hz else None, hi if hi and hi > 0 else None)
        p["gbps_hi"] = div(bpo * hz / 1e9 if bpo and hz else None, lo if lo and lo > 0 else None)
        # membw_mc: each core's own set has its own core's clock; the aggregate (cpu=all) none
        clk = core_clock.set_clock(s, hz, out_dir) if s.get("name") in (MEMBW, MEMBW_MC) else None
        p["core_clock"] = clk
        p["core_bpc"] = core_clock.bytes_per_cycle(p["gbps"], clk)
        p["load_ref"] = core_clock.load_ref(params, num(s.get("overhead")))
    else:
        to_ns = 1e9 / hz if hz else None
        p["ns"] = med * to_ns if med is not None and to_ns else None
        p["ns_lo"] = lo * to_ns if lo is not None and to_ns else None
        p["ns_hi"] = hi * to_ns if hi is not None and to_ns else None
    return p


def _label(probe, key, varying):
    d = dict(key)
    main = [str(d[k]) for k in MAIN[probe] if k in d]
    if probe == LATENCY and "stride" in d:
        main = ["%s %s" % (d.get("pattern", "?"), d["stride"])]
    extra = ["%s=%s" % (k, v) for k, v in key if k not in MAIN[probe] and k in varying]
    return " ".join(["/".join(main) or probe] + extra)


def curves(summary, out_dir=None):
    """Curves of the memory probes, membw first. Each: {probe, label, params, points (by size),
    convention}; points without a usable size are left out."""
    plat_hz = num(((summary.get("platform") or {}).get("tsc") or {}).get("hz"))
    groups = {}
    for s in summary.get("sets") or []:
        probe = s.get("name")
        params = s.get("params") or {}
        if probe not in PROBES or num(params.get("size")) is None:
            continue
        key = tuple((k, params[k]) for k in IDENTITY[probe] if k in params
                    and (k != "stride" or params.get("pattern") == "stride"))
        hz = num(s.get("tsc_hz")) or plat_hz
        groups.setdefault((probe, key), []).append(point(s, hz, out_dir))
    out = []
    for probe in PROBES:
        keys = [k for p, k in groups if p == probe]
        varying = {name for name in {n for k in keys for n, _ in k}
                   if len({dict(k).get(name) for k in keys}) > 1}
        for key in keys:
            pts = sorted(groups[(probe, key)], key=lambda p: (p["size"], str(p["set"])))
            d = dict(key)
            out.append({"probe": probe, "label": _label(probe, key, varying), "params": d,
                        "points": pts, "convention": d.get("convention", "rw"),
                        "kernel": d.get("kernel"), "nt": d.get("kernel") in NT_KERNELS})
    return out


def cpuid_levels(summary):
    """CPUID data/unified caches by level: [{"name": "L1d", "level", "type", "size"}]."""
    seen = {}
    for c in (summary.get("platform") or {}).get("cache") or []:
        level, ctype, size = c.get("level"), c.get("type"), num(c.get("size"))
        if ctype not in ("data", "unified") or not isinstance(level, int) or not size:
            continue
        if c.get("geometry") == "unknown":  # no size to judge a knee by (archinfo.unknown_geometry)
            continue
        if level not in seen or (ctype == "data" and seen[level]["type"] != "data"):
            seen[level] = {"name": "L%d%s" % (level, "d" if ctype == "data" else ""),
                           "level": level, "type": ctype, "size": size}
    return [seen[k] for k in sorted(seen)]


def _knee_source(c):
    rising = c["probe"] == LATENCY
    pts = [(p["size"], p["cycles"] if rising else p["bpc"], p["bimodal"]) for p in c["points"]]
    res = knees.detect(pts, rising=rising)
    res["label"], res["probe"] = c["label"], c["probe"]
    res["sizes"] = sorted({p["size"] for p in c["points"]})
    return res


def hierarchy(cvs, levels, emulated=None, source="CPUID", unknown=()):
    """Knees of every curve, matched with the CPUID (source) levels. Returns {sources, primary,
    levels: [{name, size, knee, ratio, status, secondary}], extra, flags, no_verdict, unknown}.
    emulated: why the CPU is emulated (archinfo.emulated_cpu): then every level's status is
    'no verdict', no ratio, no flags, and no_verdict says why. unknown: the data caches of
    unknown geometry (archinfo.unknown_geometry): no size, so no knee is judged against them,
    and a knee matching no known level is not flagged (it may be theirs); `unknown` lists them
    with the reason."""
    out = _hierarchy(cvs, levels, source, unknown)
    out["no_verdict"] = emulated
    out["unknown"] = list(unknown)
    if emulated:
        for row in out["levels"]:
            row.update(status="no verdict", ratio=None, secondary="-")
        out["extra"], out["flags"] = [], []
    return out


def _hierarchy(cvs, levels, source, unknown=()):
    sources = [dict(_knee_source(c), curve=c) for c in cvs if not c.get("nt")]
    lat = [s for s in sources if s["probe"] == LATENCY]
    primary = (max((s for s in lat if s["curve"]["params"].get("pattern") == "random"),
                   key=lambda s: s["points"], default=None)
               or max(lat, key=lambda s: s["points"], default=None))
    for s in sources:
        s["match"], s["extra"] = knees.match([k["size"] for k in s["knees"]], levels, s["sizes"])
    out = {"sources": sources, "primary": primary, "levels": [], "extra": [], "flags": []}
    for li, lv in enumerate(levels):
        row = {"name": lv["name"], "size": lv["size"], "knee": None, "ratio": None,
               "status": "no curve"}
        if primary:
            m = primary["match"][li]
            row.update(knee=m["knee"], ratio=m["ratio"], status=m["status"])
        others = [s for s in sources if s is not primary]
        seen = [s["match"][li] for s in others if s["match"][li]["status"] != "outside sweep"]
        agree = [m for m in seen if m["status"] == "agree"]
        row["secondary"] = "%d of %d curves agree%s" % (
            len(agree), len(seen), " (%s)" % _span([m["knee"] for m in agree]) if agree else "") \
            if seen else "-"
        if not primary and seen:  # no latency curve: the bandwidth curves decide
            row["status"] = "agree" if 2 * len(agree) > len(seen) else "DISAGREE"
            row["knee"] = stats.median(m["knee"] for m in agree) if agree else None
            row["ratio"] = row["knee"] / lv["size"] if row["knee"] else None
        elif not primary and others:
            row["status"] = "outside sweep"
        out["levels"].append(row)
        if row["status"] in ("DISAGREE", "no knee"):
            if row["status"] == "no knee":
                why = "no knee where the sweep covers it"
            elif primary:
                why = "knee at %s is %.2gx the %s size (outside [0.5x, 2x])" % (
                    size_text(row["knee"]), row["ratio"], source)
            else:
                why = "only %s (no latency curve)" % row["secondary"]
            out["flags"].append("%s (%s %s): %s" % (lv["name"], source, size_text(lv["size"]), why))
    if primary:
        for size in primary["extra"]:
            out["extra"].append(size)
            if not unknown:  # else the knee may be a level of unknown size: nothing to flag
                out["flags"].append("knee at %s in %s latency matches no %s cache level" % (
                    size_text(size), primary["label"], source))
        if not primary["knees"]:
            out["flags"].append("the %s latency curve is flat: no cache level visible"
                                % primary["label"])
    if not levels and sources and not unknown:
        out["flags"].append("no %s cache sizes reported: knees cannot be checked" % source)
    return out


def _span(sizes):
    lo, hi = min(sizes), max(sizes)
    return size_text(lo) if lo == hi else "%s-%s" % (size_text(lo), size_text(hi))


def dram(cvs, levels, summary):
    """Achieved vs theoretical DRAM bandwidth. Returns {peak_gbps, reason, threshold, rows:
    [{label, size, gbps, pct}], best}."""
    dp = (summary.get("platform") or {}).get("dram_peak") or {}
    peak = num(dp.get("mbps")) / 1000.0 if dp.get("status") == "ok" and num(dp.get("mbps")) \
        else None
    reason = None if peak else ("peak unknown: %s" % (dp.get("reason") or "no dram_peak record")
                                if dp.get("status") != "ok" else "peak unknown: no mbps given")
    largest = max((lv["size"] for lv in levels), default=None)
    thr = DRAM_FACTOR * largest if largest else None
    rows = []
    for c in cvs:
        if c["probe"] != MEMBW:
            continue
        pts = [p for p in c["points"] if p.get("gbps") and (thr is None or p["size"] >= thr)]
        if pts:
            p = pts[-1]
            rows.append({"label": c["label"], "size": p["size"], "gbps": p["gbps"],
                         "pct": 100.0 * p["gbps"] / peak if peak else None})
    best = max(rows, key=lambda r: r["gbps"], default=None)
    return {"peak_gbps": peak, "reason": reason, "threshold": thr, "rows": rows, "best": best,
            "basis": dp.get("basis"), "devices": dp.get("devices")}


def best_per_size(cvs):
    """[(size, curve label, point)] with the highest GB/s at each size over all membw curves."""
    best = {}
    for c in cvs:
        for p in c["points"] if c["probe"] == MEMBW else []:
            if p.get("gbps") and (p["size"] not in best or p["gbps"] > best[p["size"]][1]["gbps"]):
                best[p["size"]] = (c["label"], p)
    return [(size, lab, p) for size, (lab, p) in sorted(best.items())]


def cpu_limits(summary):
    """{cpu, source} of the CPU's L1 limits (limits.py: limits.by_name(cpu) is the row), cpu None
    when the table has no row."""
    plat = summary.get("platform") or {}
    first = lambda x: (x[0] if x else {}) if isinstance(x, list) else (x or {})  # noqa: E731
    a64 = archinfo.arch(summary) == archinfo.A64
    row = limits.lookup(first(plat.get("cpu")),
                        first(plat.get("aarch64_id")).get("midr") if a64 else None)
    return {"cpu": row["name"] if row else None,
            "source": limits.SOURCES[row["source"]] if row else None}


def analyse(summary, out_dir=None):
    """Everything the Memory section and plots need; {"measured": False} without memory sets.
    With out_dir (the parse directory) the CIs come from the raw files."""
    cvs = curves(summary, out_dir)
    # counter skips (ctr_set) are the Counters section's: the measurement itself was made
    skips = [s for s in summary.get("skips") or [] if s.get("probe") in PROBES and not s.get("ctr_set")]
    levels = cpuid_levels(summary)
    unknown = archinfo.unknown_geometry(summary)
    mem = {"measured": bool(cvs), "curves": cvs, "skips": skips, "cpuid": levels,
           "cache_source": archinfo.cache_source(summary), "clock": archinfo.clock(summary),
           "unknown_geometry": unknown}
    if cvs:
        mem["hierarchy"] = hierarchy(cvs, levels, archinfo.emulated_cpu(summary),
                                     mem["cache_source"], unknown)
        mem["dram"] = dram(cvs, levels, summary)
        mem["best"] = best_per_size(cvs)
        mem["limits"] = cpu_limits(summary)
    return mem

