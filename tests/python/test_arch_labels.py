"""The harness follows the run's architecture (begin arch): AArch64 reports speak of the generic
timer and counter ticks, not the TSC, and leave out the x86-only columns (APERF/MPERF, RAPL,
SMIs); no knee verdict on an emulated CPU (x86 TCG, AArch64 MIDR implementer 0x00 or the
firmware's plat kind=emulator for a named core); compare
refuses runs whose clocks count different things and puts different frequencies on ns; the
zero deadline tick has no sign; AArch64 QEMU runs get a longer default timeout."""

import os

import pytest

import synth
from bmharness import cli
from bmharness.analysis import archinfo, compare, compare_levels, counters, headline, memory
from bmharness.report import compare as compare_report, counters as counters_report
from bmharness.report import irq_lat as irq_lat_report, report
from bmharness.run import qemu
from bmharness.stream import parse
from bmharness.stream.protocol import encode_values

TCG = "TCGTCGTCGTCG"


def parsed(tmp_path, stream, name="run"):
    log = tmp_path / ("%s.log" % name)
    log.write_bytes(stream.data())
    out = tmp_path / name
    summary = parse.parse_log(str(log), str(out))
    assert summary["ok"], summary["validation"]["problems"]
    return summary, out


# --- archinfo ---------------------------------------------------------------------------------

def test_emulated_cpu_tests():
    def summ(arch, **plat):
        return {"begin": {"arch": arch}, "platform": plat}
    x86_tcg = archinfo.emulated_cpu(summ("x86_64", cpu={"hv_sig": TCG}))
    assert x86_tcg.startswith("emulated CPU (QEMU TCG") and x86_tcg.endswith(archinfo.NO_CACHES)
    assert archinfo.emulated_cpu(summ("x86_64", cpu={"hv_sig": "KVMKVMKVM"})) is None
    assert archinfo.emulated_cpu(summ("x86_64", cpu={"hypervisor": 0})) is None
    a64 = archinfo.emulated_cpu(summ("aarch64", aarch64_id=[{"midr": synth.MIDR_TCG}]))
    assert "MIDR 0x000f0510: implementer 0x00" in a64
    assert archinfo.emulated_cpu(summ("aarch64", aarch64_id=[{"midr": synth.MIDR_N1}])) is None
    assert archinfo.emulated_cpu(summ("aarch64", aarch64_id={"midr": 0x000f0510})) is not None
    assert archinfo.emulated_cpu(summ("aarch64")) is None          # no MIDR: not known, not TCG
    assert archinfo.emulated_cpu(summ("aarch64", cpu={"hv_sig": TCG})) is None  # x86 test only
    assert archinfo.arch({}) == "x86_64" and archinfo.cache_source({}) == "CPUID"
    # the hosted AArch64 build's own verdict (plat kind=emulator): a real MIDR under qemu-aarch64
    qemu_user = {"emulated": 1, "midr_software": 0, "cpuinfo": "foreign",
                 "reason": "/proc/cpuinfo is not an arm64 kernel's: a user-mode emulator"}
    a64_user = summ("aarch64", aarch64_id=[{"midr": synth.MIDR_N1}], emulator=[qemu_user])
    assert "user-mode emulator" in archinfo.emulated_cpu(a64_user)
    assert "cpuinfo" in headline.emulation(a64_user)["evidence"]
    native = dict(qemu_user, emulated=0, cpuinfo="arm64")
    assert archinfo.emulated_cpu(summ("aarch64", aarch64_id=[{"midr": synth.MIDR_N1}],
                                      emulator=[native])) is None
    # the firmware's verdict for a named core under TCG (-cpu neoverse-n1: the real core's MIDR):
    # QEMU's board with QEMU's PMU (bench/facts/aarch64/emulator.h); on real silicon sign=none
    fw_tcg = {"emulated": 1, "sign": "qemu_board_pmu", "qemu_board": 1,
              "reason": "QEMU TCG: QEMU's board, and a PMUv3 without the L1D_CACHE and "
                        "L1D_CACHE_REFILL events"}
    a64_named = summ("aarch64", aarch64_id=[{"midr": synth.MIDR_N1}], emulator=[fw_tcg])
    assert archinfo.emulated_cpu(a64_named).startswith("emulated CPU (QEMU TCG: QEMU's board")
    ev = headline.emulation(a64_named)["evidence"]
    assert "QEMU's PMU" in ev and "implementer 0x00" not in ev
    kvm = {"emulated": 0, "sign": "none", "qemu_board": 1}  # QEMU's board, the host core's PMU
    assert archinfo.emulated_cpu(summ("aarch64", aarch64_id=[{"midr": synth.MIDR_N1}],
                                      emulator=[kvm])) is None


# --- the report -------------------------------------------------------------------------------

def test_aarch64_report_speaks_of_the_generic_timer(tmp_path):
    summary, out = parsed(tmp_path, synth.memory_stream(arch="aarch64", n=8))
    text, _ = report.write_report(str(out), plot=False)
    md = (out / "report.md").read_text()
    for doc in (text, md):
        assert "TSC" not in doc and "CPUID" not in doc and "APERF" not in doc
        assert "Clock: generic timer (CNTVCT_EL0)" in doc or "CLOCK: GENERIC TIMER" in doc
        assert "62.500000 MHz from cntfrq" in doc and "16.00 ns" in doc
        assert "bytes per pass x CNTFRQ / median ticks per pass" in doc
        assert "ns = ticks / CNTFRQ" in doc
        assert "Cache levels: knees vs CLIDR/CCSIDR" in doc
        assert "NO VERDICT: emulated CPU (MIDR 0x000f0510" in doc
    assert "| size | GB/s | CI95 | ticks/pass | note |" in md
    assert "| level | CLIDR/CCSIDR | nearest knee (host) | verdict |" in md
    levels = memory.analyse(summary, str(out))["hierarchy"]["levels"]
    assert [r["status"] for r in levels] == ["no verdict"] * 3


def test_aarch64_real_cpu_knees_are_judged(tmp_path):
    summary, out = parsed(tmp_path, synth.memory_stream(arch="aarch64", midr=synth.MIDR_N1, n=8))
    h = memory.analyse(summary, str(out))["hierarchy"]
    assert h["no_verdict"] is None
    assert [r["status"] for r in h["levels"]] == ["agree"] * 3
    text, _ = report.write_report(str(out), plot=False)
    assert "knees and CLIDR/CCSIDR agree" in text and "NO VERDICT" not in text
    assert "| level | CLIDR/CCSIDR | knee | knee/size | verdict |" in (out / "report.md").read_text()


def test_x86_tcg_gives_no_knee_verdict(tmp_path):
    # CPUID claims an L2 of 2 MiB the curves do not show: on silicon a DISAGREE flag, under TCG
    # no verdict at all (and no flag), with the reason.
    kw = dict(cpuid=(32 * synth.KiB, 2 * synth.MiB, 32 * synth.MiB), n=8)
    real, out_r = parsed(tmp_path, synth.memory_stream(**kw), "real")
    h = memory.analyse(real, str(out_r))["hierarchy"]
    assert "DISAGREE" in [r["status"] for r in h["levels"]] and h["flags"]
    tcg, out_t = parsed(tmp_path, synth.memory_stream(hv_sig=TCG, **kw), "tcg")
    h = memory.analyse(tcg, str(out_t))["hierarchy"]
    assert [r["status"] for r in h["levels"]] == ["no verdict"] * 3
    assert h["flags"] == [] and h["no_verdict"].startswith("emulated CPU (QEMU TCG")
    text, _ = report.write_report(str(out_t), plot=False)
    assert "NO VERDICT: emulated CPU (QEMU TCG: CPUID hypervisor vendor TCGTCGTCGTCG): no caches " \
           "to find knees of" in text
    assert "Cache levels: knees vs CPUID" in text and "DISAGREE" not in text
    assert "knees and CPUID agree" not in text


def _counter_stream(arch):
    """One bandwidth set with cycles and instructions counted (as a PMU would)."""
    s = synth.Stream().begin(arch)
    if arch == "aarch64":
        s.a64_platform()
        s.add("plat", kind="pmu", present=1, reason="PMUv3 counting at EL1", pmu="pmuv3",
              vendor_version=6, gp=6, gp_width=64, fixed=1, fixed_width=64,
              family_events="armv8_common")
    else:
        s.add("plat", kind="tsc", hz=synth.TSC_HZ, source="hpet", invariant=1)
        s.add("plat", kind="pmu", present=1, reason="architectural PMU (CPUID 0xA)",
              vendor_version=4, pmu="intel_arch", gp=2, gp_width=48, fixed=3, fixed_width=48,
              family_events="intel_skylake", aperf_mperf=1, rapl=1, rapl_esu=14)
    s.add("probe", dict(name="membw", set=0, unit="cycles", n=4, iters=10, overhead=40,
                        tsc_hz=s.hz, kernel="read", width=128, size=65536, bytes_per_op=65536,
                        ctr_set="bandwidth", ctr_events="cycles,instructions", ctr_passes=1))
    s.add("samples", set=0, i=0, n=4, v=encode_values([2040] * 4))
    for ev, v in (("cycles", 20000), ("instructions", 50000)):
        s.add("ctr", set=0, event=ev, **{"pass": 0}, overhead=0, wraps=0, i=0, n=4,
              v=encode_values([v] * 4))
    s.add("probe", dict(name="pmu_cost", set=1, unit="cycles", n=4, iters=1, overhead=0,
                        tsc_hz=s.hz, op="read", level="one"))
    s.add("samples", set=1, i=0, n=4, v=encode_values([3] * 4))
    return s.end(probes=2, skips=0)


def test_counters_columns_follow_the_architecture(tmp_path):
    for arch, has_x86 in (("aarch64", False), ("x86_64", True)):
        summary, out = parsed(tmp_path, _counter_stream(arch), arch)
        doc = report.Doc()
        counters_report.section(doc, counters.analyse(summary))
        md = doc.markdown()
        assert "| set | probe | ctr set | passes | IPC | misses |" in md
        assert ("eff GHz" in md) == has_x86 and ("nJ/B" in md) == has_x86
        assert ("APERF/MPERF), nJ per byte (RAPL)" in md) == has_x86
        assert ("| op | level | after | %s/op (median) |" % ("cycles" if has_x86 else "ticks")) in md
        assert ("no APERF/MPERF or RAPL on aarch64" in md) == (not has_x86)


# --- interrupt latency table ------------------------------------------------------------------

def test_zero_tick_has_no_sign():
    assert irq_lat_report._unc_text({"tick_cycles": 0}, 62.5e6) == "0.000"
    assert irq_lat_report._unc_text({"tick_cycles": 1}, 62.5e6) == "-16.00"


def test_latency_table_columns_follow_the_architecture():
    row = {"source": "cntv_oneshot", "mode": "oneshot", "wait": "spin", "n": 3, "min": 10,
           "median": 11, "p99": 12, "max": 12, "deadline": "cntv_cval", "hz": 62.5e6,
           "params": {"tick_cycles": 0, "armed": 3, "taken": 3, "smi": "unavailable: x",
                      "eff_freq": "unavailable: y"}}
    for arch, x86 in (("aarch64", False), ("x86_64", True)):
        doc = report.Doc()
        irq_lat_report.table(doc, [row], arch)
        md = doc.markdown()
        assert ("SMIs" in md) == x86 and ("eff freq" in md) == x86
        assert ("counter ticks at CNTFRQ_EL0" in md) == (not x86)
        assert ("cycles at the TSC rate" in md) == x86
        assert "-0.000" not in md and "| 0.000 |" in md


# --- compare ----------------------------------------------------------------------------------

def _spin_run(arch="x86_64", hz=None, per_op=5000.0, seed=1, unit="cycles"):
    import random
    r = random.Random(seed)
    s = synth.Stream().begin(arch)
    s.hz = hz or s.hz
    if hz is not False:
        s.add("plat", kind="tsc", hz=s.hz, source="cntfrq" if arch == "aarch64" else "hpet",
              invariant=1)
    vals = [int(round((per_op + r.gauss(0, 5)) * 100)) + 44 for _ in range(40)]
    s.add("probe", dict(name="spin", set=0, unit=unit, n=len(vals), iters=100, overhead=44,
                        tsc_hz=s.hz))
    s.add("samples", set=0, i=0, n=len(vals), v=encode_values(vals))
    return s.end(probes=1, skips=0)


def test_compare_refuses_different_architectures(tmp_path, capsys):
    _, a = parsed(tmp_path, _spin_run("x86_64"), "x86")
    _, b = parsed(tmp_path, _spin_run("aarch64"), "a64")
    with pytest.raises(compare.ClockMismatch):
        compare.compare(compare.load_run(str(a), str(tmp_path)), compare.load_run(str(b), str(tmp_path)))
    assert cli.main(["compare", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert "x86_64: TSC cycles at 2.445000 GHz" in err
    assert "aarch64: counter ticks at 62.5 MHz" in err and "not comparable" in err
    assert not (b / "compare.md").exists()


def test_compare_in_ns_when_frequencies_differ(tmp_path):
    # B's clock runs twice as fast and counts twice the cycles for the same time: in cycles B
    # looks 100% slower, in ns the two are one distribution.
    _, a = parsed(tmp_path, _spin_run(hz=2000000000, per_op=5000.0, seed=1), "a")
    _, b = parsed(tmp_path, _spin_run(hz=4000000000, per_op=10000.0, seed=2), "b")
    res = compare.compare(compare.load_run(str(a), str(tmp_path)), compare.load_run(str(b), str(tmp_path)),
                          cycles=True)
    assert res["basis"]["unit"] == "ns" and "differ by 100.0%" in res["basis"]["text"]
    (row,) = res["rows"]
    assert row["median_a"] == pytest.approx(2500, rel=0.01)   # 5000 cycles at 2 GHz, in ns
    assert row["median_b"] == pytest.approx(2500, rel=0.01)
    assert abs(row["shift_pct"]) < 1 and row["verdict"] != "B slower"
    text = compare_report.build_doc(compare.load_run(str(a), str(tmp_path)),
                             compare.load_run(str(b), str(tmp_path)), res).text()
    assert "ns per operation" in text and "compared in" in text
    # without --cycles every cycle set is in ns anyway, each run at its own rate
    (row,) = compare.compare(compare.load_run(str(a), str(tmp_path)),
                             compare.load_run(str(b), str(tmp_path)))["rows"]
    assert row["unit"] == "ns" and row["median_a"] == pytest.approx(2500, rel=0.01)
    assert row["median_b"] == pytest.approx(2500, rel=0.01) and not row["changed"]


def test_compare_same_clock_stays_in_cycles(tmp_path):
    _, a = parsed(tmp_path, _spin_run(hz=2000000000, seed=1), "a")
    _, b = parsed(tmp_path, _spin_run(hz=2000100000, seed=2), "b")   # 50 ppm apart
    res = compare.compare(compare.load_run(str(a), str(tmp_path)), compare.load_run(str(b), str(tmp_path)),
                          cycles=True)
    assert res["basis"]["unit"] == "cycles" and not res["basis"]["warnings"]
    assert res["rows"][0]["median_a"] == pytest.approx(5000, rel=0.01)


def test_compare_pmu_cycles_not_put_in_ns(tmp_path):
    _, a = parsed(tmp_path, _spin_run("aarch64", hz=62500000, unit="pmu_cycles"), "a")
    _, b = parsed(tmp_path, _spin_run("aarch64", hz=25000000, unit="pmu_cycles", seed=2), "b")
    res = compare.compare(compare.load_run(str(a), str(tmp_path)), compare.load_run(str(b), str(tmp_path)),
                          cycles=True)
    (row,) = res["rows"]
    assert res["basis"]["unit"] == "ns" and row["p"] is None and row["verdict"] == "-"
    assert "pmu_cycles of no known rate" in row["notes"][0]


def test_compare_warns_without_a_frequency(tmp_path):
    _, a = parsed(tmp_path, _spin_run(hz=2000000000), "a")
    _, b = parsed(tmp_path, _spin_run(hz=False, seed=2), "b")
    res = compare.compare(compare.load_run(str(a), str(tmp_path)), compare.load_run(str(b), str(tmp_path)),
                          cycles=True)
    assert res["basis"]["unit"] == "cycles"
    assert res["basis"]["warnings"] and res["basis"]["warnings"][0].startswith("B states no clock")


# --- QEMU timeout -----------------------------------------------------------------------------

def test_default_timeouts():
    assert qemu.default_timeout("x86_64") == 120 and qemu.default_timeout("aarch64") == 300
    assert qemu.default_timeout("x86_64", icount=True) == 600
    assert qemu.default_timeout("aarch64", icount=True) == 600
    msg = qemu.run_failed({"timed_out": True, "timeout_s": 300, "exit_code": None,
                           "arch": "aarch64"})
    assert "300s timeout (raise it with --timeout SECONDS)" in msg[0]


def test_run_qemu_uses_the_architecture_default(tmp_path, monkeypatch):
    seen = []

    def fake_run(cmd, timeout, out_dir, stop_after=None):
        seen.append(timeout)
        for name in ("qemu.stderr", "serial.log"):
            open(os.path.join(out_dir, name), "wb").close()
        return 0, False, False, 0.1, False
    monkeypatch.setattr(qemu, "check_tools", lambda **kw: None)
    monkeypatch.setattr(qemu, "prepare", lambda out_dir, *a: os.makedirs(out_dir, exist_ok=True)
                        or ({}, "", []))  # (settings, cfg text, changes)
    monkeypatch.setattr(qemu, "_run", fake_run)
    qemu.run_qemu(str(tmp_path / "a"), arch="aarch64")
    qemu.run_qemu(str(tmp_path / "x"), arch="x86_64")
    qemu.run_qemu(str(tmp_path / "t"), arch="aarch64", timeout=10)
    assert seen == [300, 120, 10]


def test_interrupt_section_units_follow_the_architecture(tmp_path):
    from bmharness.report import irq as irq_report
    masked = {"taken_masked": 0, "taken_after_unmask": 1, "after_unmask_cycles": 686,
              "received": 4, "n": 4}
    for arch, unit in (("aarch64", "686 counter ticks after the unmask"),
                       ("x86_64", "686 cycles after the unmask")):
        res = {"latency": [], "masked": [masked], "exceptions": [], "displace": [], "noise": None,
               "skips": [], "footprint": None, "apic": None, "arch": arch}
        doc = report.Doc()
        irq_report.section(doc, res, str(tmp_path))
        assert unit in doc.text()


def test_aarch64_unknown_cache_geometry(tmp_path):
    # A KVM guest's caches as the firmware reports them: no size, geometry=unknown with the
    # reason. No knee is judged against (nor flagged for want of) a size, the reason is shown,
    # and nothing is sized from a 64-byte "cache".
    summary, out = parsed(tmp_path, synth.memory_stream(arch="aarch64", midr=synth.MIDR_N1, n=8,
                                                        stand_in=True))
    unknown = archinfo.unknown_geometry(summary)
    assert [u["name"] for u in unknown] == ["L1d", "L2", "L3"]
    assert all(u["reason"] == synth.STAND_IN_REASON for u in unknown)
    assert [u["name"] for u in archinfo.unknown_geometry(summary, data_only=False)] == [
        "L1d", "L1i", "L2", "L3"]
    mem = memory.analyse(summary, str(out))
    assert mem["cpuid"] == [] and mem["unknown_geometry"] == unknown
    h = mem["hierarchy"]
    assert h["levels"] == [] and h["unknown"] == unknown
    # the curves' knees are there, but none is a mismatch: the levels have no size
    assert h["primary"]["knees"] and h["extra"] and h["flags"] == []
    text, _ = report.write_report(str(out), plot=False)
    assert "L1d: geometry unknown (CCSIDR_EL1 gives 1 set x 1 way" in text
    assert "L1 data: geometry unknown: CCSIDR_EL1 gives 1 set x 1 way" in text
    assert "knees and CLIDR/CCSIDR agree" not in text and "64 B" not in text
    assert headline.memory_levels(mem)["dram"] is None
    assert compare_levels.level_bounds(summary, mem["curves"]) == []


def test_aarch64_one_unknown_level_leaves_the_others_judged(tmp_path):
    # L1d and L2 believed, the L3 record a stand-in: L1d and L2 still agree with their knees,
    # the L3 knee is no flag, DRAM has no lower end.
    summary, out = parsed(tmp_path, synth.memory_stream(arch="aarch64", midr=synth.MIDR_N1, n=8,
                                                        stand_in=(3,)))
    assert [u["name"] for u in archinfo.unknown_geometry(summary)] == ["L3"]
    mem = memory.analyse(summary, str(out))
    h = mem["hierarchy"]
    assert [r["name"] for r in h["levels"]] == ["L1d", "L2"]
    assert [r["status"] for r in h["levels"]] == ["agree", "agree"]
    assert h["flags"] == []
    assert headline.memory_levels(mem)["dram"] is None
    # compare per level: L1d and L2 keep their plateaus (an unknown level above them bounds
    # nothing below it); the L3's and DRAM's have no bounds, so they are not compared
    bounds = compare_levels.level_bounds(summary, mem["curves"])
    assert [b[0] for b in bounds] == ["L1d", "L2"] and bounds[0][1] == 0
    assert bounds[1][1] == 2 * bounds[0][2] * 2 and all(b[2] is not None for b in bounds)
