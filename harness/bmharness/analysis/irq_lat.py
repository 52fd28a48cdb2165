"""Interrupt latency statistics (the Latency part of the report's Interrupts section; its table is
report/irq_lat.py's).

Per set: min, median, p99, max, and p99.9 only where N x 0.001 >= 10 (fewer samples past it and
the number is the largest few values, not a quantile); distribution-free 95% confidence intervals
of the median and the p99 from order statistics (`stats.quantile_ci`: binomial ranks, no
assumption about the shape - latency distributions are skewed and multimodal). The table also
carries what the firmware states about each set: the deadline's uncertainty (HPET: bracketed
counter read + one period; periodic: bracketed count read + one tick), early arrivals within
that bound (APIC tick quantisation, HPET uncertainty) kept apart from failures, invalid negative
periodic samples, truncated_by_time, the SMI count and the effective frequency.
"""

from .. import stats

P999 = 0.999


def latency_summary(values):
    """n, min, median, p99, p99.9 (None below N = 10000), max; median_ci and p99_ci as
    stats.quantile_ci dicts (None without values)."""
    s = sorted(values)
    n = len(s)
    out = {"n": n}
    out["min"], out["max"] = (s[0], s[-1]) if s else (None, None)
    out["median"], out["p99"] = stats.quantile(s, 0.5), stats.quantile(s, 0.99)
    out["p99.9"] = stats.quantile(s, P999) if s and stats.tail_quantile_ok(n, P999) else None
    out["median_ci"] = stats.quantile_ci(s, 0.5) if s else None
    out["p99_ci"] = stats.quantile_ci(s, 0.99) if s else None
    return out
