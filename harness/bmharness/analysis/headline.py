"""The run's headline: the few numbers the report's first screen shows (report/headline.py renders
them; `report` writes them to DIR/headline.json).

`compute(summary, out_dir)` is a pure function of summary.json and the parse directory (raw files
for the CIs). It picks, it does not measure again: the memory figures are memory.analyse()'s curve
points, the knees its hierarchy (knees.py), the interrupt latencies irq.analyse()'s, the checks
checks.tally()'s. Every number carries its unit in its key (`_gbps`, `_ns`, `_bytes`, `_hz`).

What is picked, and why:
- emulated: archinfo.emulated_cpu (QEMU TCG: CPUID hypervisor vendor TCGTCGTCGTCG, AArch64 MIDR
  implementer 0x00): its numbers are the emulator's, not the CPU's, and the first screen says so;
  another hypervisor vendor (KVM...) is a virtual machine on real silicon, only noted;
- per cache level the plateau: the sizes well inside the level, (2 x the level below, half the
  level], the curve point with the median GB/s there (so its CI is a measured point's, the order
  statistics' CI of its median); read/write/copy each take the width whose plateau is highest;
  the load latency is the random-pattern curve's point picked the same way; DRAM is the sizes of
  at least memory.DRAM_FACTOR x the largest cache;
- per plateau point the core clock of its set and its bytes per core cycle (memory.point); for
  the first level (L1) also the fraction of the CPU's architectural limit at the point's width
  (limits.py; "limit unknown" without a row), and `sets`: shared_core.judge over the plateau's
  sets of that curve (their spread, the load reference beside the core clock, bimodal samples,
  the likely cause when the figure moves); DRAM's best plateau against the SMBIOS peak;
- interrupt latency per source: one wait mode (spin, else hlt, else the first), median and p99;
- noise: the stolen time the noise probe counted, in ns and as a share of its window.
"""

from . import archinfo, checks, irq, limits, memory, shared_core
from .. import stats
from ..stream.values import num

FORMAT, VERSION = "baremetric-headline", 1
KERNELS = ("read", "write", "copy")
WAIT_ORDER = ("spin", "hlt")   # the wait whose latency stands for a source


def _first(x):
    return (x[0] if x else None) if isinstance(x, list) else x


def machine(summary):
    """CPU, cores, memory, firmware or OS, build and date, as the records state them."""
    plat = summary.get("platform") or {}
    b = summary.get("begin") or {}
    cpu = _first(plat.get("cpu")) or {}
    smp = _first(plat.get("smp")) or {}
    fw = _first(plat.get("firmware")) or {}
    osr = _first(plat.get("os")) or {}
    memmap = _first(plat.get("memmap")) or {}
    system = _first(plat.get("system")) or {}
    devs = [d for d in plat.get("memdev") or [] if num(d.get("size"))]
    cores = num(smp.get("cpus_online")) or num(cpu.get("logical_cpus"))
    return {
        "arch": archinfo.arch(summary), "env": b.get("env"),
        # SMBIOS System Information: the machine a user names (QEMU's "Standard PC", a server model)
        "system": " ".join(str(system[k]) for k in ("manufacturer", "product") if system.get(k))
        or None if system.get("present") == 1 else None,
        "cpu": cpu.get("brand"), "vendor": cpu.get("vendor"),
        "family": cpu.get("family"), "model": cpu.get("model"), "stepping": cpu.get("stepping"),
        "hypervisor": cpu.get("hv_sig"),
        "cores_online": int(cores) if cores else None,
        "cores_present": smp.get("cpus_madt"),
        "memory_installed_bytes": sum(d["size"] for d in devs) if devs else None,
        "memory_map_bytes": memmap.get("total"),
        "firmware": " ".join(str(x) for x in (fw.get("vendor"), fw.get("rev")) if x) or None,
        "uefi": fw.get("uefi"),
        "os": " ".join(str(x) for x in (osr.get("sysname"), osr.get("release")) if x) or None,
        "build": b.get("build"),
        "parsed_utc": (summary.get("source") or {}).get("parsed_utc"),
    }


def _median_point(points, key):
    """The point with the median value of `key` (stats.median: the lower middle one for an even
    count)."""
    return stats.median((p for p in points if p.get(key) is not None), key=lambda p: p[key])


def _in(p, lo, hi):
    return p.get("size") is not None and lo < p["size"] <= hi


def _bw(p, label, lim=None):
    """A plateau point; lim: {"row", "kernel", "width"} when its limit is to be stated (L1)."""
    clk = p.get("core_clock") or {}
    out = {"gbps": p["gbps"], "ci_lo_gbps": p.get("gbps_lo"), "ci_hi_gbps": p.get("gbps_hi"),
           "size_bytes": p["size"], "curve": label, "set": p.get("set"),
           "core_hz": clk.get("hz"), "core_hz_lo": clk.get("lo_hz"), "core_hz_hi": clk.get("hi_hz"),
           "core_clock_source": clk.get("source"), "bytes_per_cycle": p.get("core_bpc"),
           "bimodal": bool(p.get("bimodal")), "load_ref": p.get("load_ref")}
    if lim is not None:
        li = limits.limit(lim["row"], lim["kernel"], limits.width_bits(lim["width"]))
        out["limit"] = dict(li, fraction=limits.fraction(p.get("core_bpc"), li)) if li else None
    return out


def _lat(p, label):
    return {"ns": p["ns"], "ci_lo_ns": p.get("ns_lo"), "ci_hi_ns": p.get("ns_hi"),
            "size_bytes": p["size"], "curve": label, "set": p.get("set")}


def plateau(cvs, lo, hi, row=False, emulated=None):
    """read/write/copy GB/s and the load latency over sizes in (lo, hi]: {kernel: point dict or
    None, "latency": ...}. row: the CPU's limits row (limits.py; None: unknown) when the points
    are to carry their limit (L1); False: they are not. emulated: why the CPU is emulated (no
    cause is named for an emulator's timing)."""
    out = {}
    for k in KERNELS:
        best = None
        for c in cvs:
            if c["probe"] != memory.MEMBW or c.get("kernel") != k or c.get("nt"):
                continue
            pts = [p for p in c["points"] if _in(p, lo, hi)]
            p = _median_point(pts, "gbps")
            if p and (best is None or p["gbps"] > best["gbps"]):
                lim = None if row is False else {"row": row, "kernel": k,
                                                 "width": c["params"].get("width")}
                best = _bw(p, c["label"], lim)
                if lim is not None:  # the L1's: is it the machine's figure? (shared_core.py)
                    best["sets"] = shared_core.judge(pts, row, (best["limit"] or {}).get("bpc"),
                                                     emulated)
        out[k] = best
    lat = [c for c in cvs if c["probe"] == memory.LATENCY]
    lat = [c for c in lat if c["params"].get("pattern") == "random"] or lat
    p = _median_point([p for p in (lat[0]["points"] if lat else []) if _in(p, lo, hi)], "ns")
    out["latency"] = _lat(p, lat[0]["label"]) if p else None
    return out


def memory_levels(mem):
    """Per cache level and DRAM: its size, range, plateau and knee (memory.analyse()'s result)."""
    if not mem.get("measured"):
        return {"measured": False, "levels": []}
    h = mem["hierarchy"]
    knee_of = {r["name"]: r for r in h["levels"]}
    levels = mem["cpuid"]
    lim = mem.get("limits") or {}
    rows, below = [], 0.0
    for i, lv in enumerate(levels):
        row = limits.by_name(lim.get("cpu")) if i == 0 else False  # the L1's limit only
        lo, hi = 2 * below, lv["size"] / 2
        emu = h.get("no_verdict")  # an emulated CPU (memory.hierarchy): its timing, not a core's
        pl = plateau(mem["curves"], lo, hi, row, emu)
        if not any(pl.values()):  # a sparse sweep: take the whole level
            lo, hi = below, lv["size"]
            pl = plateau(mem["curves"], lo, hi, row, emu)
        r = knee_of.get(lv["name"]) or {}
        rows.append(dict(pl, name=lv["name"], size_bytes=lv["size"], range_bytes=[lo, hi],
                         knee_bytes=r.get("knee"), knee_ratio=r.get("ratio"),
                         knee_status=r.get("status")))
        below = lv["size"]
    # a data cache of unknown size (archinfo.unknown_geometry) may lie beyond the largest known
    # one: then DRAM's range has no known lower end
    largest = None if mem.get("unknown_geometry") else max((lv["size"] for lv in levels),
                                                           default=None)
    sizes = [p["size"] for c in mem["curves"] for p in c["points"] if p.get("size")]
    dram = None
    if largest and sizes:
        lo = memory.DRAM_FACTOR * largest
        pl = plateau(mem["curves"], lo - 1, float("inf"))
        dram = dict(pl, name="DRAM", range_bytes=[lo, None], largest_swept_bytes=max(sizes),
                    measured=any(pl.values()))
        # the best of read / write / copy against the SMBIOS peak (memory.dram's peak)
        peak = (mem.get("dram") or {}).get("peak_gbps")
        best = max((pl[k]["gbps"] for k in KERNELS if pl.get(k)), default=None)
        dram.update(peak_gbps=peak, peak_fraction=best / peak if best and peak else None,
                    peak_reason=(mem.get("dram") or {}).get("reason"))
    return {"measured": True, "levels": rows, "dram": dram,
            "limits": {"cpu": lim.get("cpu"), "source": lim.get("source")},
            "cache_source": mem.get("cache_source"), "no_verdict": h.get("no_verdict"),
            "extra_knees_bytes": list(h.get("extra") or []), "flags": list(h.get("flags") or []),
            "unknown_geometry": list(h.get("unknown") or [])}


def _ns(x, hz):
    return x / hz * 1e9 if num(x) is not None and num(hz) else None


def irq_latency(res):
    """Median and p99 interrupt latency per source (one wait mode each, WAIT_ORDER first)."""
    by_source = {}
    for r in res.get("latency") or []:
        if r.get("n"):
            by_source.setdefault(r.get("source"), []).append(r)
    out = []
    for source, rows in by_source.items():
        rows.sort(key=lambda r: WAIT_ORDER.index(r.get("wait")) if r.get("wait") in WAIT_ORDER
                  else len(WAIT_ORDER))
        r, hz = rows[0], rows[0].get("hz")
        mci = r.get("median_ci") or {}
        out.append({"source": source, "mode": r.get("mode"), "wait": r.get("wait"),
                    "n": r.get("n"), "median_ns": _ns(r.get("median"), hz),
                    "median_ci_ns": [_ns(mci.get("lo"), hz), _ns(mci.get("hi"), hz)],
                    "p99_ns": _ns(r.get("p99"), hz), "waits": [x.get("wait") for x in rows]})
    return out


def noise(res):
    """The time stolen from the noise probe's window, or None without the probe."""
    n = res.get("noise")
    if not n:
        return None
    hz = n.get("hz")
    return {"stolen_ns": _ns(n.get("total_cycles"), hz), "share": n.get("share"),
            "gaps": n.get("count"), "longest_ns": _ns(n.get("longest_cycles"), hz),
            "window_ns": _ns(n.get("window_cycles"), hz), "threshold_ns": n.get("threshold_ns")}


def _range(values):
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    if all(num(v) is not None for v in vals):
        lo, hi = min(vals), max(vals)
        return lo if lo == hi else [lo, hi]
    distinct = sorted({str(v) for v in vals})
    return distinct[0] if len(distinct) == 1 else distinct


def check_rows(summary):
    """Every check record, grouped by (name, status): count, probes, expected and measured (one
    value, or [min, max] / the distinct values when the group's differ)."""
    groups = {}
    for c in summary.get("checks") or []:
        groups.setdefault((c.get("name"), str(c.get("status"))), []).append(c)
    rows = []
    for (name, status), cs in groups.items():
        rows.append({"name": name, "status": status, "count": len(cs),
                     "probes": sorted({str(c.get("probe")) for c in cs}),
                     "expected": _range([c.get("expected") for c in cs]),
                     "measured": _range([c.get("measured") for c in cs])})
    # failures first: they are what the reader must see
    rows.sort(key=lambda r: (r["status"] != "fail", r["status"] == "pass"))
    t = checks.tally(summary)
    return {"n": t["n"], "by_status": t["by_status"], "failed": len(t["failed"]), "rows": rows}


def skip_reasons(summary):
    """Skip records grouped by reason, most frequent first: {n, reasons: [{reason, count,
    probes}]}."""
    by = {}
    for s in summary.get("skips") or []:
        by.setdefault(str(s.get("reason") or "no reason given"), []).append(str(s.get("probe")))
    reasons = [{"reason": r, "count": len(p), "probes": sorted(set(p))} for r, p in by.items()]
    reasons.sort(key=lambda r: -r["count"])
    return {"n": sum(r["count"] for r in reasons), "reasons": reasons}


def clock(summary):
    """The cycle clock's name, rate and where the rate came from."""
    tsc = _first((summary.get("platform") or {}).get("tsc")) or {}
    return {"name": archinfo.clock(summary)["name"], "hz": num(tsc.get("hz")),
            "source": tsc.get("source"), "invariant": tsc.get("invariant")}


def emulation(summary):
    """{"emulator", "evidence", "why"} for an emulated CPU (archinfo.emulated_cpu's tests)."""
    plat = summary.get("platform") or {}
    why = archinfo.emulated_cpu(summary)
    em = _first(plat.get("emulator")) or {}
    if archinfo.arch(summary) == archinfo.A64 and em.get("cpuinfo") == "foreign" \
            and not em.get("midr_software"):
        evidence = "/proc/cpuinfo is not an arm64 kernel's (hosted, QEMU user mode)"
    elif archinfo.arch(summary) == archinfo.A64 and em.get("sign") == "qemu_board_pmu":
        # the firmware's named-core sign (bench/facts/aarch64/emulator.h): the MIDR is a real core's
        evidence = "QEMU's board and QEMU's PMU (no L1D_CACHE/L1D_CACHE_REFILL event) under MIDR %s" % (
            (_first(plat.get("aarch64_id")) or {}).get("midr"))
    elif archinfo.arch(summary) == archinfo.A64:
        midr = (_first(plat.get("aarch64_id")) or {}).get("midr")
        evidence = "MIDR %s, implementer 0x00" % midr
    else:
        evidence = "CPUID hypervisor vendor %s" % archinfo.TCG_HV_SIG
    return {"emulator": "QEMU TCG", "evidence": evidence,
            "why": why.rsplit(": " + archinfo.NO_CACHES, 1)[0]}


def qemu_run(run):
    """What the QEMU run (run.json) adds: when, how long, how it ended."""
    if not run:
        return None
    return {k: run.get(k) for k in ("started_utc", "duration_s", "exit_code", "firmware_status",
                                    "firmware_status_name", "timed_out", "smp", "mem_mb",
                                    "icount", "arch")}


def compute(summary, out_dir=None, mem=None, irq_res=None, run=None):
    """The headline dict (module comment). mem, irq_res: memory.analyse()'s and irq.analyse()'s
    results when the caller has them (the report does), else computed here; run: run.json's dict
    (QEMU runs only)."""
    mem = memory.analyse(summary, out_dir) if mem is None else mem
    irq_res = irq.analyse(summary, out_dir) if irq_res is None else irq_res
    mach = machine(summary)
    hv = mach.get("hypervisor")
    emulated = archinfo.emulated_cpu(summary)
    end = summary.get("end") or {}
    return {
        "format": FORMAT, "format_version": VERSION,
        "emulated": emulation(summary) if emulated else None,
        "virtual_machine": hv if hv and not emulated else None,
        "machine": mach, "clock": clock(summary), "memory": memory_levels(mem),
        "irq_latency": irq_latency(irq_res), "noise": noise(irq_res),
        "checks": check_rows(summary), "skips": skip_reasons(summary),
        "qemu": qemu_run(run),
        "end": {"status": end.get("status"), "probes_run": end.get("probes_run"),
                "probes_skipped": end.get("probes_skipped")} if end else None,
    }

