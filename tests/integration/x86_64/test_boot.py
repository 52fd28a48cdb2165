"""Boot the USB image under QEMU + OVMF (TCG) and check the record stream end to end.

Under TCG the numbers are emulation numbers: these tests assert structure, counts, invariants and
sanity ranges, never particular results."""

import os
import re

import pytest

from bmharness.stream import parse
from conftest import check_timer_sets


def host_tsc_hz():
    """The host's TSC rate as Linux measured it (QEMU TCG passes the host TSC through)."""
    try:
        with open("/proc/cpuinfo") as fh:
            m = re.search(r"^cpu MHz\s*:\s*([0-9.]+)", fh.read(), re.M)
        return float(m.group(1)) * 1e6 if m else None
    except OSError:
        return None


def assert_complete_ok(b):
    v = b.summary["validation"]
    assert not b.run["timed_out"], "QEMU had to be killed"
    assert b.run["boot"] == "usb"
    assert b.summary["ok"], v
    assert v["complete"] and not v["truncated"]
    assert not v["corrupt"] and not v["missing"] and not v["duplicates"]
    assert b.summary["end"]["status"] == "ok"
    assert b.summary["end"]["records"] == b.summary["end"]["seq"]
    # isa-debug-exit carried the firmware's status back: (0 << 1) | 1
    assert b.run["exit_code"] == 1 and b.run["firmware_status"] == 0


def test_usb_boot_completes(quick):
    assert_complete_ok(quick)
    assert quick.summary["begin"]["arch"] == "x86_64"
    assert quick.summary["begin"]["env"] == "uefi"
    assert quick.summary["cfg"]["timer_samples"] == 512


def test_platform_facts_present_and_sane(quick):
    p = quick.summary["platform"]
    for kind in ("firmware", "cpu", "features", "memmap", "acpi", "acpi_pm", "pmu", "tsc", "hpet", "ebs", "alloc"):
        assert kind in p, "missing plat kind=%s" % kind
    assert p["cpu"]["vendor"] in ("GenuineIntel", "AuthenticAMD")
    assert p["cpu"]["hypervisor"] == 1 and p["cpu"]["hv_sig"] == "TCGTCGTCGTCG"
    assert "FACP" in p["acpi"]["tables"].split(",")
    assert p["acpi_pm"]["s5"] == 1
    assert p["memmap"]["conventional"] > 256 << 20
    assert p["ebs"]["status"] == "ok" and 1 <= p["ebs"]["tries"] <= 8
    # TCG has no PMU: it must say so, not count
    assert p["pmu"]["present"] == 0 and p["pmu"]["reason"]
    assert p["hpet"]["present"] == 1 and p["hpet"]["hz"] == 100000000
    assert p["dram_peak"]["status"] in ("ok", "unknown")
    if p["dram_peak"]["status"] == "unknown":
        assert p["dram_peak"]["reason"]
    assert any(m["level"] == "info" and "options from" in m["text"] for m in quick.summary["messages"])


def test_smbios_system_and_board_serial_hashed(quick):
    """QEMU's -smbios fields come back as plat kind=system / kind=board; the serials only as the
    first 16 hex digits of their SHA-256, and the store's machine identity has them all."""
    import hashlib

    from bmharness.store import machine
    from configs import SMBIOS_SERIAL

    p = quick.summary["platform"]
    sysrec, board = p["system"], p["board"]
    assert (sysrec["present"], sysrec["source"], sysrec["manufacturer"], sysrec["product"], str(sysrec["version"])) == \
        (1, "smbios", "Acme Lab", "Bench 9", "2.1")
    assert sysrec["serial_hash"] == hashlib.sha256(SMBIOS_SERIAL.encode()).hexdigest()[:16]
    assert (board["present"], board["manufacturer"], board["product"]) == (1, "Acme Boards", "B9-MB")
    assert board["serial_hash"] == hashlib.sha256((SMBIOS_SERIAL + "-B").encode()).hexdigest()[:16]
    with open(quick.run["serial_log"], "rb") as fh:
        assert SMBIOS_SERIAL.encode() not in fh.read()
    ident = machine.identity(quick.summary)
    assert ident["system"]["manufacturer"] == "Acme Lab" and ident["board"]["product"] == "B9-MB"
    assert ident["serial_hash"] == sysrec["serial_hash"]
    assert not [m for m in machine.missing(ident) if "SMBIOS" in m]


def test_logical_cpus_and_cache_sharing(quick, smp2):
    # leaf 1's count means nothing without HTT (QEMU -smp 1 clears it): 1 CPU must not read 0
    for b, n in ((quick, 1), (smp2, 2)):
        cpu = b.summary["platform"]["cpu"]
        assert cpu["logical_cpus"] == n and cpu["logical_cpus_source"].startswith("cpuid_"), cpu
    # 0x80000005/6 (QEMU's default model) do not say which CPUs share a cache: no shared_by=0
    caches = quick.summary["platform"]["cache"]
    assert caches
    for c in caches:
        if c["source"].startswith("cpuid8000000"):
            assert "shared_by" not in c, c
        else:
            assert c["shared_by"] >= 1, c


def test_tsc_calibration(quick):
    tsc = quick.plat("tsc")
    assert tsc["source"] == "hpet"
    assert tsc["hz_pm_timer"] > 0 and tsc["hz_hpet"] > 0
    # the two reference clocks agree within 2%
    assert abs(tsc["hz_pm_timer"] - tsc["hz_hpet"]) / tsc["hz_hpet"] < 0.02
    assert tsc["disagree_ppm"] < 20000
    windows = quick.summary["platform"]["tsc_cal"]
    assert len(windows) == 2 * quick.summary["cfg"]["tsc_cal_windows"]
    assert all(w["ok"] == 1 and w["hz"] > 0 for w in windows)
    host = host_tsc_hz()
    if host is None:
        pytest.skip("host TSC rate unknown (/proc/cpuinfo has no cpu MHz)")
    assert abs(tsc["hz"] - host) / host < 0.20, (tsc["hz"], host)


def test_timer_probe_sample_counts(quick):
    for s in check_timer_sets(quick).values():
        assert s["stats"]["per_op"]["min"] > 0
    for sk in quick.summary["skips"]:
        assert sk["reason"]
    # every set has its raw file, one value per line
    for s in quick.summary["sets"]:
        header, values = parse.read_raw(os.path.join(quick.out_dir, "parsed", s["raw_file"]))
        assert len(values) == s["n"]


def test_runner_probe_calibrated(quick):
    (spin,) = quick.sets("spin")
    assert spin["n"] == quick.summary["cfg"]["samples"] and spin["complete"]
    target = spin["probe"]["target"]
    # one sample lasts at least the target (1000x the timer overhead by default)
    assert target >= 1000 * spin["overhead"]
    assert spin["stats"]["per_op"]["min"] * spin["iters"] + spin["overhead"] >= target * 0.5
    assert spin["iters"] > 1


def test_two_cpus(smp2):
    assert_complete_ok(smp2)
    assert smp2.sets("spin")


def test_two_gib(smp2):
    assert_complete_ok(smp2)
    # the sample arena was reserved before ExitBootServices, so it is loader data, not conventional
    mm, alloc = smp2.plat("memmap"), smp2.plat("alloc")
    assert mm["conventional"] + alloc["arena"] > 1536 << 20
    assert mm["total"] > 1900 << 20


def test_faults_are_reported_and_run_continues(faults):
    s = faults.summary
    assert s["validation"]["complete"], s["validation"]
    by_probe = {f["probe"]: f for f in s["faults"]}
    assert by_probe["fault_ud2"]["vector"] == 6 and by_probe["fault_ud2"]["name"] == "#UD"
    assert by_probe["fault_gp"]["vector"] == 13 and by_probe["fault_gp"]["name"] == "#GP"
    for f in s["faults"]:
        assert f["expected"] == 1 and f["action"] == "continue"
        assert int(f["rip"], 16) != 0
    # the probes after each fault still ran, in order
    (spin,) = faults.sets("spin")
    assert by_probe["fault_ud2"]["seq"] < spin["seq"] < by_probe["fault_gp"]["seq"]
    assert faults.sets("timer")
    assert s["end"]["status"] == "ok" and s["end"]["faults"] == 2 and s["end"]["unexpected_faults"] == 0
    assert faults.run["firmware_status"] == 0


def test_bad_options_reported_defaults_kept(faults):
    warns = [m["text"] for m in faults.summary["messages"] if m["level"] == "warn"]
    assert any("unknown key 'no_such_key'" in w for w in warns), warns
    assert any("bad value 'many' for 'tsc_cal_windows'" in w for w in warns), warns
    assert faults.summary["cfg"]["tsc_cal_windows"] == 3
    # one unknown probe name is skipped and reported; the known ones run, not the default suite
    assert any("unknown probe 'no_such_probe' in 'probes' skipped" in w for w in warns), warns
    assert faults.summary["cfg"]["probes"] == "fault_ud2,spin,fault_gp,timer"


def test_icount_timer_samples_identical(icount):
    """Under -icount the TSC counts instructions (2**shift ticks each): every back-to-back
    difference of one read method, and every spin sample, must be exactly equal."""
    assert icount.run["icount"]
    ticks_per_insn = 1 << icount.run["icount_shift"]
    assert icount.summary["validation"]["complete"]
    timer = icount.sets("timer")
    assert timer
    for s in timer:
        per = s["stats"]["per_op"]
        assert s["complete"] and per["min"] == per["max"], s["params"]
    (spin,) = icount.sets("spin")
    assert spin["stats"]["per_op"]["min"] == spin["stats"]["per_op"]["max"]
    # the loop is 2 instructions per iteration: per-iteration cost is 2 plus the share of overhead
    # the harness did not remove (none: it subtracts the stated overhead)
    assert abs(spin["stats"]["per_op"]["median"] / ticks_per_insn - 2.0) < 0.01


def test_acpi_s5_power_off(s5):
    """shutdown=acpi: the FADT's PM1a_CNT with \\_S5's SLP_TYP powers QEMU off (exit 0)."""
    b = s5
    assert b.summary["validation"]["complete"] and b.summary["end"]["status"] == "ok"
    assert not b.run["timed_out"] and b.run["exit_code"] == 0


def test_serial_rate_from_the_uart_clock(quick, s5, faults):
    """The divisor latch is clock / (16 x baud) (PC16550D data sheet, "Programmable Baud
    Generator"): 1 for 115200 on the PC's 1.8432 MHz clock, 1 for 921600 on a stated 14.7456 MHz
    one; 230400 on the PC clock is refused with a warning and the line runs at 115200."""
    ser = quick.summary["platform"]["serial"]
    assert (ser["baud"], ser["clock_hz"], ser["clock_source"], ser["divisor"]) == (115200, 1843200, "pc", 1)
    ser = s5.summary["platform"]["serial"]
    assert (ser["baud"], ser["clock_hz"], ser["clock_source"], ser["divisor"]) == (921600, 14745600, "option", 1)
    assert s5.summary["validation"]["complete"]
    ser = faults.summary["platform"]["serial"]
    assert (ser["baud"], ser["clock_source"], ser["divisor"]) == (115200, "pc", 1)
    warns = [m["text"] for m in faults.summary["messages"] if m["level"] == "warn"]
    assert any(w.startswith("serial_baud=230400 refused: a 16550 on 1843200 Hz") and w.endswith("running at 115200")
               for w in warns), warns


def test_missing_serial_port_does_not_hang(noserial):
    """A port with no UART behind it: the run goes on without a wire and still ends cleanly."""
    b = noserial
    assert not b.run["timed_out"]
    assert b.run["firmware_status"] == 0
    with open(b.run["serial_log"], "rb") as fh:
        assert b"@BM " not in fh.read()  # nothing went to COM1 either
