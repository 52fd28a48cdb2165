"""Latency table statistics (order-statistic CIs, the p99.9 rule), the table's text for the
deadline uncertainty and early-but-quantised counts, and the noise probe's per-gap SMI
attribution and threshold."""


from bmharness.analysis import irq, irq_lat
from bmharness.report import irq_lat as irq_lat_report, report


def test_summary_cis_bracket_the_estimates():
    vals = [1000 + (i * 37) % 500 for i in range(400)]
    st = irq_lat.latency_summary(vals)
    s = sorted(vals)
    assert st["n"] == 400 and st["p99.9"] is None
    ci = st["median_ci"]
    assert ci["lo"] <= st["median"] <= ci["hi"]
    # n = 400 median, B ~ Bin(400, 1/2), sd 10: P(B <= 179) ~ Phi(-2.05) = 0.020 <= 0.025 <
    # P(B <= 180) ~ Phi(-1.95) = 0.026 -> l = 180; P(B <= 219) ~ 0.974 < 0.975 <= P(B <= 220) -> u = 221
    assert (ci["lo_rank"], ci["hi_rank"]) == (180, 221)
    assert (ci["lo"], ci["hi"]) == (s[179], s[220])
    p = st["p99_ci"]
    assert p["lo"] <= st["p99"] <= p["hi"] and p["hi_rank"] <= 400
    assert irq_lat.latency_summary([])["median_ci"] is None


def test_ci_text_marks_an_unbounded_side():
    ci = {"lo": 2000, "hi": None}
    assert irq_lat_report.ci_text(3000, ci, 1e9) == "3000 [2000, ?]"
    assert irq_lat_report.ci_text(None, ci, 1e9) == "-"


def _row(params, vals):
    return dict(irq.latency_stats(vals), source=params.get("source"), mode="oneshot", wait="spin",
                deadline=params.get("deadline"), hz=1e9, values=vals, params=params)


def test_table_states_uncertainty_and_quantisation():
    doc = report.Doc()
    hp = {"source": "hpet", "deadline": "hpet_count_ratio", "uncertainty_median": 300, "uncertainty_max": 900,
          "early_within_uncertainty": 2, "armed": 12, "taken": 12, "lost": 0, "early": 0, "extra": 0,
          "spurious": 0, "truncated_by_time": 1, "smi_count": 3, "eff_hz": 2.5e9}
    ap = {"source": "lapic_oneshot", "deadline": "apic_count_ratio", "tick_cycles": 3, "early_quantised": 1,
          "smi": "unavailable: MSR_SMI_COUNT is Intel-only", "eff_freq": "no APERF/MPERF (CPUID 6 ECX[0])"}
    irq_lat_report.table(doc, [_row(hp, list(range(10))), _row(ap, list(range(11)))])
    headers, rows = doc.blocks[-1][1], doc.blocks[-1][2]
    col = {h: i for i, h in enumerate(headers)}
    assert rows[0][col["deadline +- ns"]] == "+-300.0/900.0" and rows[0][col["early ok"]] == "2 (<unc)"
    assert rows[0][col["trunc"]] == "yes" and rows[0][col["SMIs"]] == "3"
    assert rows[0][col["eff freq"]] == "2.500 GHz" and rows[0][col["p99.9"]] == "n<10000"
    assert rows[1][col["deadline +- ns"]] == "-3.000" and rows[1][col["early ok"]] == "1 (<1 tick)"
    assert rows[1][col["SMIs"]] == "n/a" and rows[1][col["eff freq"]] == "n/a"


def test_smi_gaps_counts_rises_since_the_previous_gap():
    assert irq.smi_gaps([0, 0, 1, 1, 3, 3]) == 2
    assert irq.smi_gaps([1]) == 1
    assert irq.smi_gaps([]) == 0


def test_noise_summary_threshold_and_smi_attribution():
    f = {"window_cycles": 1000, "total_cycles": 30, "count": 2, "dropped": 0, "threshold_cycles": 10,
         "threshold_ns": 5, "hwlat_default_ns": 10000, "smi_count": 1}
    nz = irq.noise_summary(f, [100, 500], [12, 18], 2e9, smis=[0, 1])
    assert nz["threshold_ns"] == 5 and nz["hwlat_ns"] == 10000 and nz["smi_gaps"] == 1
    assert irq.noise_summary(f, [100, 500], [12, 18], 2e9)["smi_gaps"] is None
    assert nz["consistent"]
