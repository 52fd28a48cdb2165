"""Which fields of a `probe` record name the sample set, and which the boot measured or chose.

A set's identity is what it measures, as asked for: the same image with the same configuration
on the same machine writes the same identity every boot. `compare` (and anything else that
pairs sets between boots) matches sets on the identity fields only. Every field of a `probe`
record is in one of four classes:

- identity  -- names the set (probe name, unit, kernel, width, size, source, wait, what, k, ...);
- condition -- how this machine or boot ran the set (the page size the buffer got, the APIC
               mode, the eviction method, the level's geometry): not matched on, but a pair
               whose conditions differ says so;
- derived   -- chosen or computed on this boot from the configuration and calibration
               (iterations, cycle equivalents of configured times, the counters this PMU
               offers, the set number);
- measured  -- an outcome of the measurement (armed/taken, timer_hz, gaps, mlines, ...).

The table is data, in this one place; docs/protocol.md ("Set identity") states the same table
and a test keeps the two equal. A field the table does not know (a new firmware field) counts as
identity: it can then split a set in two (visible: "only in A / only in B", with the field
named as unclassified), whereas treating an unknown parameter as measured could pair two
different sets and report a difference that is not one.
"""

IDENTITY, CONDITION, DERIVED, MEASURED = "identity", "condition", "derived", "measured"
CLASSES = (IDENTITY, CONDITION, DERIVED, MEASURED)
DEFAULT_CLASS = IDENTITY  # for a field the table does not know (see the module docstring)

_IRQ_COMMON_MEASURED = ("armed", "taken", "lost", "early", "extra", "spurious", "unexpected",
                        "guard_wakeups")
_CAL = ("target", "cal_steps", "cal_capped")
# the core clock beside a set and its load reference (bench/core/core_clock.h)
_CLOCK_TICKS = ("core_clock_ticks_lo", "core_clock_ticks_med", "core_clock_ticks_hi",
                "core_ref_ticks_lo", "core_ref_ticks_med", "core_ref_ticks_hi")

# Fields with one class in every probe's records.
COMMON = {
    IDENTITY: ("name", "unit", "core_type"),  # core_type: hybrid parts, the core type of the set
    CONDITION: ("smi", "smi_note", "eff_freq", "note"),
    DERIVED: ("set", "iters", "ctr_set", "ctr_events", "ctr_passes", "ctr_refused",
              "ctr_skipped"),
    MEASURED: ("n", "overhead", "tsc_hz", "ctr_read_faults", "smi_before", "smi_after",
               "smi_count", "aperf_delta", "mperf_delta", "aperf_mperf_ppm", "eff_hz"),
}

# Per probe: the fields of its own (fields also in COMMON take COMMON's class).
PROBES = {
    "timer": {IDENTITY: ("method",), DERIVED: ("timer_samples",)},
    "spin": {IDENTITY: ("loop", "insns_per_iter"), DERIVED: _CAL},
    # the profiler's known split; what=time_a/time_b (fn) are the per-part timings of its samples
    "prof_split": {IDENTITY: ("fn_a", "fn_b", "share_a_pct", "insns_per_iter", "what", "fn"),
                   DERIVED: _CAL},
    "membw": {IDENTITY: ("kernel", "width", "size", "convention", "cpus", "cpu", "insn"),
              CONDITION: ("page", "block", "vl_bits", "core_clock", "core_ref"),
              DERIVED: ("bytes_per_op", "read_bytes", "write_bytes", "core_clock_cycles",
                        "core_ref_ops") + _CAL,
              MEASURED: _CLOCK_TICKS},
    # the peak floating-point probe: kernel (fma, mul_add), width and precision name a ceiling
    "flops": {IDENTITY: ("kernel", "width", "precision"),
              CONDITION: ("insn", "vl_bits", "core_clock", "core_ref"),
              DERIVED: ("lanes", "accumulators", "flops_per_op", "core_clock_cycles",
                        "core_ref_ops") + _CAL,
              MEASURED: _CLOCK_TICKS},
    "membw_mc": {IDENTITY: ("kernel", "width", "size", "convention", "cpus", "cpu"),
                 CONDITION: ("page", "core_clock", "core_ref"),
                 DERIVED: ("bytes_per_op", "core_clock_cycles", "core_ref_ops"),
                 MEASURED: _CLOCK_TICKS},
    "latency": {IDENTITY: ("pattern", "size", "line", "stride"), CONDITION: ("page",),
                DERIVED: ("nodes", "seed") + _CAL},
    "cachefill": {IDENTITY: ("level", "type", "state"), CONDITION: ("size", "line", "evict", "evict_bytes")},
    "smp_hello": {IDENTITY: ("what",), CONDITION: ("cpus", "apic_ids")},
    "irq_latency": {
        IDENTITY: ("source", "mode", "wait", "deadline", "vector"),
        CONDITION: ("lapic_mode", "guard", "touch_bytes", "hpet_hz", "hpet_timer", "gsi"),
        DERIVED: ("delay_cycles", "period_cycles", "requested", "warmup", "tick_cycles"),
        MEASURED: _IRQ_COMMON_MEASURED + (
            "timer_hz", "arm_cycles_median", "truncated_by_time", "early_quantised",
            "early_within_uncertainty", "resampled", "invalid_negative", "periods_elapsed",
            "uncertainty_median", "uncertainty_max", "hpet_hz_calibrated", "hpet_rearms",
            "hpet_arms_missed", "unarmed")},
    "irq_masked": {
        IDENTITY: ("source", "what"), DERIVED: ("delay_cycles",),
        MEASURED: _IRQ_COMMON_MEASURED + (
            "masked_cycles", "taken_masked", "taken_after_unmask", "after_unmask_cycles",
            "arrived_after_deadline")},
    "irq_exception": {IDENTITY: ("kind", "vector"), DERIVED: ("requested", "warmup"),
                      MEASURED: ("truncated_by_time",)},
    "irq_displace": {
        IDENTITY: ("what", "handler", "work_cycles", "source", "fluid", "insns_per_iter",
                   "chunk_iters"),
        CONDITION: ("work_unit", "time_unit", "work_clock"),
        DERIVED: ("work_iters", "period_cycles", "window_cycles", "chunk_cycles",
                  "gap_threshold_cycles", "spin_cal_iters", "work_ticks"),
        MEASURED: _IRQ_COMMON_MEASURED + (
            "gaps_calib", "gaps_loaded", "clock_res_cycles", "timer_p5", "timer_p95",
            "spin_cal_cycles", "spin_cal_work")},
    "irq_footprint": {
        IDENTITY: ("level", "type", "what", "experiment", "k", "variant", "vs", "method",
                   "retouch"),
        CONDITION: ("size", "line", "source", "event", "vendor_event", "demand_only",
                    "prefetchers", "prefetchers_changed"),
        DERIVED: ("nodes", "best_of", "ci_pct"),
        MEASURED: ("reps", "reps_used", "converged", "cost_mcyc", "cold_mpl_milli", "effect",
                   "valid_min", "valid_max", "sat_k", "min_slope_milli", "mlines", "ci_mlines",
                   "ratio_milli", "cal_status", "k_est_milli", "k_ci_low_milli",
                   "k_ci_high_milli", "handler_mlines", "handler_ci_mlines", "k_total_milli",
                   "not_pending", "not_taken", "taken")},
    "noise": {
        IDENTITY: ("what",),
        CONDITION: ("irq_masked", "irq_note", "threshold_source"),
        DERIVED: ("window_cycles", "hwlat_default_ns"),
        MEASURED: ("median_step_cycles", "p90_step_cycles", "threshold_cycles", "threshold_ns",
                   "steps", "count", "total_cycles", "longest_cycles", "dropped",
                   "smi_per_gap")},
    "pmu_cost": {IDENTITY: ("op", "level", "after"), CONDITION: ("lines", "counters")},
}


def _index(table):
    out = {}
    for cls, fields in table.items():
        for f in fields:
            out[f] = cls
    return out


_COMMON = _index(COMMON)
_PER_PROBE = {name: _index(t) for name, t in PROBES.items()}


def field_class(probe, field):
    """The class of one field of a probe's records, or None when the table does not know it."""
    return _COMMON.get(field) or _PER_PROBE.get(probe, {}).get(field)


def effective_class(probe, field):
    """field_class, with DEFAULT_CLASS for a field the table does not know."""
    return field_class(probe, field) or DEFAULT_CLASS


def fields_of(s):
    """A summary set's probe-record fields (its params plus the standard ones it carries)."""
    out = dict(s.get("probe") or {})
    out.update(s.get("params") or {})
    return out


def identity(s):
    """The fields naming a summary set: {field: value} of its identity (and unknown) fields."""
    name = s.get("name")
    out = {"name": name}
    for k, v in fields_of(s).items():
        if k not in ("set",) and effective_class(name, k) == IDENTITY:
            out[k] = v
    if s.get("unit") is not None:
        out["unit"] = s.get("unit")
    return out


def key(s):
    """A hashable identity of a summary set: equal for the same set in another boot."""
    return tuple(sorted((k, str(v)) for k, v in identity(s).items()))


def conditions(s):
    """{field: value} of a set's condition fields."""
    name = s.get("name")
    return {k: v for k, v in fields_of(s).items() if field_class(name, k) == CONDITION}


def unclassified(sets):
    """Sorted (probe, field) pairs of the given summary sets that the table does not know."""
    return sorted({(s.get("name"), k) for s in sets for k in fields_of(s)
                   if field_class(s.get("name"), k) is None})


def table_rows():
    """(probe, {class: sorted fields}) per probe, the common fields first as probe '*': the
    rows of docs/protocol.md's table."""
    rows = [("*", {c: sorted(COMMON.get(c, ())) for c in CLASSES})]
    for name in sorted(PROBES):
        rows.append((name, {c: sorted(PROBES[name].get(c, ())) for c in CLASSES}))
    return rows
