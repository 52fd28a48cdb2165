"""The core clock during a sample set, for bytes per core cycle (docs/methods/core_clock.md).

Three ways, best first; every one gives a median and a spread (lowest, highest):

- aperf_mperf: per sample, the counter clock's rate x APERF / MPERF (MPERF ticks at the TSC's
  rate where the TSC is invariant): the clock over the samples themselves, C0 time only. Needs the
  bandwidth counter set's aperf and mperf deltas (bare metal x86).
- pmu_cycles: per sample, core cycles counted (the PMU's cycles event: unhalted core cycles on
  x86, CPU_CYCLES on AArch64) over the sample's time on the build's clock.
- add_chain: the firmware's chain of dependent register adds (1 cycle per add), timed on the
  build's clock 4 times right before and 4 times right after the samples (probe record fields
  core_clock_cycles, core_clock_ticks_lo/med/hi): cycles x clock rate / (ticks - the timer's
  overhead). Beside the samples, not during them: a clock that moves during the set shows as
  spread.

Where more than one is there, the best is used and the add chain is kept beside it as a
cross-check (`add_chain_hz`).

Beside each chain the firmware times a throughput reference, independent L1 loads (core_ref=
load_burst, core_ref_ops, core_ref_ticks_lo/med/hi): `load_ref` gives its loads per chain cycle.
The chain holds 1 add per cycle when another hardware thread shares the core; the loads do not
(shared_core.py reads the two together).
"""

from .. import stats
from ..stream.values import num

APERF_MPERF, PMU_CYCLES, ADD_CHAIN = "aperf_mperf", "pmu_cycles", "add_chain"
WRAP_LIMIT = stats.WRAP_LIMIT  # a delta this large went backwards


def _deltas(ev):
    """Per-sample deltas less the event's overhead (None where wrapped or not above it)."""
    ov = ev.get("overhead") or 0
    return [v - ov if v < WRAP_LIMIT and v > ov else None for v in ev.get("values") or []]


def _spread(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    return {"lo_hz": xs[0], "hz": stats.median(xs), "hi_hz": xs[-1], "n": len(xs)}


def _from_counters(s, hz, out_dir):
    ev = ((s.get("counters") or {}).get("events")) or {}
    if "aperf" in ev and "mperf" in ev:
        a, m = _deltas(ev["aperf"]), _deltas(ev["mperf"])
        r = _spread([x / y * hz for x, y in zip(a, m) if x and y])
        if r:
            return dict(r, source=APERF_MPERF)
    # the sample times are pass 0's (the raw file): cycles must be counted in that pass
    raw = stats.set_samples(out_dir, s) if "cycles" in ev and not ev["cycles"].get("pass") else None
    if raw:
        ov = num(s.get("overhead")) or 0
        c = _deltas(ev["cycles"])
        r = _spread([x / (t - ov) * hz for x, t in zip(c, raw)
                     if x and ov < t < WRAP_LIMIT])
        if r:
            return dict(r, source=PMU_CYCLES)
    return None


def add_chain(params, hz, overhead):
    """The add chain's clock from a probe record's fields (its params), or None."""
    cyc = num(params.get("core_clock_cycles"))
    t = [num(params.get("core_clock_ticks_" + k)) for k in ("lo", "med", "hi")]
    ov = overhead or 0
    if not cyc or not hz or any(x is None or x <= ov for x in t):
        return None
    lo, med, hi = (cyc * hz / (x - ov) for x in t)
    # the longest timing is the slowest clock
    return {"lo_hz": hi, "hz": med, "hi_hz": lo, "n": None, "source": ADD_CHAIN}


def load_ref(params, overhead):
    """The load reference beside a set, in loads per add-chain cycle: {loads_per_cycle (from the
    median timings), lo, hi (from the reference's slowest and fastest timing at the chain's
    median)}, or None (an older record, or timings not above the timer's overhead). No clock
    rate is needed: both run on the same counter, one over a known count of cycles."""
    ops, cyc = num(params.get("core_ref_ops")), num(params.get("core_clock_cycles"))
    chain = num(params.get("core_clock_ticks_med"))
    t = [num(params.get("core_ref_ticks_" + k)) for k in ("lo", "med", "hi")]
    ov = overhead or 0
    if not ops or not cyc or chain is None or chain <= ov or any(x is None or x <= ov for x in t):
        return None
    per_cycle = (chain - ov) / cyc  # counter ticks per core cycle
    fast, med, slow = (ops * per_cycle / (x - ov) for x in t)
    return {"loads_per_cycle": med, "lo": slow, "hi": fast}


def set_clock(s, hz, out_dir=None):
    """The core clock of one parsed set ({source, hz, lo_hz, hi_hz, n, add_chain_hz}) or None.
    hz: the build's clock rate (the set's tsc_hz); out_dir: the parse directory (raw files, for
    pmu_cycles)."""
    if not hz:
        return None
    params = s.get("params") or {}
    chain = add_chain(params, hz, num(s.get("overhead")))
    best = _from_counters(s, hz, out_dir) or chain
    if not best:
        return None
    return dict(best, add_chain_hz=chain["hz"] if chain else None)


def bytes_per_cycle(gbps, clock):
    """GB/s (10^9 B/s) over the core clock: bytes per core cycle, or None."""
    return gbps * 1e9 / clock["hz"] if gbps is not None and clock and clock.get("hz") else None
