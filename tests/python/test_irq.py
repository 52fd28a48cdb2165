"""The Interrupts section's arithmetic and report: latency percentiles (Woodside's displacement
arithmetic is in test_displace.py), Schaelicke's footprint conversion, the noise summary, and a synthetic
boot carrying every interrupt probe through parse and report."""

import pytest

import synth
from bmharness.analysis import irq
from bmharness.report import irq as irq_report, report
from bmharness.stream import parse


def test_latency_stats_percentiles():
    vals = list(range(1, 1001))
    st = irq.latency_stats(vals)
    assert st["n"] == 1000 and st["min"] == 1 and st["max"] == 1000
    # the harness's quantile: the order statistic of rank ceil(N q), a measured value
    assert st["median"] == 500 and st["p99"] == 990
    # p99.9 needs N x 0.001 >= 10: with 1000 samples it would be the largest one or two values
    assert st["p99.9"] is None
    big = irq.latency_stats(list(range(1, 10001)))
    assert big["p99.9"] == 9990
    assert irq.latency_stats(list(range(1, 10000)))["p99.9"] is None
    assert irq.latency_stats([])["median"] is None
    # order-statistic CIs: N = 1000 median ranks (469, 532) by the binomial, p99 (983, 997)
    assert (st["median_ci"]["lo"], st["median_ci"]["hi"]) == (469, 532)
    assert (st["p99_ci"]["lo"], st["p99_ci"]["hi"]) == (983, 997)




def test_noise_summary():
    f = {"window_cycles": 1000000, "total_cycles": 3000, "longest_cycles": 2000, "count": 3,
         "dropped": 1, "threshold_cycles": 400, "median_step_cycles": 40, "irq_masked": 1,
         "smi": "not_intel"}
    nz = irq.noise_summary(f, [10, 5000], [2000, 600], 1e9)
    assert nz["share"] == pytest.approx(0.003)
    assert nz["consistent"]
    assert not irq.noise_summary(dict(f, dropped=0), [10, 5000], [2000, 600], 1e9)["consistent"]


def _irq_stream(**apic):
    st = synth.Stream().begin()
    st.add("plat", dict(dict(kind="apic", ready=1, mode="xapic", timer_hz=1000000000, tsc_deadline=0), **apic))
    common = dict(armed=10, taken=10, lost=0, early=0, extra=0, spurious=0, unexpected=0)
    st.probe("irq_latency", 0, [100 + i for i in range(10)], source="lapic_oneshot", mode="oneshot",
             wait="spin", deadline="apic_count_ratio", **common)
    st.probe("irq_latency", 1, [50] * 10, source="self_ipi", mode="ipi", wait="spin", deadline="send_tsc", **common)
    st.add("skip", probe="irq_latency", source="lapic_tsc_deadline", reason="no TSC-deadline")
    st.probe("irq_exception", 2, [700] * 8, overhead=70, kind="int3")
    lf, dp = 1000, dict(handler="w396", work_cycles=396, clock_res_cycles=20, smi="unavailable_not_intel")
    st.probe("irq_displace", 3, [2100] * 4, iters=lf, overhead=100, what="calib", **dp)
    st.probe("irq_displace", 4, [2100 + 3 * 400] * 4, iters=lf, overhead=100, what="loaded", **dp)
    st.probe("irq_displace", 5, [3] * 4, what="count", **dp)
    st.probe("irq_displace", 6, [3 * 396] * 4, what="direct_sum", **dp)
    st.probe("irq_displace", 20, [396] * 12, what="direct", **dp)
    st.probe("irq_displace", 21, [400] * 12, what="irq_excess", **dp)
    fp = dict(level=1, type="data", nodes=100, method="time", retouch="reverse", prefetchers="on")
    st.probe("irq_footprint", 7, [1100] * 4, what="cold", experiment="direct", cost_mcyc=10000, effect=1,
             valid_min=16, valid_max=64, sat_k=128, reps=4, converged=1, **fp)
    for sid, (k, m) in enumerate(((0, 0), (16, 20000), (64, 70000), (128, 75000))):
        st.probe("irq_footprint", 8 + sid, [500 + m // 100] * 4, what="calib", experiment="direct", k=k,
                 mlines=m, ci_mlines=1000, reps=4, converged=1, **fp)
    st.add("check", name="footprint_k", probe="irq_footprint", status="pass", level=1, type="data", k=40,
           expected=40, measured=41, ci_low=39, ci_high=43, raw_mlines=45000, raw_ci_mlines=1000,
           valid_min=16, valid_max=64, tol_pct=20, reps=4, converged=1)
    nz = dict(window_cycles=10000, total_cycles=900, longest_cycles=500, count=2, dropped=0,
              threshold_cycles=120, median_step_cycles=10, p90_step_cycles=12, irq_masked=1, smi="not_intel")
    st.probe("noise", 14, [10] * 5, what="loop_step", **nz)
    st.probe("noise", 15, [100, 5000], what="gap_start", **nz)
    st.probe("noise", 16, [400, 500], what="gap_len", **nz)
    st.end()
    return "\n".join(st.lines) + "\n"


def test_synthetic_boot_report(tmp_path):
    log = tmp_path / "serial.log"
    log.write_text(_irq_stream())
    summary = parse.parse_log(str(log), str(tmp_path))
    res = irq.analyse(summary, str(tmp_path))
    assert [r["source"] for r in res["latency"]] == ["lapic_oneshot", "self_ipi"]
    assert res["latency"][0]["median"] == 104  # 100..109: the lower middle
    (d,) = res["displace"]
    assert d["win_displacement"] == pytest.approx(400.0) and d["win_direct"] == pytest.approx(396.0)
    assert d["displacement"] == 400 and d["direct"] == 396 and d["delivery"][0] == 4
    (lv,) = res["footprint"]["levels"]
    assert [r["k"] for r in lv["curve"]] == [0, 16, 64, 128] and lv["checks"][0]["status"] == "pass"
    assert res["noise"]["count"] == 2 and res["noise"]["consistent"] and res["noise"]["p90_step"] == 12
    assert res["exceptions"][0]["median"] == pytest.approx(630)
    text, ok = report.write_report(str(tmp_path), plot=False)
    assert "INTERRUPTS" in text and "displacement" in text and "Platform noise" in text
    assert "loop step median 10 cycles, p90 12" in text
    assert "no TSC-deadline" in text
    md = (tmp_path / "report.md").read_text()
    assert "## Interrupts" in md and "| 396 |" in md and "unavailable (unavailable_not_intel)" in md


def test_tsc_deadline_refused_in_report(tmp_path):
    """A CPU on Linux's TSC-deadline errata list (plat kind=apic tsc_deadline_refused): the report
    says the mode is reported but refused, and why."""
    why = "TSC-deadline erratum: family 6 model 0x5e (SKYLAKE) stepping 3 microcode 0xb0 is below 0xb2"
    log = tmp_path / "serial.log"
    log.write_text(_irq_stream(tsc_deadline=1, tsc_deadline_refused=why))
    parse.parse_log(str(log), str(tmp_path))
    report.write_report(str(tmp_path), plot=False)
    md = (tmp_path / "report.md").read_text()
    assert "TSC-deadline reported but refused (" + why + ")" in md


def test_plots_drawn(tmp_path):
    pytest.importorskip("matplotlib")
    log = tmp_path / "serial.log"
    log.write_text(_irq_stream())
    parse.parse_log(str(log), str(tmp_path))
    text, ok = report.write_report(str(tmp_path), plot=True)
    for name in ("irq-latency-hist.png", "irq-latency-cdf.png", "irq-footprint.png", "noise-timeline.png"):
        assert (tmp_path / name).stat().st_size > 1000, name
    assert "irq-latency-cdf.png" in (tmp_path / "report.md").read_text()


def test_masked_window_reports_received_of_declared():
    res = {"latency": [], "exceptions": [], "displace": [], "footprint": [], "noise": None, "skips": [],
           "apic": None, "masked": [{"taken_masked": 0, "taken_after_unmask": 1, "after_unmask_cycles": 900,
                                     "n": 1024, "received": 1000, "set": 3}]}
    doc = report.Doc()
    irq_report.section(doc, res, None)
    assert "masked samples 1000/1024 complete" in doc.text()
