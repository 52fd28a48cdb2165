"""The unit `compare` puts a set's per-operation values in, and the conversion to it.

By default a set is compared in the unit it means (protocol.md, "Memory probes"):

- bandwidth sets (`membw`, `membw_mc` with `bytes_per_op`): GB/s (10^9 B/s) =
  bytes_per_op x clock Hz / cycles per pass -- higher is better;
- every other set counted in the cycle clock (`unit=cycles`): ns = cycles / clock Hz x 10^9;
- sets in other units (`count`, `misses`, `pmu_cycles`: PMU cycles of no stated rate) stay in
  their unit.

The clock rate is the set's own `tsc_hz`, else the run's `plat kind=tsc hz`; each run's values
are converted with its own rate, so runs of different clock rates compare directly. A cycle
set without any rate stays in cycles (and says so). With `--cycles` every cycle set stays in the
clock's counts, as the firmware wrote them (`compare.clock_basis` then still switches to ns
when the two runs' clocks differ by more than 1%: cycles of different clocks are not one
scale).
"""

from .. import stats
from ..stream.values import num

BANDWIDTH_PROBES = ("membw", "membw_mc")
GBPS, NS, CYCLES = "GB/s", "ns", "cycles"
# Units where a larger value is a longer time: a positive shift is "B slower".
TIME_UNITS = (NS, CYCLES, "pmu_cycles", "counter ticks")


def set_hz(s, summary):
    """The clock rate a set's cycles count at: its tsc_hz, else the run's plat kind=tsc hz."""
    hz = num(s.get("tsc_hz"))
    if not hz or hz <= 0:
        hz = num(((summary.get("platform") or {}).get("tsc") or {}).get("hz"))
    return hz if hz and hz > 0 else None


def measure(s, summary, cycles=False, scale=None):
    """How one set of one run is compared: {"unit", "higher_is_better", "convert" (per-op value
    -> value in unit, or None when it has none), "note"}. cycles: keep the clock's counts;
    scale: ns per count that compare.clock_basis imposes in that case (clocks that differ)."""
    unit = s.get("unit") or CYCLES
    out = {"unit": unit, "higher_is_better": False, "convert": lambda v: v, "note": None}
    if unit != CYCLES:
        if scale is not None and unit == "pmu_cycles":
            out.update(convert=None, note="pmu_cycles of no known rate cannot be put in ns")
        return out
    if cycles:
        if scale is not None:
            out.update(unit=NS, convert=lambda v, k=scale: v * k)
        return out
    hz = set_hz(s, summary)
    if hz is None:
        out["note"] = "no clock rate stated: compared in cycles"
        return out
    bpo = num((s.get("params") or {}).get("bytes_per_op"))
    if s.get("name") in BANDWIDTH_PROBES and bpo and bpo > 0:
        k = bpo * hz / 1e9
        out.update(unit=GBPS, higher_is_better=True,
                   convert=lambda v, k=k: k / v if v > 0 else None)
    else:
        k = 1e9 / hz
        out.update(unit=NS, convert=lambda v, k=k: v * k)
    return out


def convert_median(values, m):
    """(median, [ci lo, ci hi]) of per-op values in the measure's unit: stats.median_and_ci of
    the values as measured, then converted (a median is taken before a conversion, not after:
    GB/s falls as cycles rise, and the lower middle of one is the upper middle of the other), so
    the median is the set's median in the first screen, the Memory section and results.csv;
    the CI's ends are put in order. (None, None) without values or conversion."""
    mc = stats.median_and_ci(values or [])
    if not mc or m["convert"] is None:
        return None, None
    ends = [m["convert"](mc["lo"]), m["convert"](mc["hi"])]
    return m["convert"](mc["median"]), (sorted(ends) if None not in ends else None)


def convert_all(values, m):
    """A list of per-op values in the measure's unit (values with no rate, e.g. a pass of 0
    cycles for GB/s, left out); None when the measure has no conversion."""
    if values is None or m["convert"] is None:
        return None
    out = [m["convert"](v) for v in values]
    return [v for v in out if v is not None]


def direction_words(unit, higher_is_better):
    """(word when B's value is larger, word when smaller) for verdicts."""
    if higher_is_better:
        return "B faster", "B slower"
    if unit in TIME_UNITS:
        return "B slower", "B faster"
    return "B higher", "B lower"


def per_op_values(run, s):
    """A set's per-operation values from its raw file, wrapped samples left out as in the
    summary's statistics (None when it cannot be read)."""
    return stats.raw_per_op(run["dir"], s)
