"""The harness's per-architecture QEMU command lines (bmharness.run.qemu.ARCHES): x86_64 keeps q35 +
OVMF + isa-debug-exit, aarch64 gets virt with GICv3, -cpu max, AAVMF and no exit device."""

import pytest

from bmharness.analysis import run_verdict
from bmharness.run import qemu


def test_x86_64_command_unchanged():
    cmd = qemu.build_command("/r")
    assert cmd[0] == "qemu-system-x86_64"
    assert cmd[cmd.index("-machine") + 1] == "q35"
    assert "-cpu" not in cmd
    assert "isa-debug-exit,iobase=0xf4,iosize=0x04" in cmd
    assert "if=pflash,format=raw,readonly=on,file=%s" % qemu.OVMF_CODE in cmd


def test_aarch64_command():
    cmd = qemu.build_command("/r", arch="aarch64")
    assert cmd[0] == "qemu-system-aarch64"
    assert cmd[cmd.index("-machine") + 1] == "virt,gic-version=3"
    assert cmd[cmd.index("-cpu") + 1] == "max"
    assert not any("isa-debug-exit" in a for a in cmd)
    assert "if=pflash,format=raw,readonly=on,file=/usr/share/AAVMF/AAVMF_CODE.fd" in cmd
    assert "usb-storage,drive=stick,bootindex=0" in cmd  # booted as a USB stick, like x86_64
    # AAVMF's boot time-out set to 0 (without it AAVMF waits ~4.5 s before booting)
    assert cmd[cmd.index("-boot") + 1] == "menu=on,splash-time=0"
    assert "-boot" not in qemu.build_command("/r")  # OVMF does not wait
    assert qemu.build_command("/r", arch="aarch64", cpu="cortex-a72")[
        cmd.index("-cpu") + 1] == "cortex-a72"


def test_aarch64_tools_named():
    missing = dict((pkg, what) for what, pkg in qemu.missing_tools(qemu="/nonexistent/qemu",
                                                                   arch="aarch64"))
    assert "qemu-system-arm" in missing


def test_unknown_arch_refused():
    with pytest.raises(qemu.HarnessError):
        qemu.build_command("/r", arch="riscv64")


def test_report_leaves_out_x86_rows_for_aarch64(tmp_path):
    """An AArch64 stream has no CPUID facts: the report must not print "hypervisor no" or CPUID
    rows it has no data for (not known is not "no"), and must keep them for x86_64."""
    import synth
    from bmharness.report import report
    from bmharness.stream import parse

    s = synth.Stream()
    s.add("begin", proto=1, build="t", arch="aarch64", env="uefi", fw_vendor="EDK II",
          fw_rev="0x10000")
    s.add("cfg", probes="timer", timer_samples=4)
    s.add("plat", kind="cpu", vendor="ARM", family=15, model=0xD08, stepping=3,
          brand="MIDR 0x410fd083", ucode="unreadable")
    s.add("plat", kind="tsc", hz=62500000, source="cntfrq", disagree_ppm=0, invariant=1)
    s.probe("timer", 0, [3, 4, 4, 3], method="cntvct")
    s.end(probes_run=1, skips=0, probes_skipped=0)
    log = tmp_path / "serial.log"
    log.write_bytes(s.data())
    parse.parse_log(str(log), str(tmp_path / "p"))
    text, _ = report.write_report(str(tmp_path / "p"), plot=False)
    assert "MIDR 0x410fd083" in text and "from cntfrq" in text
    for x86_only in ("hypervisor", "cpuid leaves", "logical cpus", "cpuid 0x15"):
        assert x86_only not in text, x86_only


def test_run_failed_on_a_machine_without_exit_device():
    """aarch64 virt exits 0 after PSCI SYSTEM_OFF whatever `shutdown` says: not a failure there
    (the end record decides), while on x86_64 exit 0 with shutdown=debug-exit still is one."""
    base = {"exit_code": 0, "firmware_status": None, "timed_out": False, "interrupted": False,
            "qemu_error": False, "firmware_status_name": "x", "config": {"shutdown": "debug-exit"}}
    assert qemu.run_failed(dict(base, arch="aarch64")) == []
    assert qemu.run_failed(dict(base, arch="x86_64")) != []
    assert qemu.run_failed(dict(base, arch="aarch64", timed_out=True, exit_code=None)) != []


def test_el2_option(tmp_path, monkeypatch, capsys):
    """--el2 (aarch64 only) asks QEMU virt for virtualization=on: AAVMF then runs, and starts
    baremetric, at EL2. QEMU merges the second -machine into the first."""
    from bmharness import cli
    seen = {}

    def fake_run(out_dir, **kw):
        seen.update(kw)
        raise qemu.HarnessError("stop here")

    monkeypatch.setattr(qemu, "run_qemu", fake_run)
    assert cli.main(["qemu", "--arch", "aarch64", "--el2", "--out", str(tmp_path / "a")]) == 2
    assert seen["extra_args"] == ["-machine", "virtualization=on"] and seen["arch"] == "aarch64"
    seen.clear()
    assert cli.main(["qemu", "--arch", "aarch64", "--out", str(tmp_path / "b")]) == 2
    assert seen["extra_args"] is None
    seen.clear()
    assert cli.main(["qemu", "--el2", "--out", str(tmp_path / "c")]) == 2  # x86_64: refused
    assert not seen and "--el2 is for --arch aarch64" in capsys.readouterr().err
    cmd = qemu.build_command("/r", arch="aarch64", extra_args=["-machine", "virtualization=on"])
    machines = [cmd[i + 1] for i, a in enumerate(cmd) if a == "-machine"]
    assert machines == ["virt,gic-version=3", "virtualization=on"]


def test_every_architecture_says_whether_it_has_an_exit_device():
    """run_verdict.EXIT_DEVICE (the report's judgement of run.json) covers the runner's ARCHES."""
    assert set(run_verdict.EXIT_DEVICE) == set(qemu.ARCHES)
    for arch in qemu.ARCHES:
        assert qemu.arch_info(arch)["exit_device"] is run_verdict.EXIT_DEVICE[arch]


def test_machine_option(tmp_path, monkeypatch):
    """--machine PROPS (repeatable) adds -machine options after --el2's: QEMU merges them into
    the harness's virt machine, so `--machine gic-version=2` boots a GICv2."""
    from bmharness import cli
    seen = {}

    def fake_run(out_dir, **kw):
        seen.update(kw)
        raise qemu.HarnessError("stop here")

    monkeypatch.setattr(qemu, "run_qemu", fake_run)
    assert cli.main(["qemu", "--arch", "aarch64", "--el2", "--machine", "gic-version=2",
                     "--out", str(tmp_path / "a")]) == 2
    assert seen["extra_args"] == ["-machine", "virtualization=on", "-machine", "gic-version=2"]


def test_firmware_override_is_this_threads_only():
    """The Secure Boot tests swap the firmware while the suite's other boots run in background
    threads: a swap reaches the boots of the thread that made it, never another thread's."""
    import threading

    seen = {}

    def other():
        seen["other"] = qemu.arch_info("aarch64")["code"]

    default = qemu.arch_info("aarch64")["code"]
    with qemu.firmware_override("aarch64", "/sb/CODE.fd", "/sb/VARS.fd"):
        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert qemu.arch_info("aarch64")["code"] == "/sb/CODE.fd"
        assert qemu.arch_info("aarch64")["vars"] == "/sb/VARS.fd"
        assert qemu.arch_info("x86_64")["code"] == qemu.OVMF_CODE
    assert seen["other"] == default
    assert qemu.arch_info("aarch64")["code"] == default
