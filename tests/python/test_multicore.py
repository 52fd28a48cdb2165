"""Multi-core bandwidth analysis (membw_mc sets) on hand-made summaries: per-core and aggregate
rates, scaling over one core, missing cores, and the report section."""

from bmharness.analysis import multicore
from bmharness.report import multicore as multicore_report, report

HZ = 1e9  # 1 cycle = 1 ns: GB/s = bytes per pass / cycles per pass


def mc_set(set_id, kernel, cpus, cpu, size, cycles, bytes_per_op):
    return {"name": "membw_mc", "set": set_id, "tsc_hz": HZ, "iters": 1, "overhead": 0,
            "n": 8, "received": 8, "complete": True,
            "params": {"kernel": kernel, "width": 256, "size": size, "cpus": cpus, "cpu": cpu,
                       "bytes_per_op": bytes_per_op, "convention": "rw"},
            "stats": {"per_op": {"n": 8, "median": cycles, "ci95": [cycles * 0.99, cycles * 1.01]}}}


def summary(sets, skips=()):
    return {"platform": {"tsc": {"hz": HZ}}, "sets": sets, "skips": list(skips)}


def two_core_read():
    mib = 1 << 20
    return [
        mc_set(0, "read", 1, 0, mib, 1000, mib),
        mc_set(1, "read", 1, "all", mib, 1000, mib),
        mc_set(2, "read", 2, 0, mib, 1250, mib),
        mc_set(3, "read", 2, 1, mib, 1000, mib),
        mc_set(4, "read", 2, "all", mib, 1300, 2 * mib),
    ]


def test_rates_scaling_and_efficiency():
    rows = multicore.analyse(summary(two_core_read()))["rows"]
    assert [(r["kernel"], r["cpus"]) for r in rows] == [("read", 1), ("read", 2)]
    one, two = rows
    mib = 1 << 20
    assert one["agg"]["gbps"] == mib / 1000 and one["scaling"] == 1.0
    assert two["agg"]["gbps"] == 2 * mib / 1300
    assert two["core_min"] == mib / 1250 and two["core_max"] == mib / 1000
    assert two["core_sum"] == mib / 1250 + mib / 1000
    assert abs(two["scaling"] - (2 * mib / 1300) / (mib / 1000)) < 1e-12
    assert abs(two["efficiency"] - two["scaling"] / 2) < 1e-12
    assert two["missing_cores"] == 0


def test_aggregate_against_dram_peak():
    s = summary(two_core_read())
    mc = multicore.analyse(s)
    assert mc["peak_gbps"] is None and "no dram_peak" in mc["peak_reason"]
    assert all(r["pct_peak"] is None for r in mc["rows"])
    s["platform"]["dram_peak"] = {"status": "ok", "mbps": 4000}  # 4 GB/s
    two = multicore.analyse(s)["rows"][1]
    assert abs(two["pct_peak"] - 100 * (2 * (1 << 20) / 1300) / 4.0) < 1e-9


def test_missing_core_is_counted_not_invented():
    sets = [s for s in two_core_read() if not (s["params"]["cpus"] == 2 and s["params"]["cpu"] == 1)]
    two = multicore.analyse(summary(sets))["rows"][1]
    assert two["missing_cores"] == 1 and two["core_sum"] is None
    assert len(two["cores"]) == 1


def test_no_one_core_baseline_means_no_scaling():
    sets = [s for s in two_core_read() if s["params"]["cpus"] == 2]
    (two,) = multicore.analyse(summary(sets))["rows"]
    assert two["scaling"] is None and two["efficiency"] is None


def test_section_only_when_there_is_something_to_say():
    doc = report.Doc()
    multicore_report.section(doc, multicore.analyse(summary([])))
    assert "Multi-core" not in doc.text()
    skip = {"probe": "membw_mc", "reason": "only one CPU online: no valid MADT"}
    doc = report.Doc()
    multicore_report.section(doc, multicore.analyse(summary([], [skip])))
    assert "only one CPU online" in doc.text()
    counter_skip = {"probe": "membw_mc", "set": 0, "ctr_set": "bandwidth", "reason": "no PMU"}
    mc = multicore.analyse(summary(two_core_read(), [counter_skip]))
    assert mc["skips"] == []  # the Counters section reports those
    doc = report.Doc()
    multicore_report.section(doc, multicore.analyse(summary(two_core_read())))
    text = doc.text()
    assert "aggregate GB/s" in text and "scaling" in text


def with_clock(s, ticks):
    """The add chain's fields on a per-core set: 32768 cycles in `ticks` counter ticks (1 GHz)."""
    s["params"].update({"core_clock": "add_chain", "core_clock_cycles": 32768, "core_clock_ticks_lo": ticks,
                        "core_clock_ticks_med": ticks, "core_clock_ticks_hi": ticks})
    return s


def test_per_core_bytes_per_cycle_over_each_core_own_clock():
    sets = two_core_read()
    with_clock(sets[2], 16384)  # 2 cores, core 0: 2 GHz
    with_clock(sets[3], 8192)   # 2 cores, core 1: 4 GHz
    one, two = multicore.analyse(summary(sets))["rows"]
    mib = 1 << 20
    # core 0: mib/1250 B/ns at 2 cycles/ns; core 1: mib/1000 B/ns at 4 cycles/ns (by hand)
    assert abs(two["core_bpc_max"] - mib / 1250 / 2) < 1e-9
    assert abs(two["core_bpc_min"] - mib / 1000 / 4) < 1e-9
    assert one["core_bpc_min"] is None and one["core_bpc_max"] is None  # no clock: none invented
    doc = report.Doc()
    multicore_report.section(doc, multicore.analyse(summary(sets)))
    text = doc.text()
    assert "per core B/cycle" in text and "262.1" in text and "419.4" in text
    doc = report.Doc()
    multicore_report.section(doc, multicore.analyse(summary(two_core_read())))
    assert "B/cycle" not in doc.text()  # older logs: no column
