"""Counter records (ctr, check, counter skips): the parser keeps and validates them, tolerates their
absence, and the derived figures (IPC, misses per KiB, effective frequency, energy per byte) come
out of known synthetic values."""

import pytest

import synth
from bmharness.analysis import counters
from bmharness.report import report
from bmharness.stream import parse
from bmharness.stream.protocol import encode_values

N = 8
ITERS = 10
BYTES = 65536  # bytes_per_op of the synthetic bandwidth set


def ctr(s, set_id, event, values, pas=0, overhead=0, wraps=0, chunk=96):
    for i in range(0, len(values), chunk):
        part = values[i:i + chunk]
        s.add("ctr", set=set_id, event=event, **{"pass": pas}, overhead=overhead, wraps=wraps,
              i=i, n=len(part), v=encode_values(part))


def stream(drop=None, extra=None, passes=2, dram_esu=None):
    """A boot with a PMU: one bandwidth set whose events need two passes, a pmu_check pass and a
    refused event (energy_dram; counted instead, 1 J per sample, when dram_esu is given: 0 =
    a record without rapl_dram_esu, as older logs)."""
    s = synth.Stream().begin()
    s.add("cfg", probes="membw,pmu_check", samples=N, pmu_events="auto")
    pmu = dict(kind="pmu", present=1, reason="architectural PMU (CPUID 0xA)", vendor_version=4,
               pmu="intel_arch", gp=2, gp_width=48, fixed=3, fixed_width=48, fixed_mask="0x7",
               arch_events="0x7f", full_width=1, global_ctrl=1, status_reset=1,
               family_events="intel_skylake", aperf_mperf=1, rapl=1, rapl_esu=14, rapl_pkg=1,
               rapl_dram=1, rapl_core=0)
    if dram_esu:
        pmu["rapl_dram_esu"] = dram_esu
    s.add("plat", pmu)
    s.add("plat", kind="tsc", hz=2000000000, source="hpet", invariant=1)
    events = "cycles,instructions,llc_misses,l1d_misses,aperf,mperf,energy_pkg,l2_misses"
    if dram_esu is not None:
        events += ",energy_dram"
    s.add("probe", dict(name="membw", set=0, unit="cycles", n=N, iters=ITERS, overhead=40,
                        tsc_hz=2000000000, kernel="read", width=256, size=BYTES,
                        bytes_per_op=BYTES, ctr_set="bandwidth", ctr_events=events,
                        ctr_passes=passes,
                        **({} if dram_esu is not None else {"ctr_refused": "energy_dram"})))
    s.add("samples", set=0, i=0, n=N, v=encode_values([20040] * N))
    vals = {
        "cycles": [20000 + 30] * N,         # overhead 30 -> 20000 per sample
        "instructions": [50000 + 20] * N,   # -> 50000: IPC 2.5
        "llc_misses": [1024 * 10 + 2] * N,  # -> 10240 per 640 KiB: 16 per KiB
        "l1d_misses": [10240 * 2] * N,      # no overhead: 20480 -> 32 per KiB
        "aperf": [3000] * N,
        "mperf": [2000] * N,                # 1.5 x TSC
        "energy_pkg": [16384] * N,          # 1 J per sample at ESU 14
    }
    if dram_esu is not None:
        vals["energy_dram"] = [65536] * N   # 1 J per sample in the servers' fixed 2^-16 J
    ov = {"cycles": 30, "instructions": 20, "llc_misses": 2}
    for ev, v in vals.items():
        if ev not in ((drop,) if isinstance(drop, str) else drop or ()):
            ctr(s, 0, ev, v, 0, ov.get(ev, 0))
    if passes > 1:
        ctr(s, 0, "tsc", [20100] * N, 1, 40)
        ctr(s, 0, "l2_misses", [5120] * N, 1, 0)
    if extra:
        extra(s)
    if dram_esu is None:
        s.add("skip", probe="membw", set=0, ctr_set="bandwidth", event="energy_dram",
              reason="no RAPL DRAM energy counter on this CPU")
    s.add("check", name="instructions_retired", probe="pmu_check", event="instructions",
          counter="fixed", loop="dec_jnz", insns_per_iter=2, iters=1001000, expected=2002000,
          measured=2002000, overhead=41, tolerance=0, status="pass")
    return s.end(probes=2, skips=0)


def parse_stream(s):
    return parse.analyse(s.data())["summary"]


def test_counters_kept_and_valid():
    summ = parse_stream(stream())
    assert summ["ok"], summ["validation"]["problems"]
    (st,) = summ["sets"]
    c = st["counters"]
    assert c["set"] == "bandwidth" and c["passes"] == 2 and c["refused"] == ["energy_dram"]
    assert set(c["events"]) == {"cycles", "instructions", "llc_misses", "l1d_misses", "aperf",
                                "mperf", "energy_pkg", "l2_misses", "tsc.1"}
    assert c["events"]["cycles"]["values"] == [20030] * N and c["events"]["cycles"]["overhead"] == 30
    assert c["events"]["l2_misses"]["pass"] == 1
    # the declaration is not a parameter of the set (compare/memory key on params)
    assert "ctr_set" not in st["params"] and st["params"]["kernel"] == "read"
    assert summ["checks"][0]["status"] == "pass" and summ["checks"][0]["measured"] == 2002000


def test_missing_event_or_values_make_the_set_incomplete():
    summ = parse_stream(stream(drop="l1d_misses"))
    kinds = {p["kind"] for p in summ["validation"]["problems"]}
    assert "ctr_missing" in kinds and not summ["sets"][0]["complete"] and not summ["ok"]

    def short(s):
        ctr(s, 0, "l1d_misses", [1] * (N - 2), 0)
    summ = parse_stream(stream(drop="l1d_misses", extra=short))
    assert any(p["kind"] == "set_count" and "ctr l1d_misses" in p["message"]
               for p in summ["validation"]["problems"])


def test_undeclared_and_orphan_counters_reported():
    def bad(s):
        ctr(s, 0, "branches", [1] * N, 0)       # not in ctr_events
        ctr(s, 0, "cycles", [1] * N, 5)         # pass beyond ctr_passes
        ctr(s, 9, "cycles", [1] * N, 0)         # no such set
    summ = parse_stream(stream(extra=bad))
    kinds = [p["kind"] for p in summ["validation"]["problems"]]
    assert kinds.count("ctr_unknown") == 2 and "orphan_ctr" in kinds


def test_no_counters_is_fine():
    summ = parse.analyse(synth.full_stream().data())["summary"]
    assert summ["ok"] and all("counters" not in s for s in summ["sets"]) and summ["checks"] == []
    an = counters.analyse(summ)
    assert not an["present"] and an["sets"] == [] and "absent" in an["status"]


def test_derived_figures():
    summ = parse_stream(stream())
    an = counters.analyse(summ)
    assert an["present"] and "intel_arch v4" in an["status"]
    (f,) = an["sets"]
    assert f["ipc"] == pytest.approx(2.5)
    assert f["per_op"]["cycles"] == pytest.approx(2000)
    kib = BYTES * ITERS / 1024.0
    assert f["misses_per_kib"]["llc_misses"] == pytest.approx(10240 / kib)
    assert f["misses_per_kib"]["l1d_misses"] == pytest.approx(20480 / kib)
    assert f["misses_per_kib"]["l2_misses"] == pytest.approx(5120 / kib)
    assert f["eff_hz"] == pytest.approx(3e9)
    # 1 J per sample over BYTES * ITERS bytes
    assert f["nj_per_byte"]["energy_pkg"] == pytest.approx(1e9 / (BYTES * ITERS))
    # 1 J per 20040-cycle sample at 2 GHz
    assert f["watts"]["energy_pkg"] == pytest.approx(2e9 / 20040)
    assert f["repeat_tsc_ratio"]["tsc.1"] == pytest.approx(20100 / 20040)


def test_counter_skips_grouped_in_report(tmp_path):
    s = synth.Stream().begin()
    s.add("plat", kind="pmu", present=0, reason="CPUID 0xA reports no counters", vendor_version=0)
    for k in range(3):
        s.probe("spin", k, [1000] * 4, iters=10, overhead=40, loop="dec_jnz")
        s.add("skip", probe="spin", set=k, ctr_set="spin", events="cycles,instructions",
              reason="CPUID 0xA reports no counters")
    s.add("skip", probe="pmu_check", reason="CPUID 0xA reports no counters")
    s.end(probes=2, skips=1)
    log = tmp_path / "serial.log"
    log.write_bytes(s.data())
    parse.parse_log(str(log), str(tmp_path))
    text, ok = report.write_report(str(tmp_path), plot=False)
    assert ok
    assert "3 sets" in text and "counters spin: cycles,instructions" in text
    assert "absent: CPUID 0xA reports no counters; 3 counter request(s) skipped" in text
    assert "pmu_check skipped" in text


def test_report_counters_section(tmp_path):
    log = tmp_path / "serial.log"
    log.write_bytes(stream().data())
    parse.parse_log(str(log), str(tmp_path))
    text, ok = report.write_report(str(tmp_path), plot=False)
    assert ok
    assert "COUNTERS" in text and "check instructions_retired: PASS" in text
    assert "2.5" in text and "bandwidth" in text



def test_dram_energy_uses_its_own_unit():
    """The DRAM domain of the Intel servers counts in 2^-16 J while the unit register says 14:
    rapl_dram_esu scales it; scaling by rapl_esu would read 4x too high. Older logs without the
    field fall back to rapl_esu."""
    (f,) = counters.analyse(parse_stream(stream(dram_esu=16)))["sets"]
    assert f["nj_per_byte"]["energy_dram"] == pytest.approx(1e9 / (BYTES * ITERS))
    assert f["nj_per_byte"]["energy_pkg"] == pytest.approx(1e9 / (BYTES * ITERS))
    assert f["watts"]["energy_dram"] == pytest.approx(2e9 / 20040)
    (old,) = counters.analyse(parse_stream(stream(dram_esu=0)))["sets"]
    assert old["nj_per_byte"]["energy_dram"] == pytest.approx(4e9 / (BYTES * ITERS))


def test_status_names_unmade_settings_and_free_running_counters():
    """The Counters status line says when lfence could not be made serialising or rdpmc faults,
    and which free-running counters are still read without a core PMU."""
    summ = {"platform": {"pmu": {"present": 0, "reason": "CPUID 0xA reports no counters",
                                 "aperf_mperf": 1, "rapl": 1, "lfence_serializing": "no",
                                 "freeze_while_smm": "not_offered", "rdpmc": "faults"}}}
    present, text = counters.status(summ)
    assert not present
    assert "free-running counters still read: aperf/mperf, rapl" in text
    assert "lfence_serializing no" in text and "rdpmc faults" in text
    assert "freeze_while_smm" not in text


def test_status_names_the_core_type_of_a_hybrid_part():
    """On a hybrid part the pmu record's core_type says whose counters the description is."""
    pmu = {"present": 1, "pmu": "intel_arch", "vendor_version": 5, "gp": 8, "gp_width": 48,
           "fixed": 3, "family_events": "intel_alderlake_p", "core_type": "p"}
    present, text = counters.status({"platform": {"pmu": pmu}})
    assert present and "families: intel_alderlake_p (hybrid part: the P-core's PMU)" in text
    del pmu["core_type"]
    assert "hybrid" not in counters.status({"platform": {"pmu": pmu}})[1]


# --- wrapped and clamped deltas (issue 10) -----------------------------------------------------

WRAPPED = (1 << 64) - 5  # a counter that went 5 backwards, seen as unsigned


def test_wrapped_counter_deltas_are_flagged_and_excluded():
    def wrap(s):
        ctr(s, 0, "energy_pkg", [16384] * (N - 1) + [WRAPPED], 0)
        ctr(s, 0, "cycles", [WRAPPED] + [20000 + 30] * (N - 1), 0, 30)
    (f,) = counters.analyse(parse_stream(stream(drop=("energy_pkg", "cycles"),
                                                extra=wrap)))["sets"]
    # the wrapped samples are left out: still 1 J per sample, not ~2^64 units
    assert f["nj_per_byte"]["energy_pkg"] == pytest.approx(1e9 / (BYTES * ITERS))
    assert f["watts"]["energy_pkg"] == pytest.approx(2e9 / 20040)
    assert f["excluded"] == {"energy_pkg": {"wrapped": 1, "below_overhead": 0},
                             "cycles": {"wrapped": 1, "below_overhead": 0}}
    # and the other event's samples stay aligned: IPC over the 7 good pairs
    assert f["ipc"] == pytest.approx(2.5) and f["per_op"]["cycles"] == pytest.approx(2000)


def test_deltas_below_overhead_do_not_bias_energy_upward():
    # 1 J per sample (16384 units) plus an overhead of 100, with read noise that is symmetric:
    # two samples fall below the overhead; clamping them at 0 would raise the mean
    vals = [16384 + 100 + d for d in (-16450, 16450, -16420, 16420, 0, 0, -5000, 5000)]
    assert sum(vals) == N * (16384 + 100) and sum(1 for v in vals if v < 100) == 2
    (f,) = counters.analyse(parse_stream(stream(drop="energy_pkg", extra=lambda s: ctr(
        s, 0, "energy_pkg", vals, 0, 100))))["sets"]
    assert f["nj_per_byte"]["energy_pkg"] == pytest.approx(1e9 / (BYTES * ITERS), rel=1e-9)
    assert f["watts"]["energy_pkg"] == pytest.approx(2e9 / 20040, rel=1e-9)
    assert f["excluded"]["energy_pkg"] == {"wrapped": 0, "below_overhead": 2}


def test_wrapped_samples_excluded_from_set_statistics(tmp_path):
    s = synth.Stream().begin()
    s.probe("spin", 1, [1000, 1002, 1004, WRAPPED, 1006], iters=1, overhead=0)
    log = tmp_path / "serial.log"
    log.write_bytes(s.end(probes=1, skips=0).data())
    summ = parse.parse_log(str(log), str(tmp_path / "p"))
    st = summ["sets"][0]
    assert st["wrapped"] == 1 and st["stats"]["raw"]["n"] == 4
    assert st["stats"]["per_op"]["mean"] == pytest.approx(1003)
    assert any(p["kind"] == "wrapped" for p in summ["validation"]["problems"])
    header, values = parse.read_raw(str(tmp_path / "p" / st["raw_file"]))
    assert len(values) == 5 and header["wrapped"].startswith("1 ")


def mc_stream(old_firmware):
    """membw_mc on 2 cores, 1 J of package energy per sample (ESU 14): each core moves BYTES per
    op. New firmware: the per-core sets count their own events and refuse energy_pkg, the
    aggregate set (cpu=all, bytes_per_op = both cores' bytes) carries energy_pkg. An older log:
    every per-core set carries energy_pkg (the whole package's joules in each)."""
    s = synth.Stream().begin()
    s.add("cfg", probes="membw_mc", samples=N, pmu_events="auto")
    s.add("plat", kind="pmu", present=1, reason="architectural PMU (CPUID 0xA)", vendor_version=4,
          pmu="intel_arch", gp=4, gp_width=48, fixed=3, fixed_width=48, rapl=1, rapl_esu=14,
          rapl_pkg=1, rapl_dram=0, rapl_core=0)
    s.add("plat", kind="tsc", hz=2000000000, source="hpet", invariant=1)
    core_events = "cycles,energy_pkg" if old_firmware else "cycles"
    common = dict(unit="cycles", n=N, iters=ITERS, overhead=40, tsc_hz=2000000000,
                  kernel="read", width=256, size=BYTES, convention="rw", page="2M", cpus=2)
    for cpu in (0, 1):
        s.add("probe", dict(common, name="membw_mc", set=cpu, cpu=cpu, bytes_per_op=BYTES,
                            ctr_set="bandwidth", ctr_events=core_events, ctr_passes=1,
                            **({} if old_firmware else {"ctr_refused": "energy_pkg"})))
        s.add("samples", set=cpu, i=0, n=N, v=encode_values([20040] * N))
        ctr(s, cpu, "cycles", [20000] * N)
        if old_firmware:
            ctr(s, cpu, "energy_pkg", [16384] * N)
    agg = dict(common, name="membw_mc", set=2, cpu="all", bytes_per_op=2 * BYTES)
    if not old_firmware:
        agg.update(ctr_set="bandwidth", ctr_events="energy_pkg", ctr_passes=1)
    s.add("probe", agg)
    s.add("samples", set=2, i=0, n=N, v=encode_values([20100] * N))
    if not old_firmware:
        ctr(s, 2, "energy_pkg", [16384] * N)
    return s.end(probes=1, skips=0)


def test_package_energy_not_divided_by_one_cores_bytes(tmp_path):
    # New firmware: the aggregate's joules over both cores' bytes; no per-core energy at all.
    an = counters.analyse(parse_stream(mc_stream(False)))
    by_set = {f["set"]: f for f in an["sets"]}
    assert "nj_per_byte" not in by_set[0] and "nj_per_byte" not in by_set[1]
    assert by_set[2]["nj_per_byte"]["energy_pkg"] == pytest.approx(1e9 / (2 * BYTES * ITERS))
    assert by_set[2]["watts"]["energy_pkg"] == pytest.approx(2e9 / 20100)
    # An older log's per-core package energy is never divided by one core's bytes (that gave
    # 1e9 / (BYTES * ITERS): twice the truth on 2 cores), and the report says why.
    old = counters.analyse(parse_stream(mc_stream(True)))
    for f in old["sets"]:
        if f["set"] in (0, 1):
            assert "nj_per_byte" not in f and "watts" not in f
            assert f["energy_note"] == counters.PER_CORE_ENERGY_NOTE
    assert counters.per_core_set({"name": "membw_mc", "params": {"cpu": 0}})
    assert not counters.per_core_set({"name": "membw_mc", "params": {"cpu": "all"}})
    assert not counters.per_core_set({"name": "membw", "params": {"cpus": 1}})
    log = tmp_path / "serial.log"
    log.write_bytes(mc_stream(True).data())
    parse.parse_log(str(log), str(tmp_path))
    text, _ = report.write_report(str(tmp_path), plot=False)
    assert "per core: see cpu=all" in text and "not divided" in text
