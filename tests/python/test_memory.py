"""Memory probes: knee detection on synthetic curves, matching with CPUID, curves and GB/s from a
parsed synthetic run, the report's Memory section and its plots."""

import math
import random

import pytest

import synth
from bmharness import stats
from bmharness.analysis import knees, memory
from bmharness.report import memory as memory_report, plots, report
from bmharness.stream import parse
from synth import KiB, MiB

LEVELS = [{"name": "L1d", "size": 32 * KiB}, {"name": "L2", "size": 512 * KiB},
          {"name": "L3", "size": 32 * MiB}]


def latency_curve(caches=synth.CACHES, lat=synth.LAT_CYCLES, noise=0.0, seed=0, per_octave=1,
                  lo=10, hi=28):
    r = random.Random(seed)
    sizes = [int(2 ** (lo + k / per_octave)) for k in range((hi - lo) * per_octave + 1)]
    return [(s, synth.hit_model(s, caches, lat) * math.exp(r.gauss(0, noise))) for s in sizes]


def sizes_of(res):
    return [k["size"] for k in res["knees"]]


# --- knee detection ---------------------------------------------------------------------------

def test_clean_three_levels():
    res = knees.detect(latency_curve())
    assert sizes_of(res) == [32 * KiB, 512 * KiB, 32 * MiB]
    assert all(k["confidence"] == "high" for k in res["knees"])
    assert res["knees"][0]["next_size"] == 64 * KiB and res["knees"][0]["change"] > 2


@pytest.mark.parametrize("seed", range(20))
def test_noisy_three_levels(seed):
    assert sizes_of(knees.detect(latency_curve(noise=0.02, seed=seed))) == \
        [32 * KiB, 512 * KiB, 32 * MiB]


@pytest.mark.parametrize("seed", range(10))
def test_noisy_three_levels_fine_sweep(seed):
    # 2 points per octave: the knees may land half an octave early, never more.
    found = sizes_of(knees.detect(latency_curve(noise=0.02, seed=seed, per_octave=2)))
    assert len(found) == 3
    for got, want in zip(found, synth.CACHES):
        assert want / 1.5 <= got <= want


def test_bandwidth_falls():
    curve = [(s, 1.0 / synth.hit_model(s, synth.CACHES, [1 / b for b in synth.READ_BPC]))
             for s, _ in latency_curve()]
    res = knees.detect(curve, rising=False)
    assert sizes_of(res) == [32 * KiB, 512 * KiB, 32 * MiB]
    assert res["knees"][0]["change"] < 0.8  # bandwidth falls


@pytest.mark.parametrize("seed", range(30))
def test_flat_noisy_curve_has_no_knees(seed):
    r = random.Random(seed)
    curve = [(2 ** e, 60.0 * math.exp(r.gauss(0, 0.04))) for e in range(12, 29)]
    # plus two isolated outliers, as bimodal sets give
    for k in r.sample(range(len(curve)), 2):
        curve[k] = (curve[k][0], curve[k][1] * r.choice((1.4, 0.7)))
    res = knees.detect(curve)
    assert res["knees"] == [], res


def test_flat_exact_and_drift():
    assert knees.detect([(2 ** e, 50.0) for e in range(12, 28)])["knees"] == []
    # TLB costs: +8% per octave, steadily -- a slope, not a step
    assert knees.detect([(2 ** e, 50.0 * 1.08 ** e) for e in range(12, 28)])["knees"] == []


def test_bimodal_points_left_out():
    curve = latency_curve(noise=0.01, seed=3)
    bad = {32 * KiB: 2.0, 64 * KiB: 0.6, 32 * MiB: 1.8}  # at the knees, where it hurts
    pts = [(s, v * bad.get(s, 1.0), s in bad) for s, v in curve]
    res = knees.detect(pts)
    # Without 32 KiB and 64 KiB the first step is only known to lie between 16 and 128 KiB.
    assert sizes_of(res) == [16 * KiB, 512 * KiB, 16 * MiB]
    assert any("left out 3 bimodal" in n for n in res["notes"])
    # Kept in, the outliers would have moved the first knee too.
    assert sizes_of(knees.detect([p[:2] for p in pts]))[0] != 32 * KiB


def with_outliers(curve, where, factors, seed):
    r = random.Random(seed)
    at = {s: r.choice(factors) for s in where}
    return [(s, v * at.get(s, 1.0)) for s, v in curve]


@pytest.mark.parametrize("seed", range(20))
def test_slow_outliers_unflagged(seed):
    # Interference makes points slower: isolated slow outliers anywhere off the knees -- on the
    # slopes after a step too -- are smoothed away even without the bimodal flag.
    r = random.Random(seed)
    where = r.sample([8 * KiB, 128 * KiB, 2 * MiB, 8 * MiB, 128 * MiB], 2)
    curve = with_outliers(latency_curve(noise=0.02, seed=seed), where, (1.5, 1.8), seed)
    assert sizes_of(knees.detect(curve)) == [32 * KiB, 512 * KiB, 32 * MiB]


@pytest.mark.parametrize("seed", range(20))
def test_fast_outliers_on_plateaus_unflagged(seed):
    # (A fast outlier on a slope is ambiguous with a slow one beside it; the detector takes the
    # higher value for the outlier, so such points need the bimodal flag.)
    r = random.Random(seed)
    where = r.sample([8 * KiB, 8 * MiB, 128 * MiB], 2)
    curve = with_outliers(latency_curve(noise=0.02, seed=seed), where, (0.7,), seed)
    assert sizes_of(knees.detect(curve)) == [32 * KiB, 512 * KiB, 32 * MiB]


def test_too_many_bimodal_points_are_kept():
    pts = [(s, v, i % 2 == 0) for i, (s, v) in enumerate(latency_curve())]
    res = knees.detect(pts)
    assert not any("left out" in n for n in res["notes"])
    assert len(res["knees"]) == 3


def test_step_carried_by_last_point_is_not_a_knee():
    curve = [(2 ** e, 50.0) for e in range(12, 24)] + [(2 ** 24, 200.0)]
    res = knees.detect(curve)
    assert res["knees"] == [] and "one point is not enough" in res["notes"][0]


def test_dip_is_not_a_knee():
    curve = [(2 ** e, 50.0) for e in range(12, 28)]
    curve[7] = (curve[7][0], 30.0)
    curve[8] = (curve[8][0], 30.0)  # two low points survive the median of 3
    assert knees.detect(curve)["knees"] == []


def test_too_few_points():
    res = knees.detect([(4096, 4.0), (8192, 40.0), (16384, 40.0)])
    assert res["knees"] == [] and "too few" in res["notes"][0]


def test_missing_level():
    # The machine has no L2 (or it does not show); CPUID claims one.
    res = knees.detect(latency_curve(caches=(32 * KiB, 32 * MiB), lat=(4.0, 45.0, 250.0),
                                     noise=0.01))
    assert sizes_of(res) == [32 * KiB, 32 * MiB]
    rows, extra = knees.match(sizes_of(res), LEVELS, [s for s, _ in latency_curve()])
    assert [r["status"] for r in rows] == ["agree", "no knee", "agree"] and extra == []


def test_match_statuses():
    sweep = [2 ** e for e in range(12, 25)]  # 4 KiB .. 16 MiB
    rows, extra = knees.match([48 * KiB, 2 * MiB, 8 * KiB], LEVELS, sweep)
    assert rows[0]["knee"] == 48 * KiB and rows[0]["status"] == "agree"
    assert rows[1]["knee"] == 2 * MiB and rows[1]["status"] == "DISAGREE"  # 4x
    assert rows[1]["ratio"] == pytest.approx(4.0)
    assert rows[2]["status"] == "outside sweep"  # 32 MiB: the sweep ends at 16 MiB
    assert extra == [8 * KiB]  # 8 KiB is 4x from L1d, which has its closer match


def test_covered():
    sweep = [2 ** e for e in range(12, 25)]
    assert knees.covered(1 * MiB, sweep) and not knees.covered(16 * MiB, sweep)
    assert not knees.covered(4 * KiB, sweep)


def test_median_ci_small_n_coverage_is_stated():
    # [min, max] is all N <= 5 can give, and it covers the median with 1 - 2^(1-N) only
    assert stats.median_ci([1, 2, 3, 4, 5]) == [1, 5]
    assert stats.median_ci_coverage(5) == pytest.approx(0.9375)
    assert stats.median_ci_coverage(3) == pytest.approx(0.75)
    # from N = 6 the ranks reach 95%: [x_(1), x_(6)] covers with 1 - 2/2^6, as stated
    assert stats.median_ci_coverage(6) == pytest.approx(1 - 2 / 64)
    assert stats.median_ci_coverage(0) is None
    pts = [{"ci": "median", "ci_coverage": 0.9375}, {"ci": "median", "ci_coverage": 0.95}]
    text = memory_report._ci_text([{"points": pts}])
    assert "N <= 5" in text and "94%" in text
    assert "N <= 5" not in memory_report._ci_text([{"points": pts[1:]}])


def test_median_ci():
    assert stats.median_ci([]) is None
    assert stats.median_ci([5.0]) == [5.0, 5.0]
    assert stats.median_ci(list(range(1, 17))) == [4, 13]     # n=16: ranks 4 and 13
    assert stats.median_ci(list(range(1, 21))) == [6, 15]     # n=20: ranks 6 and 15
    assert stats.median_ci(list(range(1, 101))) == [40, 61]


# --- curves, hierarchy, report from a parsed synthetic run --------------------------------------

def parsed_run(tmp_path, name="run", **kw):
    log = tmp_path / ("%s.log" % name)
    log.write_bytes(synth.memory_stream(**kw).data())
    out = tmp_path / name
    summary = parse.parse_log(str(log), str(out))
    assert summary["ok"], summary["validation"]["problems"]
    return summary, out


def test_curves_units_and_conventions(tmp_path):
    summary, out = parsed_run(tmp_path)
    mem = memory.analyse(summary, str(out))
    labels = [c["label"] for c in mem["curves"]]
    assert labels == ["read/256", "copy/256", "random"]  # target, cal_steps, seed vary per set
    read, copy, lat = mem["curves"]
    assert len(read["points"]) == len(synth.sweep_sizes())
    p = read["points"][0]
    assert p["gbps"] == pytest.approx(p["bytes"] * synth.TSC_HZ / p["cycles"] / 1e9)
    assert p["gbps_lo"] <= p["gbps"] <= p["gbps_hi"] and p["ci"] == "median"
    assert p["gbps_alt"] == pytest.approx(p["gbps"])  # a read counts the same either way
    c = copy["points"][5]
    assert c["bytes"] == 2 * c["size"] and c["gbps_alt"] == pytest.approx(c["gbps"] / 2)
    q = lat["points"][3]
    assert q["ns"] == pytest.approx(q["cycles"] / synth.TSC_HZ * 1e9)
    assert q["cycles"] == pytest.approx(synth.hit_model(q["size"], synth.CACHES,
                                                        synth.LAT_CYCLES), rel=0.01)
    # Without the raw files the CI is the mean's from the summary.
    assert memory.analyse(summary)["curves"][0]["points"][0]["ci"] == "mean"


def test_hierarchy_agrees(tmp_path):
    summary, out = parsed_run(tmp_path, noise=0.01, bimodal=(2 * MiB,))
    h = memory.analyse(summary, str(out))["hierarchy"]
    assert h["primary"]["label"] == "random"
    assert [(r["name"], r["knee"], r["status"]) for r in h["levels"]] == [
        ("L1d", 32 * KiB, "agree"), ("L2", 512 * KiB, "agree"), ("L3", 32 * MiB, "agree")]
    assert all(r["secondary"].startswith("2 of 2") for r in h["levels"])
    assert h["flags"] == []


def test_hierarchy_disagrees(tmp_path):
    # CPUID says 32K/2M/32M, the machine behaves like 32K/512K/32M.
    summary, out = parsed_run(tmp_path, cpuid=(32 * KiB, 2 * MiB, 32 * MiB))
    h = memory.analyse(summary, str(out))["hierarchy"]
    assert [r["status"] for r in h["levels"]] == ["agree", "DISAGREE", "agree"]
    assert any("L2 (CPUID 2 MiB): knee at 512 KiB is 0.25x" in f for f in h["flags"])
    # ... or 32K/4M/32M: 512 KiB is then too far (8x) to belong to L2.
    summary, out = parsed_run(tmp_path, name="far", cpuid=(32 * KiB, 4 * MiB, 32 * MiB))
    h = memory.analyse(summary, str(out))["hierarchy"]
    assert [r["status"] for r in h["levels"]] == ["agree", "no knee", "agree"]
    assert h["extra"] == [512 * KiB]
    assert any("knee at 512 KiB in random latency matches no CPUID" in f for f in h["flags"])
    summary, out = parsed_run(tmp_path, name="two", caches=(32 * KiB, 32 * MiB),
                              lat=(4.0, 45.0, 250.0), bpc=(64.0, 16.0, 6.0),
                              cpuid=(32 * KiB, 512 * KiB, 32 * MiB))
    h = memory.analyse(summary, str(out))["hierarchy"]
    assert [r["status"] for r in h["levels"]] == ["agree", "no knee", "agree"]
    assert any("no knee where the sweep covers it" in f for f in h["flags"])


def test_flat_run_like_tcg(tmp_path):
    summary, out = parsed_run(tmp_path, flat=True, noise=0.03)
    mem = memory.analyse(summary, str(out))
    h = mem["hierarchy"]
    assert all(not s["knees"] for s in h["sources"])
    assert [r["status"] for r in h["levels"]] == ["no knee"] * 3
    assert any("flat" in f for f in h["flags"])


def test_dram_peak(tmp_path):
    summary, out = parsed_run(tmp_path, dram_mbps=25600)
    d = memory.analyse(summary, str(out))["dram"]
    assert d["peak_gbps"] == pytest.approx(25.6) and d["threshold"] == 128 * MiB
    best = d["best"]
    assert best["label"] == "read/256" and best["size"] == 256 * MiB
    assert best["pct"] == pytest.approx(100 * best["gbps"] / 25.6)
    summary, out = parsed_run(tmp_path, name="unknown")
    d = memory.analyse(summary, str(out))["dram"]
    assert d["peak_gbps"] is None and d["reason"] == "peak unknown: no configured speed in SMBIOS"


def test_report_memory_section(tmp_path):
    summary, out = parsed_run(tmp_path, noise=0.01, dram_mbps=25600,
                              cpuid=(32 * KiB, 512 * KiB, 8 * MiB))
    text, ok = report.write_report(str(out))
    assert ok
    md = (out / "report.md").read_text()
    for needle in ("MEMORY", "read/256: 17 size(s)", "GB/s once", "best kernel per size",
                   "% DRAM peak", "25.60 GB/s theoretical", "of the peak", "ns/load",
                   "cycles/load", "Cache levels: knees vs CPUID", "DISAGREE",
                   "L3 (CPUID 8 MiB): knee at 32 MiB", "CPU lacks AVX-512F: read/512",
                   "2 membw set(s)"[2:], "in the Memory section"):
        assert needle in text, needle
    assert "| size | GB/s | CI95 |" in md
    assert "| level | CPUID | knee | knee/CPUID | verdict | other curves |" in md
    # memory sets are not repeated in the generic probe table
    assert "| 0 | membw |" not in md


def test_report_memory_plots(tmp_path):
    pytest.importorskip("matplotlib")
    summary, out = parsed_run(tmp_path)
    report.write_report(str(out))
    md = (out / "report.md").read_text()
    for name in ("bandwidth.png", "latency.png"):
        assert (out / name).stat().st_size > 5000
        assert "](%s)" % name in md
    assert not (out / "hist-membw.png").exists()


def test_report_memory_without_matplotlib(tmp_path, monkeypatch):
    monkeypatch.setattr(plots, "_matplotlib", lambda: (None, "matplotlib not importable (test)"))
    summary, out = parsed_run(tmp_path)
    text, _ = report.write_report(str(out))
    assert "Memory plots" in text and "matplotlib not importable" in text
    assert not (out / "bandwidth.png").exists()


def test_report_without_memory_sets(tmp_path):
    log = tmp_path / "serial.log"
    log.write_bytes(synth.full_stream().data())
    parse.parse_log(str(log), str(tmp_path / "o"))
    text, ok = report.write_report(str(tmp_path / "o"), plot=False)
    assert ok and "nothing measured: no membw or latency sets" in text
    assert "rdtscp" in text  # the rest of the report as before


def test_latency_only_and_no_tsc(tmp_path):
    # No membw sets: the knees come from latency alone; no TSC: cycles, no ns.
    s = synth.memory_stream(kernels=())
    lines = [ln for ln in s.lines if " kind=tsc " not in ln]
    log = tmp_path / "serial.log"
    log.write_text("\n".join(lines) + "\n")
    summary = parse.parse_log(str(log), str(tmp_path / "o"))
    for st in summary["sets"]:
        st["tsc_hz"] = None
    mem = memory.analyse(summary, str(tmp_path / "o"))
    lat = mem["curves"][0]
    assert lat["points"][0]["ns"] is None and lat["points"][0]["cycles"] > 0
    assert [r["status"] for r in mem["hierarchy"]["levels"]] == ["agree"] * 3
    doc, _ = report.build(summary, str(tmp_path / "o"), results={"memory": mem})
    assert "no membw sets" in doc.text()


def test_bandwidth_only(tmp_path):
    # No latency sweep: the bandwidth curves decide by majority; NT stores are not asked.
    summary, out = parsed_run(tmp_path, latency=False,
                              kernels=(("read", 256), ("copy", 256), ("write_nt", 256)))
    h = memory.analyse(summary, str(out))["hierarchy"]
    assert h["primary"] is None
    assert [s["label"] for s in h["sources"]] == ["read/256", "copy/256"]
    assert [(r["status"], r["knee"]) for r in h["levels"]] == [
        ("agree", 32 * KiB), ("agree", 512 * KiB), ("agree", 32 * MiB)]
    assert h["levels"][0]["secondary"] == "2 of 2 curves agree (32 KiB)"


def test_curve_identity_from_a_summary():
    # Built directly: curves split on cpus, not on per-set calibration or page.
    def st(set_id, size, cpus, median, page="2M"):
        return {"set": set_id, "name": "membw", "tsc_hz": 2e9, "complete": True,
                "params": {"kernel": "read", "width": 256, "size": size, "bytes_per_op": size,
                           "convention": "rw", "read_bytes": size, "write_bytes": 0,
                           "page": page, "cpus": cpus, "target": 1000 + set_id},
                "stats": {"per_op": {"n": 16, "median": median, "ci95": [median - 1,
                                                                           median + 1]}}}
    summary = {"sets": [st(1, 4096, 1, 100.0), st(2, 8192, 1, 200.0, page="4K"),
                        st(3, 4096, 4, 400.0), st(4, 8192, 4, 800.0)],
               "platform": {}}
    cvs = memory.curves(summary)
    assert [c["label"] for c in cvs] == ["read/256 cpus=1", "read/256 cpus=4"]
    p = cvs[0]["points"][0]
    assert p["gbps"] == pytest.approx(4096 * 2e9 / 100.0 / 1e9) and p["ci"] == "mean"
    assert p["gbps_lo"] == pytest.approx(4096 * 2e9 / 101.0 / 1e9)
    mem = memory.analyse(summary)
    assert mem["hierarchy"]["flags"] == ["no CPUID cache sizes reported: knees cannot be checked"]
    assert mem["dram"]["reason"] == "peak unknown: no dram_peak record"
    doc = report.Doc()
    memory_report.section(doc, mem, ".", None)
    text = doc.text()
    assert "page 4K" in text and "no CPUID data/unified cache sizes reported" in text


def test_wrapped_samples_left_out_of_the_median_ci(tmp_path):
    """A raw file's wrapped samples (>= 2^63: a negative or wrapped cycle delta) are left out of
    a point's median CI, as export and compare leave them out (parse.raw_per_op)."""
    summary, out = parsed_run(tmp_path)
    s = next(x for x in summary["sets"] if x["name"] == memory.LATENCY)
    hz = synth.TSC_HZ
    clean = memory.point(s, hz, str(out))
    raw = out / s["raw_file"]
    n = len(parse.read_raw(str(raw))[1])
    with open(raw, "a") as fh:  # as many wrapped samples as good ones: the CI's top would be
        fh.write("".join("%d\n" % ((1 << 64) - 5) for _ in range(n)))  # one of them
    assert len(parse.read_raw(str(raw))[1]) == 2 * n
    got = memory.point(s, hz, str(out))
    assert got["ci"] == "median" and got["ci_coverage"] == clean["ci_coverage"]
    assert (got["cycles_lo"], got["cycles_hi"], got["ns_hi"]) == (
        clean["cycles_lo"], clean["cycles_hi"], clean["ns_hi"])
    assert got["cycles_hi"] < 1 << 40
