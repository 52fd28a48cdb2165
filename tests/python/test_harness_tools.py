"""Config file, QEMU command line / exit decoding and serial capture (no QEMU is started)."""

import os

import pytest

import synth
from bmharness import cli
from bmharness.run import qemu, runconfig
from bmharness.stream import capture


def test_config_defaults_and_overrides(tmp_path):
    s = runconfig.merged(runconfig.parse_set_args(["samples=32", "probes=timer,spin"]))
    assert s["shutdown"] == "debug-exit" and s["timer_samples"] == "1024"
    assert s["samples"] == "32" and s["tsc_cal_windows"] == "3"
    text = runconfig.write(str(tmp_path / "c.cfg"), s)
    assert "probes = timer,spin\n" in text and "samples = 32\n" in text
    assert text.index("probes") < text.index("samples")  # KEYS order
    assert all(line.split(" = ")[0] in runconfig.KEYS for line in text.splitlines())


@pytest.mark.parametrize("bad", ["nosuchkey=1", "samples=ten", "probes=timer,bogus",
                                 "shutdown=off", "serial=com1", "samples", "wait_key=2"])
def test_config_rejects(bad):
    with pytest.raises(runconfig.ConfigError):
        runconfig.parse_set_args([bad])


def test_config_accepts_forms():
    ok = runconfig.parse_set_args(["serial=mmio:0xfe000000", "debug_exit_port=0xf4",
                                   "serial=io:0x2f8", "shutdown=acpi", "target_ns=0"])
    assert ok["serial"] == "io:0x2f8"


def test_decode_exit():
    assert qemu.decode_exit(1) == (0, "ok")
    assert qemu.decode_exit(3) == (1, "fail")
    assert qemu.decode_exit(5) == (2, "fatal")
    assert qemu.decode_exit(7)[0] is None and "unknown" in qemu.decode_exit(7)[1]
    assert qemu.decode_exit(0)[0] is None
    assert qemu.decode_exit(-15)[0] is None
    assert qemu.decode_exit(None, timed_out=True) == (None, "killed (timeout)")


def test_build_command():
    cmd = qemu.build_command("/r", mem=2048, smp=2, icount=True)
    line = " ".join(cmd)
    assert cmd[:7] == ["qemu-system-x86_64", "-machine", "q35", "-m", "2048", "-smp", "2"]
    for part in ("-nographic -no-reboot", "file=/usr/share/OVMF/OVMF_CODE_4M.fd",
                 "file=/r/OVMF_VARS_4M.fd", "-device qemu-xhci",
                 "if=none,id=stick,format=raw,file=/r/baremetric.img",
                 "usb-storage,drive=stick,bootindex=0", "isa-debug-exit,iobase=0xf4,iosize=0x04",
                 "-serial file:/r/serial.log", "-monitor none -display none -net none",
                 "-icount shift=0"):
        assert part in line
    fat = " ".join(qemu.build_command("/r", usb=False, cpu="max"))
    assert "fat:rw:/r/esp" in fat and "usb-storage" not in fat and "-cpu max" in fat


def test_icount_shift(tmp_path, monkeypatch):
    """--icount [SHIFT]: -icount shift=SHIFT, 0 when no shift is given; QEMU's 0..10 only."""
    assert "-icount shift=6" in " ".join(qemu.build_command("/r", icount=True, icount_shift=6))
    seen = []

    def fake_run(out_dir, **kw):
        seen.append((kw["icount"], kw["icount_shift"]))
        raise qemu.HarnessError("not booted")
    monkeypatch.setattr(qemu, "run_qemu", fake_run)
    for args in ([], ["--icount"], ["--icount", "6"]):
        cli.main(["qemu", "--out", str(tmp_path)] + args)
    assert seen == [(False, 0), (True, 0), (True, 6)]
    monkeypatch.undo()
    with pytest.raises(qemu.HarnessError) as e:
        qemu.run_qemu(str(tmp_path), icount=True, icount_shift=11)
    assert "0..10" in str(e.value)


def test_run_failed_reasons():
    base = {"exit_code": 1, "firmware_status": 0, "timed_out": False,
            "config": {"shutdown": "debug-exit"}}
    assert qemu.run_failed(base) == []
    assert qemu.run_failed(dict(base, exit_code=3, firmware_status=1, firmware_status_name="fail"))
    assert "timeout" in qemu.run_failed(dict(base, timed_out=True, firmware_status=None,
                                             timeout_s=5))[0]
    acpi = dict(base, exit_code=0, firmware_status=None, config={"shutdown": "acpi"})
    assert qemu.run_failed(acpi) == []


def test_missing_tools_hint(monkeypatch):
    monkeypatch.setattr(qemu.shutil, "which", lambda name: None)
    monkeypatch.setattr(qemu, "OVMF_CODE", "/nonexistent/OVMF_CODE_4M.fd")
    missing = qemu.missing_tools()
    assert qemu.apt_hint(missing) == "sudo apt-get install qemu-system-x86 ovmf mtools"
    with pytest.raises(qemu.HarnessError) as e:
        qemu.check_tools()
    assert "apt-get install" in str(e.value)


def test_cli_qemu_bad_setting(tmp_path, capsys):
    rc = cli.main(["qemu", "--out", str(tmp_path), "--set", "colour=blue"])
    assert rc == 2 and "unknown config key" in capsys.readouterr().err


class FakeSerial:
    """Returns the given chunks from read(), then nothing; counts reads after the data."""

    def __init__(self, chunks):
        self.chunks = list(chunks)
        self.closed = False

    def read(self, size):
        return self.chunks.pop(0) if self.chunks else b""

    def close(self):
        self.closed = True


def test_capture_stops_after_end(tmp_path):
    data = b"\x1b[2Jnoise\r\n" + synth.full_stream().data()
    chunks = [data[i:i + 500] for i in range(0, len(data), 500)]
    ser = FakeSerial(chunks)
    res = capture.capture("fake", str(tmp_path), timeout=10, grace=0.05, ser=ser)
    assert res["end_seen"] and not res["timed_out"] and ser.closed
    assert (tmp_path / "serial.log").read_bytes() == data
    assert os.path.exists(tmp_path / "capture.json")


def test_capture_timeout_keeps_data(tmp_path):
    data = synth.full_stream().data()[:1000]
    res = capture.capture("fake", str(tmp_path), timeout=0.2, ser=FakeSerial([data]))
    assert res["timed_out"] and not res["end_seen"] and res["bytes"] == 1000
    assert (tmp_path / "serial.log").read_bytes() == data


def test_capture_missing_port(tmp_path, capsys):
    with pytest.raises(capture.CaptureError):
        capture.capture("/dev/does-not-exist", str(tmp_path))
    rc = cli.main(["capture", "--port", "/dev/does-not-exist", "--out", str(tmp_path / "c")])
    assert rc == 2 and "does not exist" in capsys.readouterr().err


def test_capture_without_pyserial(tmp_path, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "serial", None)  # makes `import serial` fail
    with pytest.raises(capture.CaptureError) as e:
        capture.capture("/dev/ttyS0", str(tmp_path))
    assert "python3-serial" in str(e.value)


def test_cli_qemu_missing_image(tmp_path, capsys):
    rc = cli.main(["qemu", "--out", str(tmp_path / "q"), "--image", str(tmp_path / "none.img")])
    assert rc == 2
    err = capsys.readouterr().err
    assert "image not found" in err or "apt-get install" in err


def test_config_extra_lines(tmp_path):
    text = runconfig.write(str(tmp_path / "c.cfg"), runconfig.merged({"timer_samples": 64}),
                           extra="no_such_key = 1\ntsc_cal_windows = many")
    assert "timer_samples = 64\n" in text
    assert text.endswith("no_such_key = 1\ntsc_cal_windows = many\n")
