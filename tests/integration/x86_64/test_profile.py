"""The sampling profiler under QEMU (time-based: TCG has no x86 PMU). Two boots:
- `-icount` (the shared `icount` boot of configs.py): the APIC timer then counts instructions, so time-based samples fall on
  instructions uniformly; probe prof_split spends 30% of its loop instructions in arch_split_a,
  70% in arch_split_b: the profile must recover 30% within 2 points (band fixed before measuring).
- plain TCG, 2 CPUs: `spin` (>= 95% of samples in arch_spin), `membw` (>= 95% in the
  bandwidth kernels: its core-clock reference timings are outside the measured region), `membw_mc`
  (the application processor samples too), the probes' own records unchanged in structure, and a
  probe that cannot be profiled.
- `prof_auto`: spin at the automatic period with short runs, repeated muted: the samples outside
  the measured region (set-up, records) are counted apart and the profile is >= 95% arch_spin.
Symbols come from the unstripped ELF the build keeps under build/x86_64/elf/<build_id>.elf."""

import os



from bmharness.analysis import profile
from bmharness.report import report

from profile_checks import check_region, check_stream, prof_records, samples_by_function
from test_save_stick import check_live

SPLIT_BAND_PCT = 2.0
SPLIT_MIN_SAMPLES = 5000
MEMBW_KERNEL_PREFIXES = ("bw_", "arch_chase")


def test_split_recovered_under_icount(icount):
    assert icount.summary["ok"], icount.summary["validation"]
    begin, ends, cost, data = prof_records(icount, "prof_split")
    check_stream(begin, ends, cost, data)
    assert begin[0]["source"] == "timer" and begin[0]["events"] == "time" and begin[0]["unit"] == "ns"
    by = samples_by_function(begin[0], data)
    a, b = by.get("arch_split_a", 0), by.get("arch_split_b", 0)
    assert a + b >= SPLIT_MIN_SAMPLES, by
    share = 100.0 * a / (a + b)
    assert abs(share - 30.0) <= SPLIT_BAND_PCT, (share, by)
    # The harness's own symbolisation finds the same split.
    res = profile.analyse_dir(os.path.join(icount.out_dir, "parsed"))
    sa, sb = profile.share(res, "prof_split", "arch_split_a"), profile.share(res, "prof_split", "arch_split_b")
    assert abs(100.0 * sa / (sa + sb) - 30.0) <= SPLIT_BAND_PCT, (sa, sb)


def test_spin_profile(spin_membw):
    assert spin_membw.summary["ok"], spin_membw.summary["validation"]
    begin, ends, cost, data = prof_records(spin_membw, "spin")
    check_stream(begin, ends, cost, data)
    by, outside = check_region(begin, ends, cost, data, lambda fn: fn == "arch_spin")
    assert sum(by.values()) + outside >= 100, (by, outside)  # taken: a loaded host takes fewer
    # The probe's own sample sets are there as in an unprofiled run.
    assert spin_membw.sets("spin") and all(s["complete"] for s in spin_membw.sets("spin"))
    # The harness: profile.json agrees, and the report has a Profile section with the hot loop.
    res = profile.analyse_dir(os.path.join(spin_membw.out_dir, "parsed"))
    assert res["ok"], res["problems"]
    assert profile.share(res, "spin", "arch_spin") >= 0.95
    doc, _ok = report.build(spin_membw.summary, os.path.join(spin_membw.out_dir, "parsed"))
    text = doc.text()
    assert "PROFILE" in text and "arch_spin" in text, text[-3000:]


def test_auto_period_extends_to_enough_samples(prof_auto):
    """profile=spin at the automatic period: one spin run takes a few samples at TCG's long auto
    period, so the probe runs again, muted, until the profile holds 1000; its records stay those
    of one run (one set of `samples` samples, sets numbered without gaps, the stream complete)."""
    assert prof_auto.summary["ok"], prof_auto.summary["validation"]
    begin, ends, cost, data = prof_records(prof_auto, "spin")
    check_stream(begin, ends, cost, data)
    b = begin[0]
    assert b["period_auto"] == "1" and b["extend_stop"] in ("samples", "time"), b
    assert int(b["runs"]) > 1 and b["min_samples"] == "1000" and b["extend_max_ms"] == "20000"
    samples = sum(int(e["samples"]) for e in ends)
    if b["extend_stop"] == "samples":
        assert samples >= 1000, ends
    else:  # a loaded host makes a sample dearer, the auto period longer: 20 s came first
        # The stop came when one more run as long as the last would have passed 20 s: the runs
        # took 20 s less about one run. Runs differ (one that takes a sample is longer by its
        # cost), so not 20 s x (1 - 1/runs); a spin run at this target is far below 2 s.
        hz, run_cycles = prof_auto.summary["platform"]["tsc"]["hz"], int(cost[0]["run_cycles"])
        assert run_cycles / hz >= 20.0 * 0.9 and samples < 1000, (b, cost, samples)
    # Short runs repeated: their set-up and records take samples, counted apart, not in the profile.
    _by, outside = check_region(begin, ends, cost, data, lambda fn: fn == "arch_spin")
    assert outside > 0, ends
    spin = prof_auto.sets("spin")
    assert len(spin) == 1 and spin[0]["complete"] and spin[0]["n"] == 8, spin
    sets = sorted(s["set"] for s in prof_auto.summary["sets"])
    assert sets == list(range(sets[0], sets[0] + len(sets))), sets
    text = " ".join(report.build(prof_auto.summary, os.path.join(prof_auto.out_dir, "parsed"))[0].text().split())
    assert "run(s) of the probe, the later ones muted" in text
    assert ("enough samples" if b["extend_stop"] == "samples" else "the time bound (20000 ms)") in text
    assert "outside the measurement %d of the %d taken" % (outside, samples + outside) in text


def test_membw_profile(spin_membw):
    begin, ends, cost, data = prof_records(spin_membw, "membw")
    check_stream(begin, ends, cost, data)
    by, outside = check_region(begin, ends, cost, data, lambda fn: fn.startswith(MEMBW_KERNEL_PREFIXES))
    assert sum(by.values()) + outside >= 50, (by, outside)
    assert spin_membw.sets("membw") and all(s["complete"] for s in spin_membw.sets("membw"))


def test_membw_mc_application_processor_samples(spin_membw):
    """The AP running membw_mc's kernels samples into its own table: cpu 1's records, most of its
    samples in the bandwidth kernels."""
    begin, ends, cost, data = prof_records(spin_membw, "membw_mc")
    check_stream(begin, ends, cost, data)
    assert int(begin[0]["cpus"]) == 2
    ap = [d for d in data if d["cpu"] == "1"]
    assert [e["cpu"] for e in ends] == ["0", "1"]
    by = samples_by_function(begin[0], ap)
    total = sum(by.values())
    kernels = sum(n for fn, n in by.items() if fn and fn.startswith(MEMBW_KERNEL_PREFIXES))
    assert total >= 20 and kernels > total / 2, by


def test_saved_beside_the_profiler(spin_membw):
    """configs.py SAVE_KEPT: the log goes to the boot stick while the profiler samples both cores."""
    check_live(spin_membw)


def test_unprofilable_probe_is_skipped(spin_membw):
    skips = [s for s in spin_membw.summary["skips"] if s.get("probe") == "fault_ud2"]
    assert any(s.get("part") == "profile" for s in skips), skips
    begin, _, _, _ = prof_records(spin_membw, "fault_ud2")
    assert not begin
