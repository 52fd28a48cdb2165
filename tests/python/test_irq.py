"""The Interrupts section's arithmetic and report: latency percentiles, Woodside's displacement
estimate and error terms, Schaelicke's footprint conversion, the noise summary, and a synthetic
boot carrying every interrupt probe through parse and report."""

import math

import pytest

import synth
from bmharness import irq, parse, report


def test_latency_stats_percentiles():
    vals = list(range(1, 1001))
    st = irq.latency_stats(vals)
    assert st["n"] == 1000 and st["min"] == 1 and st["max"] == 1000
    assert st["median"] == pytest.approx(500.5)
    assert st["p99"] == pytest.approx(990.01)
    # p99.9 needs N x 0.001 >= 10: with 1000 samples it would be the largest one or two values
    assert st["p99.9"] is None
    big = irq.latency_stats(list(range(1, 10001)))
    assert big["p99.9"] == pytest.approx(9990.001)
    assert irq.latency_stats(list(range(1, 10000)))["p99.9"] is None
    assert irq.latency_stats([])["median"] is None
    # order-statistic CIs: N = 1000 median ranks (469, 532) by the binomial, p99 (983, 997)
    assert (st["median_ci"]["lo"], st["median_ci"]["hi"]) == (469, 532)
    assert (st["p99_ci"]["lo"], st["p99_ci"]["hi"]) == (983, 997)


def test_displacement_recovers_known_cost_exactly():
    # Fluid loop: 2 cycles/iteration, S = 100 cycles of start/stop per window; 50 interrupts of
    # 1000 cycles each per loaded window.
    lf, s = 1000000, 100
    calib = [lf * 2 + s] * 4
    loaded = [lf * 2 + s + 50 * 1000] * 4
    r = irq.displacement(calib, loaded, [50] * 4, lf, overhead=s)
    assert r["tau_f"] == pytest.approx(2.0)
    assert r["cost"] == pytest.approx(1000.0)
    assert r["interrupts"] == 200
    # e_res = delta (1 + L_F(2)/L_F(1)) / (2 L_PUT(2)) with one-cycle resolution
    assert r["e_res"] == pytest.approx(2 / (2 * 50))
    assert r["e_start"] == pytest.approx(s / 50)
    assert r["e_daemons"] == 0.0


def test_displacement_without_overhead_correction_is_off_by_e_start():
    lf, s = 1000, 300
    calib = [2 * lf + s] * 3
    loaded = [2 * lf + s + 10 * 500] * 3
    corrected = irq.displacement(calib, loaded, [10] * 3, lf, overhead=s)["cost"]
    uncorrected = irq.displacement(calib, loaded, [10] * 3, lf, overhead=0)
    # Not subtracting S: tau_F absorbs S / L_F(1). With L_F(2) = L_F(1) the S inside T_F(2) and the
    # S spread over L_F(2) iterations cancel.
    assert corrected == pytest.approx(500.0)
    assert uncorrected["cost"] == pytest.approx(500.0)
    # With L_F(2) = 2 L_F(1) they do not: the error is -(L_F(2)/L_F(1) - 1) S / L_PUT(2).
    loaded2 = [4 * lf + s + 10 * 500] * 3
    off = irq.displacement(calib, loaded2, [10] * 3, lf, lf2=2 * lf, overhead=0)["cost"]
    assert off - 500.0 == pytest.approx(-s / 10)


def test_displacement_daemon_term_and_bad_input():
    lf = 1000
    calib = [2000, 2010, 1990, 2000]
    r = irq.displacement(calib, [2000 + 5000] * 4, [5] * 4, lf)
    sd = math.sqrt(sum((c - 2000) ** 2 for c in calib) / 3)
    assert r["e_daemons"] == pytest.approx(sd / 5)
    assert irq.displacement([], [1], [1], lf) is None
    assert irq.displacement([1], [1, 2], [1], lf) is None   # counts must pair with windows
    assert irq.displacement([2000], [2000], [0], lf)["cost"] is None  # no interrupt: no cost


def test_noise_summary():
    f = {"window_cycles": 1000000, "total_cycles": 3000, "longest_cycles": 2000, "count": 3,
         "dropped": 1, "threshold_cycles": 400, "median_step_cycles": 40, "irq_masked": 1,
         "smi": "not_intel"}
    nz = irq.noise_summary(f, [10, 5000], [2000, 600], 1e9)
    assert nz["share"] == pytest.approx(0.003)
    assert nz["consistent"]
    assert not irq.noise_summary(dict(f, dropped=0), [10, 5000], [2000, 600], 1e9)["consistent"]


def _irq_stream():
    st = synth.Stream().begin()
    st.add("plat", kind="apic", ready=1, mode="xapic", timer_hz=1000000000, tsc_deadline=0)
    common = dict(armed=10, taken=10, lost=0, early=0, extra=0, spurious=0, unexpected=0)
    st.probe("irq_latency", 0, [100 + i for i in range(10)], source="lapic_oneshot", mode="oneshot",
             wait="spin", deadline="apic_count_ratio", **common)
    st.probe("irq_latency", 1, [50] * 10, source="self_ipi", mode="ipi", wait="spin", deadline="send_tsc", **common)
    st.add("skip", probe="irq_latency", source="lapic_tsc_deadline", reason="no TSC-deadline")
    st.probe("irq_exception", 2, [700] * 8, overhead=70, kind="int3")
    lf = 1000
    st.probe("irq_displace", 3, [2100] * 4, iters=lf, overhead=100, what="calib")
    st.probe("irq_displace", 4, [2100 + 3 * 400] * 4, iters=lf, overhead=100, what="loaded", handler="k256",
             work_lines=256)
    st.probe("irq_displace", 5, [3] * 4, what="count", handler="k256", work_lines=256)
    st.probe("irq_displace", 6, [396] * 12, what="direct", handler="k256", work_lines=256)
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
              threshold_cycles=100, median_step_cycles=10, irq_masked=1, smi="not_intel")
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
    assert res["latency"][0]["median"] == pytest.approx(104.5)
    (d,) = res["displace"]
    assert d["disp"]["cost"] == pytest.approx(400.0) and d["direct_mean"] == pytest.approx(396.0)
    assert d["ratio"] == pytest.approx(400 / 396)
    (lv,) = res["footprint"]["levels"]
    assert [r["k"] for r in lv["curve"]] == [0, 16, 64, 128] and lv["checks"][0]["status"] == "pass"
    assert res["noise"]["count"] == 2 and res["noise"]["consistent"]
    assert res["exceptions"][0]["median"] == pytest.approx(630)
    text, ok = report.write_report(str(tmp_path), plot=False)
    assert "INTERRUPTS" in text and "displacement" in text and "Platform noise" in text
    assert "no TSC-deadline" in text
    md = (tmp_path / "report.md").read_text()
    assert "## Interrupts" in md and "| k256 |" in md


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
    irq.section(doc, res, None)
    assert "masked samples 1000/1024 complete" in doc.text()
