"""Primitive costs from probe `prim`'s sets (bench/probes/prim.c; docs/methods/vectors.md): the
machine vector's per-operation coefficients, each in ns with the CI of its set, and the known-answer
checks the sets allow.

One set's cost per operation: the median sample over iters x ops_per_iter, in counter ticks, at the
set's tsc_hz (the runner's overhead taken off first); its interval from the set's 95% CI of the
median. The coefficients (`op_ns.<name>`):
- int_indep, int_dep, load, store, fp_add, call, syscall, page_fault, ctx_switch: the set's cost;
- branch, indirect: the fixed-outcome set's cost (a predicted branch, with its test and its share
  of the kernel's xorshift);
- branch_miss, indirect_miss: a mispredicted one, the predicted cost plus the misprediction
  penalty, (random set - fixed set) / the miss fraction per branch. The fraction is the PMU's
  (branch_misses / branches of the random set, less the fixed set's) where a counter counts, else
  RANDOM_MISS_FRACTION: a predictor that cannot learn the generator guesses a random bit right half
  the time. Where the two sets cost the same (an emulator has no predictor) the miss costs what the
  predicted branch costs.

Known answers (checks()): a dependent add is one core cycle where the set carries the core clock
(the add chain timed beside it: the same instruction, timed by other code at another moment) and,
where a PMU counts cycles, by the counter; instructions per iteration equal the kernel's static
count where an instruction counter counts (the PMU, exact under QEMU's -icount); the random branch
sets mispredict about half their branches where a PMU counts branch misses."""

from .. import stats
from ..stream.values import num
from . import core_clock

PREFIX = "op_ns."
RANDOM_MISS_FRACTION = 0.5
# The known answers' bands: one dependent add per core cycle within 10% (the clock is timed by
# another code path at another moment); a random branch mispredicted 35-65% of the time.
DEP_ADD_BAND = (0.9, 1.1)
MISS_BAND = (0.35, 0.65)
PAIRS = (("branch", "branch_random", "branch_miss"), ("indirect", "indirect_random", "indirect_miss"))


def prim_sets(summary):
    """{prim name: set} of a summary's complete prim sets (the last of each name)."""
    out = {}
    for s in summary.get("sets") or []:
        p = s.get("params") or {}
        if s.get("name") == "prim" and p.get("prim") and (s.get("stats") or {}).get("per_op"):
            out[p["prim"]] = s
    return out


def _ns_per_op(s):
    """(value, lo, hi) ns per operation of one set, or None."""
    per = s["stats"]["per_op"]
    ops, hz = num((s.get("params") or {}).get("ops_per_iter")), num(s.get("tsc_hz"))
    med = num(per.get("median"))
    if not (ops and hz and med and med > 0):
        return None
    scale = 1e9 / hz / ops
    ci = per.get("ci95") or [None, None]
    # a CI end beyond the samples (a small, skewed set) is clamped to the fastest / slowest sample
    lo = max(num(ci[0]) or med, num(per.get("min")) or 0) * scale
    hi = min(num(ci[1]) or med, num(per.get("max")) or med) * scale
    return med * scale, min(lo, med * scale), max(hi, med * scale)


def _ctr_per_iter(s, event):
    """Counter event per iteration of a set (median sample less the counter overhead), or None."""
    ev = ((s.get("counters") or {}).get("events") or {}).get(event)
    iters = num(s.get("iters"))
    if not ev or not ev.get("values") or not iters:
        return None
    return (stats.median(ev["values"]) - (ev.get("overhead") or 0)) / iters


def miss_fraction(fixed, rnd):
    """(fraction of the random set's branches mispredicted beyond the fixed set's, source)."""
    per = []
    for s in (fixed, rnd):
        m, b = _ctr_per_iter(s, "branch_misses"), _ctr_per_iter(s, "branches")
        if m is None or not b:
            return RANDOM_MISS_FRACTION, "assumed (no branch-miss counter)"
        per.append(m)
    ops = num(rnd["params"].get("ops_per_iter")) or 1
    return max(0.0, per[1] - per[0]) / ops, "pmu branch_misses"


def _coef(t, source):
    return {"value": t[0], "lo": t[1], "hi": t[2], "unit": "ns", "source": source}


def coefficients(summary):
    """{op_ns.<name>: coefficient} of a run's prim sets (empty without them)."""
    sets = prim_sets(summary)
    out = {}
    for name, s in sets.items():
        if s["params"].get("outcome") == "random":
            continue
        t = _ns_per_op(s)
        if t:
            out[PREFIX + name] = _coef(t, "prim set %s: %s" % (s.get("set"), name))
    for fixed, rnd, miss in PAIRS:
        if fixed not in sets or rnd not in sets:
            continue
        f, r = _ns_per_op(sets[fixed]), _ns_per_op(sets[rnd])
        if not f or not r:
            continue
        frac, how = miss_fraction(sets[fixed], sets[rnd])
        if frac <= 0:
            continue
        pen = [max(0.0, r[i] - f[i]) / frac for i in range(3)]
        lo = f[1] + max(0.0, r[1] - f[2]) / frac  # the narrowest penalty the CIs allow
        hi = f[2] + max(0.0, r[2] - f[1]) / frac
        out[PREFIX + miss] = _coef((f[0] + pen[0], min(lo, f[0] + pen[0]), max(hi, f[0] + pen[0])),
                                   "prim sets %s, %s: predicted + (random - fixed) / %.3g miss "
                                   "fraction (%s)" % (sets[fixed].get("set"), sets[rnd].get("set"),
                                                      frac, how))
    return out


def _check(name, measured, expected, band, ok, how):
    return {"check": name, "measured": measured, "expected": expected, "band": band,
            "status": "pass" if ok else "fail", "how": how}


def checks(summary, emulated=False):
    """The known-answer checks the run's prim sets allow: [{check, measured, expected, band,
    status, how}] (none where neither the core clock nor a counter is there). emulated: the cycle
    counter counts emulated time, not the guest's cycles (QEMU TCG): no cycle check by it."""
    sets, out = prim_sets(summary), []
    dep = sets.get("int_dep")
    if dep:
        ov = num(dep.get("overhead")) or 0
        clk = core_clock.add_chain(dep["params"], num(dep.get("tsc_hz")), ov)
        per, ops = dep["stats"]["per_op"], num(dep["params"].get("ops_per_iter"))
        if clk and num(per.get("min")) and ops:
            # fastest sample against the fastest clock timing: on a loaded machine preemption
            # only ever adds time, so the two minima are the undisturbed ones
            cyc = (num(per["min"]) / ops) / num(dep["tsc_hz"]) * clk["hi_hz"]
            out.append(_check("dep_add_core_cycles", cyc, 1.0, DEP_ADD_BAND,
                              DEP_ADD_BAND[0] <= cyc <= DEP_ADD_BAND[1],
                              "fastest sample x fastest core clock timing (add chain)"))
        cyc = _ctr_per_iter(dep, "cycles")
        if cyc is not None and not emulated:
            c = cyc / num(dep["params"]["ops_per_iter"])
            out.append(_check("dep_add_pmu_cycles", c, 1.0, DEP_ADD_BAND,
                              DEP_ADD_BAND[0] <= c <= DEP_ADD_BAND[1], "pmu cycles"))
    for name, s in sorted(sets.items()):
        want = num(s["params"].get("insns_per_iter"))
        got = _ctr_per_iter(s, "instructions")
        if want and got is not None and got > 0:
            out.append(_check("insns_per_iter." + name, got, want, (want - 0.5, want + 0.5),
                              abs(got - want) <= 0.5, "pmu instructions"))
    for fixed, rnd, _ in PAIRS:
        if fixed in sets and rnd in sets:
            frac, how = miss_fraction(sets[fixed], sets[rnd])
            if how.startswith("pmu") and _ctr_per_iter(sets[rnd], "branches"):
                out.append(_check("miss_fraction." + rnd, frac, RANDOM_MISS_FRACTION, MISS_BAND,
                                  MISS_BAND[0] <= frac <= MISS_BAND[1], how))
    return out

