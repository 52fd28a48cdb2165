"""The sampling profiler on AArch64 with real PMUv3 overflow interrupts: one `-icount shift=0` boot
of the USB image under qemu-system-aarch64 -machine virt,gic-version=3 -cpu max (TCG), probe
prof_split profiled with profile_source=pmu and profile_event=instructions. QEMU counts
INST_RETIRED exactly under -icount and raises the PMU's overflow PPI (23 on virt) through the GIC,
so the samples fall on instructions: prof_split spends 30% of its loop instructions in
arch_split_a and 70% in arch_split_b (by construction), and the profile must recover 30% within 2
points (band fixed before measuring, as x86_64/test_profile.py asks of the x86 timer profile).
Also: the begin record says source=pmi, events=instructions, unit=events and no fallback; per CPU
counted + lost = samples and the chunks add up (check_stream); the GIC record names the PMU's
interrupt. A second boot, plain TCG on 2 cores, profiles membw_mc with the defaults
(profile_source=auto, profile_event=cycles): auto takes the PMU (source=pmi, CPU_CYCLES), and the
application processor samples with its own counters into its own table (cpu 1's records, most of
its samples in the bandwidth kernels). That boot does without -icount (membw_mc takes minutes
under it, and there core 1 took no INST_RETIRED samples: README "AArch64 sampling on PMU
overflow"). Symbols come from the ELF the build keeps by the image's build id
(build/aarch64/elf/<id>.elf), found as the harness finds it. ~20 s."""

import os


from bmharness.analysis import profile
from profile_checks import check_ap_pmi_profile, check_region, check_stream, prof_records, samples_by_function

from configs import CONFIGS  # the boot configurations (configs.py)

SPLIT_BAND_PCT = 2.0
SPLIT_MIN_SAMPLES = 5000
INTID_PMU_QEMU_VIRT = 23


def test_auto_period_extends_to_enough_samples(a64):
    """The `a64` boot profiles spin at the automatic period (PMU overflow on CPU_CYCLES): one
    spin run is short, so the probe runs again, muted, until the profile holds 1000 samples (or
    20 s pass); the spin records stay those of one run. Its profile is of the measured region:
    >= 95% arch_spin, the samples of the runs' set-up and records counted apart."""
    begin, ends, cost, data = prof_records(a64, "spin")
    check_stream(begin, ends, cost, data)
    b = begin[0]
    assert b["source"] == "pmi" and b["period_auto"] == "1" and int(b["runs"]) > 1, b
    samples = sum(int(e["samples"]) for e in ends)
    assert (b["extend_stop"], samples >= 1000) in (("samples", True), ("time", False)), (b, samples)
    assert len(a64.sets("spin")) == 1 and a64.sets("spin")[0]["complete"]
    check_region(begin, ends, cost, data, lambda fn: fn == "arch_spin")


def test_boot_ok(a64pmu):
    b = a64pmu
    assert not b.run["timed_out"] and b.run["exit_code"] == 0
    assert "-icount" in b.run["command_line"]
    assert b.summary["ok"], b.summary["validation"]["problems"]
    assert b.summary["end"]["status"] == "ok", b.summary["messages"]
    assert not [s for s in b.summary["skips"] if s.get("part") == "profile"], b.summary["skips"]
    g = b.plat("gic")
    g = g[0] if isinstance(g, list) and len(g) == 1 else g
    assert g["ready"] == 1 and g["intid_pmu"] == INTID_PMU_QEMU_VIRT
    assert g["intid_pmu_from"] in ("madt", "qemu_virt_default")


def test_split_recovered_from_pmu_overflow(a64pmu):
    begin, ends, cost, data = prof_records(a64pmu, "prof_split")
    check_stream(begin, ends, cost, data)
    b = begin[0]
    assert (b["source"], b["events"], b["unit"]) == ("pmi", "instructions", "events")
    assert "fallback" not in b
    assert int(b["period"]) == CONFIGS["a64pmu"].options["profile_period"] and int(b["cpus"]) == 1
    by = samples_by_function(b, data, image_only=True)
    assert by.get(None, 0) == 0, by  # every interrupted pc is in the image (firmware code only)
    assert sum(by.values()) == sum(int(e["counted"]) for e in ends)
    a, bb = by.get("arch_split_a", 0), by.get("arch_split_b", 0)
    assert a + bb >= SPLIT_MIN_SAMPLES, by
    share = 100.0 * a / (a + bb)
    assert abs(share - 30.0) <= SPLIT_BAND_PCT, (share, by)
    # The harness's own symbolisation (the ELF found by the build id) finds the same split.
    res = profile.analyse_dir(os.path.join(a64pmu.out_dir, "parsed"))
    sa, sb = profile.share(res, "prof_split", "arch_split_a"), profile.share(res, "prof_split", "arch_split_b")
    assert abs(100.0 * sa / (sa + sb) - 30.0) <= SPLIT_BAND_PCT, (sa, sb)


def test_application_processor_samples_with_its_own_pmu(a64prof_smp):
    b = a64prof_smp
    assert not b.run["timed_out"] and b.run["exit_code"] == 0
    assert b.summary["ok"], b.summary["validation"]["problems"]
    check_ap_pmi_profile(b)  # profile_source=auto took the PMU
