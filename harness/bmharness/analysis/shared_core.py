"""Is an L1 bytes-per-cycle figure the machine's, or the moment's? (docs/methods/shared_core.md)

The L1 plateau in bytes per core cycle divides a bandwidth by the add-chain clock (core_clock.py).
A chain of dependent adds runs at 1 add per cycle whether or not another hardware thread -- an SMT
sibling, another tenant's vCPU on it -- shares the core: it needs one ALU and the latency of the
last add, never the ports the other thread takes. The L1 reads need the load ports, so a shared
core reads fewer bytes per "cycle" at an unchanged clock (a Zen 5 guest: 0.72-0.96 of its limit in
six runs at one ~3.6 GHz clock).

The firmware times a throughput reference beside the chain: independent 8-byte loads from one L1
line (core_ref=load_burst), bound by the load ports alone. `judge(points, row)` reads the plateau's
sets together:

- the reference against the CPU's scalar loads per cycle (its limits.py row: a vendor's number):
  below (1 - REF_DROP) of it, the ports were not all this thread's;
- the reference's spread over the sets: more than REF_DROP between its slowest and fastest set,
  something took the ports part of the time;
- the chain clock's spread over the same sets: within CLOCK_HOLD, the clock held;
- the sets' samples: bimodal (stats.detect_modes, the verdict every set carries) or fractions of
  the limit that move by more than FRACTION_SPREAD between the sets.

It names a cause only where the evidence points to one: the reference low or moving while the
clock held is "another thread shared the core"; the clock moving is "the core clock moved";
flags with a steady reference at its limit have no cause named.
"""

import math

from .. import stats

REF_DROP = 0.10        # the reference's shortfall (or spread) that is not timing noise
CLOCK_HOLD = 0.03      # the chain clock's spread over the sets that counts as held
FRACTION_SPREAD = 0.10  # of the limit, between the plateau's sets

SHARED = "another thread shared the core"
CLOCK_MOVED = "the core clock moved"


def scalar_loads(row):
    """The CPU's 8-byte loads per cycle from its limits row, or None without a row."""
    ld = (row or {}).get("loads") or {}
    return float(ld[64][0]) if 64 in ld else None


def _range(xs):
    xs = [x for x in xs if x is not None and math.isfinite(x)]
    return (min(xs), max(xs)) if xs else (None, None)


def judge(points, row, limit_bpc=None, emulated=None):
    """The plateau's sets (memory.point dicts: core_bpc, core_clock, load_ref, bimodal) against
    each other and the CPU's row; limit_bpc: the kernel's L1 limit in bytes per cycle (None:
    unknown); emulated: why the CPU is emulated (QEMU TCG), then no cause is named: the timings
    are the emulator's. Returns {n, fraction_lo/_hi, bytes_per_cycle_lo/_hi, clock_lo_hz,
    clock_hi_hz, ref_per_cycle (the median set's loads per chain cycle), ref_lo_per_cycle, ref_hi_per_cycle,
    ref_limit_per_cycle (the row's scalar loads), ref_fraction, bimodal_sets, flags (phrases),
    cause (SHARED, CLOCK_MOVED or None), emulated, ok}: ok is False when a flag says the figure
    is not the machine's steady one."""
    bpc_lo, bpc_hi = _range([p.get("core_bpc") for p in points])
    hz_lo, hz_hi = _range([(p.get("core_clock") or {}).get("hz") for p in points])
    refs = [(p.get("load_ref") or {}).get("loads_per_cycle") for p in points]
    ref_lo, ref_hi = _range(refs)
    ref = stats.median(x for x in refs if x is not None)
    lim_loads = scalar_loads(row)
    out = {"n": len(points), "bytes_per_cycle_lo": bpc_lo, "bytes_per_cycle_hi": bpc_hi,
           "fraction_lo": bpc_lo / limit_bpc if limit_bpc and bpc_lo is not None else None,
           "fraction_hi": bpc_hi / limit_bpc if limit_bpc and bpc_hi is not None else None,
           "clock_lo_hz": hz_lo, "clock_hi_hz": hz_hi, "ref_per_cycle": ref,
           "ref_lo_per_cycle": ref_lo, "ref_hi_per_cycle": ref_hi,
           "ref_limit_per_cycle": lim_loads,
           "ref_fraction": ref / lim_loads if ref is not None and lim_loads else None,
           "bimodal_sets": sum(1 for p in points if p.get("bimodal"))}
    flags = []
    if out["bimodal_sets"]:
        flags.append("bimodal samples in %d of %d set(s)" % (out["bimodal_sets"], len(points)))
    if out["fraction_lo"] is not None and out["fraction_hi"] - out["fraction_lo"] > FRACTION_SPREAD:
        flags.append("%.2f-%.2f of the limit over %d sets" % (
            out["fraction_lo"], out["fraction_hi"], len(points)))
    ref_low = out["ref_fraction"] is not None and out["ref_fraction"] < 1 - REF_DROP
    ref_moved = ref_lo is not None and ref_hi > ref_lo * (1 + REF_DROP)
    clock_held = hz_lo is not None and hz_hi <= hz_lo * (1 + CLOCK_HOLD)
    if ref_low:
        flags.append("load reference %.2f of %g loads/cycle" % (ref, lim_loads))
    if ref_moved:
        flags.append("load reference %.2f-%.2f loads/cycle over the sets" % (ref_lo, ref_hi))
    if hz_lo is not None and not clock_held:
        flags.append("core clock %.2f-%.2f GHz over the sets" % (hz_lo / 1e9, hz_hi / 1e9))
    cause = None
    if emulated:
        pass  # an emulator's loads and adds: neither a core's ports nor its clock
    elif (ref_low or ref_moved) and clock_held:
        cause = SHARED
    elif flags and hz_lo is not None and not clock_held:
        cause = CLOCK_MOVED
    out.update(flags=flags, cause=cause, ok=not flags, emulated=bool(emulated))
    return out
