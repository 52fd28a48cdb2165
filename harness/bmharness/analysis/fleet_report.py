"""The fleet report's figures (`harness/baremetric fleet report`; docs/fleet.md, "The fleet
report"): machines grouped by identity, per headline metric the distribution across the group,
and the machines that stand out, each with its evidence.

- A machine is one parse directory (a `fleet run` writes <out>/<machine>/parse/; any folder with
  summary.json counts, named by its folder, or the folder above a `parse`).
- Identity (the group): the SMBIOS system (manufacturer, product), the CPU (vendor, brand,
  family/model/stepping) and the memory configuration (the populated SMBIOS memory devices:
  count, type, size and speed). Twins are machines of one group.
- Attributes twins must share, and a machine is flagged for when it differs from its group's
  majority: the firmware version, the cache geometry (CPUID's or CCSIDR's levels: size, ways,
  line), the PMU (counters present, their number and width).
- Headline metrics (analysis/headline.py, per machine): each memory level's and DRAM's read
  bandwidth (GB/s, higher is better) and load latency (ns), each interrupt source's latency
  median and p99 (ns), the noise probe's stolen share.
- The outlier test, per metric in a group of at least MIN_GROUP machines: the group's median m
  and its median absolute deviation (MAD, x 1.4826: a standard deviation for a normal spread);
  a machine is an outlier when its distance from m exceeds both Z_LIMIT robust standard
  deviations (the Iglewicz-Hoaglin modified z-score's 3.5) and the boot-to-boot spread
  (`spread`, a fraction of m: what one machine moves between its own boots; its own CI can
  not overlap the band either). So a tight fleet does not flag a difference smaller than a
  machine's own reboot would make, and a loose one does not flag noise. Direction: a metric
  worse than its peers is flagged as such, a better one too (a wrong configuration can be
  faster).
"""

import json
import os

from . import headline

MAD_SCALE = 1.4826      # MAD x this = the standard deviation of a normal distribution
Z_LIMIT = 3.5           # Iglewicz and Hoaglin (1993): |modified z| > 3.5 is an outlier
MIN_GROUP = 3           # the median and MAD of fewer machines say nothing about one of them
DEFAULT_SPREAD = 0.05   # boot-to-boot spread of a headline figure on one machine, as a fraction
HIGHER_BETTER = "higher"
LOWER_BETTER = "lower"


def find_runs(paths):
    """[(machine name, parse directory)] under the given folders, sorted by name."""
    out = {}
    for p in paths:
        for root, dirs, files in os.walk(p, followlinks=True):
            if "summary.json" in files:
                base = os.path.basename(os.path.normpath(root))
                name = (os.path.basename(os.path.dirname(os.path.normpath(root)))
                        if base == "parse" else base)
                out.setdefault(name, root)
                dirs[:] = []
            dirs.sort()
    return sorted(out.items())


def _first(x):
    return (x[0] if x else None) if isinstance(x, list) else x


def _list(x):
    return x if isinstance(x, list) else [x] if x else []


def identity(summary):
    """(group key text, attributes) of one machine's summary."""
    plat = summary.get("platform") or {}
    system = _first(plat.get("system")) or {}
    cpu = _first(plat.get("cpu")) or {}
    devs = [d for d in _list(plat.get("memdev")) if d.get("size")]
    mem = ("%d x %s %s MiB %s MT/s" % (len(devs), devs[0].get("type"), int(devs[0]["size"]) >> 20,
                                       devs[0].get("speed")) if devs and len({
                                           (d.get("type"), d.get("size"), d.get("speed")) for d in devs}) == 1
           else "; ".join("%s %s %s" % (d.get("locator"), d.get("type"), d.get("size")) for d in devs)
           or "no SMBIOS memory devices")
    sysname = " ".join(str(system[k]) for k in ("manufacturer", "product") if system.get(k)) \
        if str(system.get("present", 0)) == "1" else "unknown system"
    cpuname = "%s %s (family %s model %s stepping %s)" % (
        cpu.get("vendor"), cpu.get("brand"), cpu.get("family"), cpu.get("model"), cpu.get("stepping"))
    fw = _first(plat.get("firmware")) or {}
    firmware = " ".join(str(x) for x in (fw.get("vendor"), fw.get("rev")) if x) or \
        " ".join(str(x) for x in ((summary.get("begin") or {}).get(k) for k in ("fw_vendor", "fw_rev")) if x) or "unknown"
    caches = ", ".join("L%s%s %s B %s-way %s B lines" % (
        c.get("level"), {"data": "d", "inst": "i"}.get(c.get("type"), ""), c.get("size", "?"),
        c.get("ways"), c.get("line")) for c in _list(plat.get("cache"))) or "unknown"
    pmu = _first(plat.get("pmu")) or {}
    pmu_text = ("present, %s x %s-bit counters" % (pmu.get("gp"), pmu.get("gp_width"))
                if str(pmu.get("present")) == "1" else "none (%s)" % (pmu.get("reason") or "not reported"))
    return {"group": " | ".join((sysname, cpuname, mem)), "system": sysname, "cpu": cpuname,
            "memory": mem, "firmware": firmware, "caches": caches, "pmu": pmu_text}


def metrics(h):
    """{metric name: (value, ci low, ci high, unit, better)} from a headline dict."""
    out = {}
    mem = h.get("memory") or {}
    for lv in list(mem.get("levels") or []) + ([dict(mem["dram"], name="DRAM")] if mem.get("dram") else []):
        rd, lat = lv.get("read"), lv.get("latency")
        if rd and rd.get("gbps") is not None:
            out["%s read bandwidth" % lv["name"]] = (rd["gbps"], rd.get("ci_lo_gbps"), rd.get("ci_hi_gbps"),
                                                     "GB/s", HIGHER_BETTER)
        if lat and lat.get("ns") is not None:
            out["%s load latency" % lv["name"]] = (lat["ns"], lat.get("ci_lo_ns"), lat.get("ci_hi_ns"),
                                                   "ns", LOWER_BETTER)
    for src in h.get("irq_latency") or []:
        ci = src.get("median_ci_ns") or [None, None]
        if src.get("median_ns") is not None:
            out["irq %s median" % src["source"]] = (src["median_ns"], ci[0], ci[1], "ns", LOWER_BETTER)
        if src.get("p99_ns") is not None:
            out["irq %s p99" % src["source"]] = (src["p99_ns"], None, None, "ns", LOWER_BETTER)
    noise = h.get("noise") or {}
    if noise.get("share") is not None:
        out["noise stolen share"] = (noise["share"], None, None, "fraction", LOWER_BETTER)
    return out


def load(paths):
    """[machine dict] of every run under paths: name, dir, identity, metrics, status."""
    machines = []
    for name, d in find_runs(paths):
        try:
            with open(os.path.join(d, "summary.json")) as fh:
                summary = json.load(fh)
            h = headline.compute(summary, d)
        except (OSError, ValueError) as exc:
            machines.append({"name": name, "dir": d, "error": str(exc)})
            continue
        machines.append({"name": name, "dir": d, "identity": identity(summary), "metrics": metrics(h),
                         "status": (summary.get("end") or {}).get("status") or "no end record"})
    return machines


def _median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0


def metric_outliers(members, spread):
    """[(metric, distribution, [outlier dicts])] of one group (see the module docstring)."""
    names = sorted({k for m in members for k in m["metrics"]})
    out = []
    for metric in names:
        have = [m for m in members if metric in m["metrics"]]
        vals = [m["metrics"][metric][0] for m in have]
        med = _median(vals)
        mad = _median([abs(v - med) for v in vals]) * MAD_SCALE
        unit, better = have[0]["metrics"][metric][3], have[0]["metrics"][metric][4]
        dist = {"n": len(vals), "median": med, "min": min(vals), "max": max(vals), "mad": mad, "unit": unit}
        flagged = []
        if len(have) >= MIN_GROUP:
            band = max(Z_LIMIT * mad, spread * abs(med))
            for m in have:
                v, lo, hi = m["metrics"][metric][:3]
                d = v - med
                clear = (lo is None or hi is None) or not (lo - band <= med <= hi + band)
                if abs(d) > band and clear:
                    worse = (d < 0) == (better == HIGHER_BETTER)
                    flagged.append({
                        "machine": m["name"], "metric": metric, "value": v, "unit": unit,
                        "worse": worse, "deviation": d / med if med else None,
                        "evidence": "%s %.4g %s vs the group's median %.4g (%+.1f%%); band %.3g %s = "
                                    "max(%.1f x MAD-sd %.3g, spread %.0f%% of the median)%s" % (
                                        metric, v, unit, med, 100.0 * d / med if med else 0.0, band, unit,
                                        Z_LIMIT, mad, 100 * spread,
                                        "" if lo is None else "; its CI [%.4g, %.4g]" % (lo, hi))})
        out.append((metric, dist, flagged))
    return out


def attribute_outliers(members):
    """Machines whose firmware, cache geometry or PMU differs from the group's majority."""
    flagged = []
    for attr in ("firmware", "caches", "pmu"):
        counts = {}
        for m in members:
            counts.setdefault(m["identity"][attr], []).append(m["name"])
        if len(counts) < 2:
            continue
        major = max(counts.items(), key=lambda kv: (len(kv[1]), kv[0]))
        for value, names in sorted(counts.items()):
            if value == major[0]:
                continue
            for n in names:
                flagged.append({"machine": n, "metric": attr, "value": value, "worse": True,
                                "evidence": "%s %r; its %d twin(s) %s: %r" % (
                                    attr, value, len(major[1]), ", ".join(major[1]), major[0])})
    return flagged


def build(paths, spread=DEFAULT_SPREAD):
    """The report's data: {"groups": [...], "errors": [...], "spread": spread}."""
    machines = load(paths)
    groups = {}
    for m in machines:
        if "error" not in m:
            groups.setdefault(m["identity"]["group"], []).append(m)
    out = []
    for key, members in sorted(groups.items()):
        mets = metric_outliers(members, spread)
        attrs = attribute_outliers(members)
        out.append({"identity": key, "machines": [m["name"] for m in members],
                    "firmware": sorted({m["identity"]["firmware"] for m in members}),
                    "status": {m["name"]: m["status"] for m in members},
                    "metrics": [{"metric": n, **d} for n, d, _ in mets],
                    "outliers": attrs + [f for _, _, fl in mets for f in fl]})
    return {"spread": spread, "groups": out, "machines": len(machines),
            "errors": [{"machine": m["name"], "error": m["error"]} for m in machines if "error" in m]}
