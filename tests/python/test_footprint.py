"""The footprint part of the Interrupts report on synthetic records: curves per level, held-out
checks, interrupt measurements raw and calibrated, the no-cache-effect skip and the skipped
interrupt part; the report shows the calibrated range and never a number outside it."""

import synth
from bmharness.analysis import footprint, irq
from bmharness.report import report
from bmharness.stream import parse

FP = dict(method="time", retouch="reverse", prefetchers="on")


def _level(st, sid, level, ctype, nodes, curve, checks, irq_rows=(), effect=1, valid=(16, 64), sat=128):
    common = dict(FP, level=level, type=ctype, nodes=nodes)
    st.probe("irq_footprint", sid, [9000] * 4, what="cold", experiment="direct", cost_mcyc=12500,
             effect=effect, valid_min=valid[0] if effect else 0, valid_max=valid[1] if effect else 0,
             sat_k=sat if effect else 0, reps=40, converged=1, **common)
    sid += 1
    for k, m in curve:
        st.probe("irq_footprint", sid, [3000 + m // 80] * 4, what="calib", experiment="direct", k=k, mlines=m,
                 ci_mlines=900, reps=40, converged=1, **(dict(ratio_milli=m // k) if k else {}), **common)
        sid += 1
    for c in checks:
        st.add("check", dict(name="footprint_k", probe="irq_footprint", level=level, type=ctype, tol_pct=20,
                             valid_min=valid[0], valid_max=valid[1], reps=36, converged=1, **c))
    for r in irq_rows:
        st.probe("irq_footprint", sid, [3100] * 4, what="irq", source="self_ipi", reps=40, converged=1,
                 not_pending=0, not_taken=0, **r, **common)
        sid += 1
    if not effect:
        st.add("skip", probe="irq_footprint", check="footprint_k", level=level, cost_mcyc=3,
               reason="no cache effect at this level")
    return sid


def _summary(tmp_path, build):
    st = synth.Stream().begin()
    build(st)
    st.end()
    log = tmp_path / "serial.log"
    log.write_text("\n".join(st.lines) + "\n")
    summary = parse.parse_log(str(log), str(tmp_path))
    assert summary["ok"], summary["validation"]["problems"]
    return summary


CURVE = [(0, 0), (16, 31000), (32, 55000), (64, 100000), (128, 110000)]
CHECKS = [dict(status="pass", k=40, expected=40, measured=42, ci_low=40, ci_high=44, raw_mlines=70000,
               raw_ci_mlines=1200),
          dict(status="saturated", k=200, expected=200, measured="saturated", raw_mlines=111000,
               raw_ci_mlines=1500),
          dict(status="below_range", k=8, expected=8, measured="below_range", raw_mlines=15000,
               raw_ci_mlines=900)]
IRQ = [dict(experiment="basic", variant="idle", k=0),
       dict(experiment="basic", variant="k0", k=0, vs="idle", mlines=23000, ci_mlines=2000, cal_status="ok",
            k_est_milli=18500, k_ci_low_milli=17000, k_ci_high_milli=20000, valid_min=16, valid_max=64),
       dict(experiment="basic", variant="kn", k=40, vs="idle", mlines=95000, ci_mlines=2500, cal_status="ok",
            handler_mlines=72000, handler_ci_mlines=4500, k_total_milli=59500,
            k_est_milli=41000, k_ci_low_milli=39500, k_ci_high_milli=42600, valid_min=16, valid_max=64),
       dict(experiment="refined", variant="k0", k=0, vs="idle", mlines=140000, ci_mlines=5000,
            cal_status="saturated", valid_min=16, valid_max=64)]


def test_curves_checks_and_interrupts(tmp_path):
    def build(st):
        sid = _level(st, 0, 1, "data", 768, CURVE, CHECKS, IRQ)
        _level(st, sid, 2, "unified", 12288, [(0, 0), (384, 250000), (768, 533000)], [], effect=0)
        st.add("skip", probe="irq_footprint", level=1, type="inst", reason="no reverse branch chain")
    summary = _summary(tmp_path, build)
    fp = footprint.analyse(summary)
    l1, l2 = fp["levels"]
    assert (l1["level"], l1["type"], l1["nodes"]) == (1, "data", 768)
    assert l1["cost"] == 12.5 and (l1["valid_min"], l1["valid_max"], l1["sat_k"]) == (16, 64, 128)
    assert [r["k"] for r in l1["curve"]] == [0, 16, 32, 64, 128]
    assert [r["lines"] for r in l1["curve"]] == [0, 31, 55, 100, 110]
    assert l1["curve"][1]["ratio"] == 1.937
    assert [c["status"] for c in l1["checks"]] == ["below_range", "pass", "saturated"]  # sorted by K
    assert fp["irq_skip"] is None
    d = footprint.delivery(l1, "basic")
    assert d["lines"] == 23 and d["k_est"] == 18.5 and (d["k_lo"], d["k_hi"]) == (17, 20)
    assert footprint.delivery(l1, "refined")["cal_status"] == "saturated"
    (kn,) = [r for r in l1["irq"] if r["variant"] == "kn"]
    assert (kn["handler_lines"], kn["handler_ci"], kn["k_total"], kn["k_est"]) == (72, 4.5, 59.5, 41)
    assert l2["no_effect"] == "no cache effect at this level" and not l2["checks"]
    # the report: curve, checks, interrupt rows; saturated/below_range never carry a number
    res = irq.analyse(summary, str(tmp_path))
    assert res["footprint"]["levels"][0]["curve"] == l1["curve"]
    text, ok = report.write_report(str(tmp_path), plot=False)
    md = (tmp_path / "report.md").read_text()
    assert "Cache footprint of one interrupt" in md
    assert "calibrated range K = 16..64, saturates at 128" in md
    assert "| 40 | pass | 42 | 40..44 |" in md
    assert "| 200 | saturated | saturated | - |" in md
    assert "| 8 | below_range | below_range | - |" in md
    assert "18.50 (17.00..20.00)" in md and "| refined | k0 | 0 | idle |" in md
    assert "checks skipped — no cache effect at this level" in md
    assert "k0 vs idle" in md


def test_interrupt_part_skipped(tmp_path):
    def build(st):
        _level(st, 0, 1, "data", 768, CURVE, CHECKS[:1])
        st.add("skip", probe="irq_footprint", part="interrupt", reason="no interrupt entry of ours here")
    summary = _summary(tmp_path, build)
    fp = footprint.analyse(summary)
    assert fp["irq_skip"] == "no interrupt entry of ours here" and not fp["levels"][0]["irq"]
    report.write_report(str(tmp_path), plot=False)
    md = (tmp_path / "report.md").read_text()
    assert "interrupt measurements skipped: no interrupt entry of ours here" in md


def test_no_footprint_records():
    assert footprint.analyse({"sets": [], "checks": [], "skips": []}) == {"levels": [], "irq_skip": None}


def test_measure_pmu_or_time(tmp_path):
    """method=pmu: the event, demand-only or not, misses per line of a cold re-touch; method=time:
    the per-line cost and why the miss counter did not count (its skip, matched by counter set)."""
    pmu = dict(method="pmu", event="l1d_demand_misses", vendor_event="MEM_LOAD_RETIRED.L1_MISS",
               demand_only=1, prefetchers_changed=0, ctr_set="footprint_l1d")
    timed = dict(prefetchers_changed=0, ctr_skipped="footprint_l2_any")

    def build(st):
        common = dict(FP, level=1, type="data", nodes=768, **pmu)
        st.probe("irq_footprint", 0, [770] * 4, what="cold", experiment="direct", cold_mpl_milli=998,
                 effect=1, valid_min=16, valid_max=64, sat_k=0, reps=40, converged=1, **common)
        common = dict(FP, level=2, type="unified", nodes=12288, **timed)
        st.probe("irq_footprint", 1, [9000] * 4, what="cold", experiment="direct", cost_mcyc=12500,
                 effect=1, valid_min=384, valid_max=768, sat_k=0, reps=40, converged=1, **common)
        st.add("skip", probe="irq_footprint", set=1, ctr_set="footprint_l2_any", events="l2_misses",
               reason="the hosted build reads no PMU")
    summary = _summary(tmp_path, build)
    l1, l2 = footprint.analyse(summary)["levels"]
    assert (l1["method"], l1["event"], l1["demand_only"], l1["cold_mpl"]) == ("pmu", "l1d_demand_misses", 1, 0.998)
    assert l1["ctr_skip"] is None and l1["prefetchers_changed"] == 0
    assert (l2["method"], l2["cost"], l2["ctr_skip"]) == ("time", 12.5, "the hosted build reads no PMU")
    report.write_report(str(tmp_path), plot=False)
    md = (tmp_path / "report.md").read_text()
    assert "measure: PMU misses, event l1d_demand_misses (MEM_LOAD_RETIRED.L1_MISS), demand-only" in md
    assert "measure: time, miss cost 12.50 cycles/line (miss counter: the hosted build reads no PMU)" in md
