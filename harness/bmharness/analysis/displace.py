"""Displacement (Woodside et al.) against handlers of known work: the arithmetic behind the
report's table (report/displace.py), in plain functions the tests check with synthetic data.

The probe (bench/probes/irq/displace.c) emits per handler (`handler=w<work cycles>`):
  calib, loaded        T_F(1), T_F(2) per window pair (L_F iterations each, the loaded one with
                       the periodic timer interrupting); calib_gaps, loaded_gaps: background time
                       found inside each (fluid chunks over 2x nominal without our interrupt)
  count, direct_sum    interrupts taken per loaded window, and their direct costs summed
  direct, irq_excess   per interrupt: its direct entry..exit cost, and the excess of the fluid
                       chunk it landed in over the nominal chunk (its own displacement);
                       irq_measured: 1, or 0 where the excess could not be measured
  smi                  SMIs per window pair where the CPU counts them (else `smi=` says why not)
and `check` records displace_vs_direct (per handler) and delivery_constant.

Per window (the paper's estimator, each loaded window paired with its own calibration window):
  delivery_w = (T_F(2)' - T_F(1)' - D_w) / n_w, T' = T - gaps
with its mean and the standard error of those paired differences; e_res = clock resolution x
(1 + L_F(2)/L_F(1)) / (2 n) = resolution / n per window, the resolution measured (p95 - p5 of
empty timed regions). Per interrupt: delivery_i = excess_i - direct_i, median and lower quartile.
`woodside` is the paper's estimator over unpaired windows with its section-3 error terms.
"""

import math

from .. import stats

WHATS = ("calib", "loaded", "calib_gaps", "loaded_gaps", "count", "direct_sum", "direct", "irq_excess",
         "irq_measured", "smi")
SIGN = 1 << 63
UNMEASURED = (1 << 64) - 1   # an interrupt taken after the window's last chunk: no excess


def signed(v):
    """A 64-bit sample written unsigned (an excess can be below zero) back to its sign."""
    return v - (1 << 64) if v >= SIGN else v


def paired_windows(calib, loaded, counts, direct_sum, calib_gaps=None, loaded_gaps=None):
    """Per-window (displacement, direct, delivery) per interrupt, windows without an interrupt
    left out; the gaps (background found inside each window) are taken out first."""
    n = len(calib)
    if not n or not (len(loaded) == len(counts) == len(direct_sum) == n):
        return []
    cg = calib_gaps if calib_gaps and len(calib_gaps) == n else [0] * n
    lg = loaded_gaps if loaded_gaps and len(loaded_gaps) == n else [0] * n
    out = []
    for c, l, k, d, a, b in zip(calib, loaded, counts, direct_sum, cg, lg):
        if k:
            disp = ((l - b) - (c - a)) / k
            out.append((disp, d / k, disp - d / k))
    return out


def mean_se(xs):
    """Mean and standard error of the mean (None with fewer than two values)."""
    if not xs:
        return None, None
    m = math.fsum(xs) / len(xs)
    if len(xs) < 2:
        return m, None
    sd = math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    return m, sd / math.sqrt(len(xs))


def quantile_ci(values, q):
    """The q-th quantile of the values (stats.quantile) and its distribution-free 95% CI
    (stats.quantile_ci: exact binomial ranks; a side the sample cannot bound is None), as
    (value, lo, hi); (None, None, None) without values. The firmware's own estimates on the check
    records are a bootstrap over windows (bench/stats/displace.c); the report shows those where
    present, and these, the same convention as every other set's, beside them."""
    v = sorted(values)
    if not v:
        return None, None, None
    ci = stats.quantile_ci(v, q)
    return stats.quantile(v, q), ci["lo"], ci["hi"]


def chunk_offset(calib, calib_gaps, chunks, nominal):
    """Mean fluid chunk of the calibration windows (gaps out) minus the nominal chunk (timed by a
    separate loop, a few instructions apart): taken from every excess, as the firmware does."""
    if not calib or not chunks or nominal is None:
        return 0.0
    gaps = calib_gaps if calib_gaps and len(calib_gaps) == len(calib) else [0] * len(calib)
    return math.fsum(c - g for c, g in zip(calib, gaps)) / (len(calib) * chunks) - nominal


def per_interrupt(excess, direct, offset=0.0, measured=None):
    """Paired per-interrupt (displacement, direct, delivery) lists; None when they do not pair.
    `measured` (the irq_measured set, 1/0 per interrupt) leaves out the unmeasured ones."""
    if not excess or len(excess) != len(direct) or (measured and len(measured) != len(excess)):
        return None
    flags = measured or [1] * len(excess)
    pairs = [(signed(e) - offset, d) for e, d, f in zip(excess, direct, flags) if f and e != UNMEASURED]
    ex, di = [p[0] for p in pairs], [p[1] for p in pairs]
    return ex, di, [e - d for e, d in pairs]


def handler_row(sets, checks=()):
    """One handler's row from its sets {what: (set record, values)} and its check records."""
    p = (sets.get("loaded") or sets.get("calib"))[0].get("params") or {}
    vals = {w: sets[w][1] if w in sets else [] for w in WHATS}
    win = paired_windows(vals["calib"], vals["loaded"], vals["count"], vals["direct_sum"],
                         vals["calib_gaps"], vals["loaded_gaps"])
    g_mean, g_se = mean_se([w[2] for w in win])
    counts = [k for k in vals["count"] if k]
    n_bar = math.fsum(counts) / len(counts) if counts else None
    res = p.get("clock_res_cycles")
    total = sum(vals["count"])
    loaded_t = sum(l - g for l, g in zip(vals["loaded"], vals["loaded_gaps"] or [0] * len(vals["loaded"])))
    calib_t = sum(c - g for c, g in zip(vals["calib"], vals["calib_gaps"] or [0] * len(vals["calib"])))
    row = {"handler": p.get("handler"), "work": p.get("work_cycles"), "work_iters": p.get("work_iters"),
           "period": p.get("period_cycles"), "windows": len(vals["calib"]), "interrupts": total,
           "win_displacement": (loaded_t - calib_t) / total if total else None,
           "win_direct": sum(vals["direct_sum"]) / total if total else None,
           "win_delivery_mean": g_mean, "win_delivery_se": g_se,
           "e_res": res * 2 / (2 * n_bar) if res is not None and n_bar else None,
           "clock_res": res,
           "gaps_per_window": (math.fsum(vals["calib_gaps"]) + math.fsum(vals["loaded_gaps"])) / len(vals["calib"])
           if vals["calib"] else None,
           "smi_per_window": math.fsum(vals["smi"]) / len(vals["smi"]) if vals["smi"] else None,
           "smi_note": p.get("smi"), "hz": (sets.get("loaded") or sets.get("calib"))[0].get("tsc_hz")}
    # AArch64: the work's clock (PMU cycles, else counter ticks) and the results' (counter ticks)
    row.update(work_unit=p.get("work_unit"), time_unit=p.get("time_unit"), work_ticks=p.get("work_ticks"),
               work_clock=p.get("work_clock"))
    cs = (sets.get("calib") or (None,))[0] or {}
    chunks = cs.get("iters") // p["chunk_iters"] if cs.get("iters") and p.get("chunk_iters") else None
    row["chunk_offset"] = chunk_offset(vals["calib"], vals["calib_gaps"], chunks, p.get("chunk_cycles"))
    pi = per_interrupt(vals["irq_excess"], vals["direct"], row["chunk_offset"], vals["irq_measured"])
    row["paired"] = pi is not None
    if pi:
        ex, di, de = pi
        row["displacement"] = quantile_ci(ex, 0.5)[0]
        row["direct"] = quantile_ci(di, 0.5)[0]
        row["delivery"] = quantile_ci(de, 0.5)
        row["delivery_q25"] = quantile_ci(de, 0.25)
    else:
        row.update(displacement=None, direct=None, delivery=(None,) * 3, delivery_q25=(None,) * 3)
    row["check"] = next((c for c in checks if c.get("name") == "displace_vs_direct"
                         and c.get("work_cycles") == row["work"]), None)
    return row


def rows(disp, checks=()):
    """Rows by handler work from {handler: {what: (set, values)}} (the irq_displace sets)."""
    mine = [c for c in checks or () if c.get("probe") == "irq_displace"]
    out = [handler_row(d, mine) for h, d in disp.items() if h and ("loaded" in d or "calib" in d)]
    return sorted(out, key=lambda r: r["work"] if r["work"] is not None else -1)


def constant_check(checks):
    return next((c for c in checks or () if c.get("probe") == "irq_displace"
                 and c.get("name") == "delivery_constant"), None)


def _sd(xs):
    if len(xs) < 2:
        return 0.0
    m = math.fsum(xs) / len(xs)
    return math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def woodside(calib, loaded, counts, lf1, lf2=None, overhead=0, resolution=1.0):
    """Woodside et al.: per-interrupt CPU cost from a fluid loop's displacement.

    calib: T_F(1) per calibration window (L_F(1) = lf1 iterations, interrupts masked);
    loaded: T_F(2) per loaded window (lf2 iterations, default lf1); counts: interrupts taken per
    loaded window (L_PUT(2)). overhead S (start/stop cost inside every window) is subtracted from
    both, which removes the paper's e_start = S / L_PUT(2) (reported for reference).

    tau_F = (mean T_F(1) - S) / L_F(1); T_PUT = sum(T_F(2) - S - L_F(2) tau_F);
    tau_PUT = T_PUT / sum L_PUT(2).
    Error terms per window (section 3): e_res = resolution (1 + L_F(2)/L_F(1)) / (2 L_PUT(2));
    e_daemons is bounded by the calibration's spread: sd(T_F(1)) * (L_F(2)/L_F(1)) / L_PUT(2).
    """
    lf2 = lf2 or lf1
    if not calib or not loaded or len(loaded) != len(counts) or not lf1:
        return None
    total = sum(counts)
    tau_f = (mean_se(calib)[0] - overhead) / lf1
    t_put = math.fsum(t - overhead - lf2 * tau_f for t in loaded)
    per_window = total / len(loaded)
    res = {"tau_f": tau_f, "windows": len(loaded), "calib_windows": len(calib), "interrupts": total,
           "t_put": t_put, "lf1": lf1, "lf2": lf2, "overhead": overhead,
           "cost": t_put / total if total else None}
    if per_window:
        res["e_res"] = resolution * (1 + lf2 / lf1) / (2 * per_window)
        res["e_start"] = overhead / per_window
        res["e_daemons"] = _sd(calib) * (lf2 / lf1) / per_window
    else:
        res.update(e_res=None, e_start=None, e_daemons=None)
    return res
