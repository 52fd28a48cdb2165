"""The displacement table's arithmetic (harness/bmharness/analysis/displace.py; the table itself
is report/displace.py's) on synthetic data whose answer is known by construction: paired windows
with background gaps taken out, the standard error of the paired differences, the measured clock-resolution term, per-interrupt pairing and
its quantiles, SMIs unavailable rather than zero, and the parse -> analyse -> report path."""

import math

import pytest

import synth
from bmharness import stats
from bmharness.analysis import displace, irq
from bmharness.report import displace as displace_report, report
from bmharness.stream import parse

DELIVERY, RES = 300, 20


def _windows(work, n=8, per=10, noise=()):
    """n window pairs: calibration 10^6 cycles (+ a background gap in odd ones, recorded), loaded
    = the same + per x (delivery + work), direct sum = per x work; noise[i] added to delivery."""
    calib, cgap, loaded, lgap, count, dsum = [], [], [], [], [], []
    for i in range(n):
        g = 5000 if i % 2 else 0
        extra = noise[i] if i < len(noise) else 0
        calib.append(10 ** 6 + g)
        cgap.append(g)
        loaded.append(10 ** 6 + per * (DELIVERY + work) + extra + 7000)
        lgap.append(7000)
        count.append(per)
        dsum.append(per * work)
    return calib, loaded, count, dsum, cgap, lgap


def test_paired_windows_take_out_background_and_recover_delivery():
    calib, loaded, count, dsum, cgap, lgap = _windows(1000)
    win = displace.paired_windows(calib, loaded, count, dsum, cgap, lgap)
    assert len(win) == 8
    for disp, direct, delivery in win:
        assert disp == pytest.approx(1300) and direct == pytest.approx(1000) and delivery == pytest.approx(300)
    # without the gaps the odd calibrations look 5000 cycles longer: 500 per interrupt lower
    raw = displace.paired_windows(calib, loaded, count, dsum)
    assert raw[1][2] == pytest.approx(300 + 700 - 500) and raw[0][2] == pytest.approx(300 + 700)
    # a window without an interrupt is left out; lengths must agree
    assert len(displace.paired_windows([1, 2], [1, 2], [0, 1], [0, 0])) == 1
    assert displace.paired_windows([1], [1, 2], [1], [0]) == []


def test_standard_error_of_paired_differences():
    noise = [+100, -100, +100, -100]   # per window, x 10 interrupts -> +-10 per interrupt
    calib, loaded, count, dsum, cgap, lgap = _windows(0, n=4, noise=noise)
    g = [w[2] for w in displace.paired_windows(calib, loaded, count, dsum, cgap, lgap)]
    m, se = displace.mean_se(g)
    assert m == pytest.approx(300)
    sd = math.sqrt(4 * 10 ** 2 / 3)
    assert se == pytest.approx(sd / 2)
    assert displace.mean_se([5]) == (5, None) and displace.mean_se([]) == (None, None)


def test_quantile_ci_is_the_one_order_statistic_ci():
    """The per-interrupt quantiles use the harness's one convention (stats.quantile: rank
    ceil(N q)) and its exact binomial CI; the normal approximation it replaced (ranks 16..35 for
    the lower quartile of 100) is no narrower than the exact ranks 17..35."""
    v = list(range(0, 1000, 10))          # 100 values: rank r holds 10 (r - 1)
    lo, hi, cov = stats.quantile_ci_ranks(100, 0.25)
    assert (lo, hi) == (17, 35) and cov >= 0.95
    assert displace.quantile_ci(v, 0.25) == (240, 160, 340)     # ranks 25, 17, 35
    med = displace.quantile_ci(v, 0.5)
    assert med[0] == 490 == stats.median(v) and med[1] <= 400 and med[2] >= 590
    assert displace.quantile_ci([], 0.5) == (None, None, None)
    # too few values for a side: None, not a made-up bound
    assert displace.quantile_ci([5, 6, 7], 0.25)[1] is None


def test_per_interrupt_pairing_and_signed_excess():
    ex, di, de = displace.per_interrupt([1300, 1310, (1 << 64) - 5], [1000, 1000, 10])
    assert ex[2] == -5 and de == [300, 310, -15]
    assert displace.per_interrupt([1, 2], [1]) is None
    ex, di, de = displace.per_interrupt([1300, displace.UNMEASURED, 1290], [1000, 999, 1000])
    assert de == [300, 290] and di == [1000, 1000]
    # the fluid chunk 35.5 cycles longer than the nominal one: taken from every excess
    off = displace.chunk_offset([1000 * 1235 + 100 + 50, 1000 * 1236 - 100], [50, 0], 1000, 1200)
    assert off == pytest.approx(35.5)
    assert displace.per_interrupt([1300], [1000], off)[2] == [pytest.approx(264.5)]
    # the firmware's samples: an unmeasured excess written as 0 and flagged 0 beside it
    assert displace.per_interrupt([1300, 0, 1290], [1000, 999, 1000], 0, [1, 0, 1])[2] == [300, 290]
    assert displace.per_interrupt([1300, 0], [1000, 999], 0, [1]) is None


def _stream(works, smi=None, extra=None):
    st = synth.Stream().begin()
    sid = 0
    for w in works:
        calib, loaded, count, dsum, cgap, lgap = _windows(w)
        p = dict(handler="w%d" % w, work_cycles=w, work_iters=w // 2, clock_res_cycles=RES,
                 period_cycles=4 * w + 400000)
        p.update(extra or {})
        if smi is None:
            p["smi"] = "unavailable_not_intel"
        for what, vals in (("calib", calib), ("loaded", loaded), ("calib_gaps", cgap), ("loaded_gaps", lgap),
                           ("count", count), ("direct_sum", dsum), ("direct", [w] * 80),
                           ("irq_excess", [w + DELIVERY + (i % 3) for i in range(80)])):
            st.probe("irq_displace", sid, vals, what=what, **p)
            sid += 1
        if smi is not None:
            st.probe("irq_displace", sid, [smi] * 8, what="smi", **p)
            sid += 1
        st.add("check", name="displace_vs_direct", probe="irq_displace", work_cycles=w, status="pass")
    st.add("check", name="delivery_constant", probe="irq_displace", status="pass", q25_min="300.000",
           q25_max="301.000", max_ci_low="300.000", min_ci_high="301.000")
    st.end()
    return "\n".join(st.lines) + "\n"


def test_rows_from_a_synthetic_run(tmp_path):
    log = tmp_path / "serial.log"
    log.write_text(_stream([0, 10000, 1000000]))
    summary = parse.parse_log(str(log), str(tmp_path))
    res = irq.analyse(summary, str(tmp_path))
    rows = res["displace"]
    assert [r["work"] for r in rows] == [0, 10000, 1000000]
    for r in rows:
        assert r["win_delivery_mean"] == pytest.approx(DELIVERY) and r["win_delivery_se"] == pytest.approx(0)
        assert r["win_displacement"] - r["win_direct"] == pytest.approx(DELIVERY)
        assert r["e_res"] == pytest.approx(RES / 10)          # resolution / interrupts per window
        assert r["paired"] and r["delivery"][0] == DELIVERY + 1 and r["delivery_q25"][0] == DELIVERY
        assert r["smi_per_window"] is None and r["smi_note"] == "unavailable_not_intel"
        assert r["gaps_per_window"] == pytest.approx((4 * 5000 + 8 * 7000) / 8)
        assert r["check"]["status"] == "pass"
    text, _ = report.write_report(str(tmp_path), plot=False)
    assert "displacement vs direct" in text and "unavailable (unavailable_not_intel)" in text
    assert "delivery constant across work" in text


def test_smis_per_window_where_counted(tmp_path):
    log = tmp_path / "serial.log"
    log.write_text(_stream([0], smi=2))
    summary = parse.parse_log(str(log), str(tmp_path))
    (r,) = irq.analyse(summary, str(tmp_path))["displace"]
    assert r["smi_per_window"] == 2


def test_displacement_recovers_known_cost_exactly():
    # Fluid loop: 2 cycles/iteration, S = 100 cycles of start/stop per window; 50 interrupts of
    # 1000 cycles each per loaded window.
    lf, s = 1000000, 100
    calib = [lf * 2 + s] * 4
    loaded = [lf * 2 + s + 50 * 1000] * 4
    r = displace.woodside(calib, loaded, [50] * 4, lf, overhead=s)
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
    corrected = displace.woodside(calib, loaded, [10] * 3, lf, overhead=s)["cost"]
    uncorrected = displace.woodside(calib, loaded, [10] * 3, lf, overhead=0)
    # Not subtracting S: tau_F absorbs S / L_F(1). With L_F(2) = L_F(1) the S inside T_F(2) and the
    # S spread over L_F(2) iterations cancel.
    assert corrected == pytest.approx(500.0)
    assert uncorrected["cost"] == pytest.approx(500.0)
    # With L_F(2) = 2 L_F(1) they do not: the error is -(L_F(2)/L_F(1) - 1) S / L_PUT(2).
    loaded2 = [4 * lf + s + 10 * 500] * 3
    off = displace.woodside(calib, loaded2, [10] * 3, lf, lf2=2 * lf, overhead=0)["cost"]
    assert off - 500.0 == pytest.approx(-s / 10)


def test_displacement_daemon_term_and_bad_input():
    lf = 1000
    calib = [2000, 2010, 1990, 2000]
    r = displace.woodside(calib, [2000 + 5000] * 4, [5] * 4, lf)
    sd = math.sqrt(sum((c - 2000) ** 2 for c in calib) / 3)
    assert r["e_daemons"] == pytest.approx(sd / 5)
    assert displace.woodside([], [1], [1], lf) is None
    assert displace.woodside([1], [1, 2], [1], lf) is None   # counts must pair with windows
    assert displace.woodside([2000], [2000], [0], lf)["cost"] is None  # no interrupt: no cost


def test_units_stated_where_work_and_results_differ(tmp_path):
    """AArch64 records carry work_unit/time_unit: the report says them; x86_64 records carry none
    and the report adds nothing (test_rows_from_a_synthetic_run's stream)."""
    units = dict(work_unit="pmu_cycles", time_unit="counter_ticks", spin_cal_work=21721, work_ticks=62)
    log = tmp_path / "serial.log"
    log.write_text(_stream([0, 1000], extra=units))
    summary = parse.parse_log(str(log), str(tmp_path))
    rows = irq.analyse(summary, str(tmp_path))["displace"]
    assert all(r["work_unit"] == "pmu_cycles" and r["time_unit"] == "counter_ticks" for r in rows)
    note = displace_report.units_note(rows)
    assert "work in pmu_cycles" in note and "counter_ticks" in note and "work_clock" not in note
    text, _ = report.write_report(str(tmp_path), plot=False)
    assert "Units: work in pmu_cycles, every other column in counter_ticks" in text
    # the fallback says why the work is in ticks
    rows[0]["work_clock"] = "no usable PMU cycle counter"
    assert displace_report.units_note(rows).endswith("no usable PMU cycle counter.")
    # one clock (x86_64): no note
    assert displace_report.units_note([dict(r, work_unit=None) for r in rows]) is None
