"""Performance-counter figures derived from the per-sample counter deltas (`ctr` records) that
stream/parse.py attaches to each set as set["counters"].

Every delta is per sample; the stated counter overhead (the deltas of an empty sample read the
same way) is subtracted, clamped at 0, before anything is divided -- except for the energy means,
where clamping would bias the result upward. A delta >= 2^63 (a negative difference seen as
unsigned: a counter that went backwards or wrapped more than once) is flagged and left out of
every figure; `excluded` says how many per event, and how many were below the overhead.
Figures per set (medians over the samples of the pass that carries the events):

- per-event counts per operation ((delta - overhead) / iters);
- IPC = instructions / cycles;
- misses per KiB moved (bandwidth sets: bytes_per_op x iters per sample) and per load (latency);
- effective frequency = TSC Hz x APERF / MPERF (MPERF ticks at the TSC / P0 rate);
- energy per byte moved from RAPL: the mean energy delta per sample (x 2^-ESU J: plat kind=pmu
  rapl_esu, and rapl_dram_esu for the DRAM domain, which counts in fixed 2^-16 J on the Intel
  servers Linux lists; older logs without it fall back to rapl_esu) over the bytes of one sample,
  and the power: that energy over the mean sample time. RAPL's package and DRAM energy are one
  counter per package: divided only where the set's bytes are the whole package's. A
  membw_mc per-core set (`cpu` a number) never gets them divided by its one core's bytes (that
  overstates nJ/byte about cores-fold): newer firmware counts them on the aggregate set
  (`cpu=all`, whose bytes are every core's) only; an older log's per-core energy is left out of
  the figures, `energy_note` says why.

Where the machine had no PMU the sets carry no counters: `status` says why (plat kind=pmu reason
and the skip records), and nothing is made up. On AArch64 (begin arch) there is no APERF/MPERF
or RAPL, so the report leaves those columns out, and times are generic-timer ticks. The report's
Counters section is report/counters.py.
"""

from . import archinfo
from .. import stats

MISS_EVENTS = ("l1d_misses", "l1i_misses", "l2_misses", "llc_misses", "dtlb_misses", "itlb_misses")
# A delta at or above stats.WRAP_LIMIT (2^63) is a negative difference seen as unsigned (a counter
# that went backwards or wrapped more than once): flagged and left out of every figure.
WRAP_LIMIT = stats.WRAP_LIMIT


def _median(xs):
    """stats.median of the values that are not None, as a float; None without any."""
    m = stats.median(x for x in xs if x is not None)
    return None if m is None else float(m)


def _net(ev):
    """Per-sample deltas with the event's stated overhead removed, clamped at 0 (for medians and
    ratios); None where the delta is >= WRAP_LIMIT, so the samples of two events stay aligned."""
    ov = ev.get("overhead") or 0
    return [max(0, v - ov) if v < WRAP_LIMIT else None for v in ev.get("values") or []]


def _flags(ev):
    """(samples excluded as wrapped, samples below the overhead) of one event."""
    ov = ev.get("overhead") or 0
    vals = ev.get("values") or []
    return (sum(1 for v in vals if v >= WRAP_LIMIT),
            sum(1 for v in vals if v < ov))


def _mean_unclamped(ev):
    """Mean of delta - overhead over the samples not flagged as wrapped, *not* clamped at 0:
    clamping the deltas below the overhead would bias a sum (energy) upward. None if none left."""
    ov = ev.get("overhead") or 0
    vals = [v - ov for v in ev.get("values") or [] if v < WRAP_LIMIT]
    return sum(vals) / float(len(vals)) if vals else None


def _ratio_median(num, den):
    pairs = [a / b for a, b in zip(num, den) if a is not None and b is not None and b > 0]
    return _median(pairs)


PACKAGE_ENERGY = ("energy_pkg", "energy_dram")
PER_CORE_ENERGY_NOTE = ("package-wide energy on a per-core set (one core's bytes, the whole "
                        "package's joules): not divided; the aggregate set cpu=all carries it")


def per_core_set(s):
    """True for a membw_mc set of one core (`cpu` a number, not `all`): its bytes are that
    core's, the package counters' joules every core's."""
    cpu = (s.get("params") or {}).get("cpu")
    return s.get("name") == "membw_mc" and cpu is not None and str(cpu) != "all"


def _energy_esu(event, esu, dram_esu):
    """The energy unit exponent of one RAPL event."""
    return dram_esu if event == "energy_dram" and dram_esu is not None else esu


def set_figures(s, esu=None, tsc_hz=None, dram_esu=None):
    """Derived figures of one parsed set (None when it has no counter values)."""
    ctr = s.get("counters")
    if not ctr or not ctr.get("events"):
        return None
    ev = ctr["events"]
    iters = s.get("iters") or 1
    params = s.get("params") or {}
    out = {"set": s.get("set"), "name": s.get("name"), "ctr_set": ctr.get("set"),
           "passes": ctr.get("passes"), "refused": ctr.get("refused") or [],
           "complete": ctr.get("complete"), "per_op": {}}
    net = {name: _net(e) for name, e in ev.items() if not name.startswith("tsc.")}
    flags = {name: _flags(e) for name, e in ev.items()}
    out["excluded"] = {name: {"wrapped": w, "below_overhead": b}
                       for name, (w, b) in flags.items() if w or b}
    for name, vals in net.items():
        m = _median(vals)
        out["per_op"][name] = m / iters if m is not None else None
    if "instructions" in net and "cycles" in net and ev["instructions"]["pass"] == ev["cycles"]["pass"]:
        out["ipc"] = _ratio_median(net["instructions"], net["cycles"])
    bpo = params.get("bytes_per_op")
    if isinstance(bpo, (int, float)) and bpo > 0:
        kib = bpo * iters / 1024.0
        out["misses_per_kib"] = {e: _median([v / kib for v in net[e] if v is not None])
                                 for e in MISS_EVENTS if e in net}
        energy = [e for e in PACKAGE_ENERGY if e in net]
        if energy and per_core_set(s):
            out["energy_note"] = PER_CORE_ENERGY_NOTE
            energy = []
        if energy and esu is not None:
            # Mean energy per sample over the samples not flagged (unclamped, so unbiased) per
            # the bytes of one sample, and per the mean time of one sample.
            mean_j = {e: _mean_unclamped(ev[e]) for e in energy}
            mean_j = {e: m * 2.0 ** -_energy_esu(e, esu, dram_esu) for e, m in mean_j.items() if m is not None}
            out["nj_per_byte"] = {e: m / (bpo * iters) * 1e9 for e, m in mean_j.items()}
            raw = (s.get("stats") or {}).get("raw") or {}
            if raw.get("mean") and raw["mean"] > 0 and tsc_hz:
                secs = raw["mean"] / float(tsc_hz)  # one timed sample
                out["watts"] = {e: m / secs for e, m in mean_j.items()}
    elif s.get("name") == "latency":
        out["misses_per_load"] = {e: (_median(net[e]) or 0) / iters for e in MISS_EVENTS if e in net}
    if "aperf" in net and "mperf" in net and tsc_hz:
        r = _ratio_median(net["aperf"], net["mperf"])
        out["eff_hz"] = r * tsc_hz if r is not None else None
    tsc_repeats = {k: _median([v for v in e.get("values") or [] if v < WRAP_LIMIT])
                   for k, e in ev.items() if k.startswith("tsc.")}
    if tsc_repeats:
        med0 = (s.get("stats") or {}).get("raw", {}).get("median")
        out["repeat_tsc_ratio"] = {k: (v / med0 if med0 and v else None) for k, v in tsc_repeats.items()}
    return out


def status(summary):
    """(present, text): the PMU as the platform record states it, and how many counter
    requests became skips."""
    pmu = (summary.get("platform") or {}).get("pmu") or {}
    skips = [k for k in summary.get("skips") or [] if k.get("ctr_set")]
    present = bool(pmu.get("present"))
    if present:
        text = "present: %s v%s, %s general-purpose counters (%s bits), %s fixed, families: %s" % (
            pmu.get("pmu"), pmu.get("vendor_version"), pmu.get("gp"), pmu.get("gp_width"),
            pmu.get("fixed"), pmu.get("family_events"))
        if pmu.get("core_type"):  # a hybrid part: the counters and events of one core type
            text += " (hybrid part: the %s-core's PMU)" % pmu["core_type"].upper()
    else:
        text = "absent: %s" % (pmu.get("reason") or "no plat kind=pmu record")
        freerun = [n for n, k in (("aperf/mperf", "aperf_mperf"), ("rapl", "rapl")) if pmu.get(k)]
        if freerun:
            text += " (free-running counters still read: %s)" % ", ".join(freerun)
    # per-CPU settings discovery made (or could not make): they qualify every counted sample
    notes = ["%s %s" % (k, pmu[k]) for k in ("lfence_serializing", "freeze_while_smm", "rdpmc")
             if pmu.get(k) not in (None, "yes", "set", "already", "ok", "not_offered")]
    if notes:
        text += "; " + ", ".join(notes)
    if skips:
        text += "; %d counter request(s) skipped" % len(skips)
    return present, text


def analyse(summary, out_dir=None):
    """{"present", "status", "sets": [figures...], "checks": [...], "cost": [...], "skipped_checks":
    [skips of pmu_check and pmu_cost], "arch"}. out_dir is not needed (the counters are in the
    summary); it is taken as every section's analyse takes it."""
    pmu = (summary.get("platform") or {}).get("pmu") or {}
    esu = pmu.get("rapl_esu") if pmu.get("rapl") else None
    dram_esu = pmu.get("rapl_dram_esu", esu) if pmu.get("rapl") else None
    tsc_hz = ((summary.get("platform") or {}).get("tsc") or {}).get("hz")
    present, text = status(summary)
    figs = []
    for s in summary.get("sets") or []:
        f = set_figures(s, esu, tsc_hz, dram_esu)
        if f is not None:
            figs.append(f)
    cost = [s for s in summary.get("sets") or [] if s.get("name") == "pmu_cost"]
    return {"present": present, "status": text, "sets": figs,
            "checks": [c for c in summary.get("checks") or [] if c.get("probe") == "pmu_check"], "cost": cost,
            "skipped_checks": [k for k in summary.get("skips") or []
                               if k.get("probe") in ("pmu_check", "pmu_cost")],
            "arch": archinfo.arch(summary)}
