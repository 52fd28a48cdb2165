"""Running another QEMU binary (`--qemu PATH --qemu-datadir DIR`, e.g. QEMU 10 from
scripts/qemu10.sh) and the apic_mode setting, without booting anything."""

import pytest

from bmharness import cli
from bmharness.run import qemu, runconfig


def test_build_command_other_qemu():
    cmd = qemu.build_command("/r", smp=2, cpu="max", qemu="/q/usr/bin/qemu-system-x86_64",
                             qemu_datadir="/q/usr/share/qemu")
    # the binary first, its data directory (-L) before any device needs a ROM from it
    assert cmd[:3] == ["/q/usr/bin/qemu-system-x86_64", "-L", "/q/usr/share/qemu"]
    assert cmd[3:9] == ["-machine", "q35", "-m", "1024", "-smp", "2"]
    assert "-cpu max" in " ".join(cmd)
    default = qemu.build_command("/r")
    assert default[0] == qemu.QEMU and "-L" not in default


def test_missing_other_qemu_named(monkeypatch):
    monkeypatch.setattr(qemu.shutil, "which", lambda name: None if name.startswith("/nope") else name)
    missing = qemu.missing_tools(need_mtools=False, qemu="/nope/qemu-system-x86_64")
    assert ("/nope/qemu-system-x86_64", "qemu-system-x86") in missing


def test_cli_passes_qemu_through(tmp_path, monkeypatch):
    seen = {}

    def fake_run_qemu(out_dir, **kw):
        seen.update(kw)
        raise qemu.HarnessError("stop here")

    monkeypatch.setattr(qemu, "run_qemu", fake_run_qemu)
    rc = cli.main(["qemu", "--out", str(tmp_path), "--qemu", "/q/bin/qemu-system-x86_64",
                   "--qemu-datadir", "/q/share/qemu", "--set", "apic_mode=x2apic"])
    assert rc == 2
    assert seen["qemu"] == "/q/bin/qemu-system-x86_64" and seen["qemu_datadir"] == "/q/share/qemu"
    assert seen["settings"]["apic_mode"] == "x2apic"


def test_missing_datadir_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(qemu, "check_tools", lambda need_mtools=True, qemu=None, arch="x86_64": None)
    with pytest.raises(qemu.HarnessError) as e:
        qemu.run_qemu(str(tmp_path), qemu_datadir=str(tmp_path / "nope"))
    assert "data directory not found" in str(e.value)


@pytest.mark.parametrize("value", ["auto", "xapic", "x2apic"])
def test_apic_mode_values(value):
    assert runconfig.parse_set_args(["apic_mode=" + value])["apic_mode"] == value


def test_apic_mode_rejects():
    with pytest.raises(runconfig.ConfigError):
        runconfig.parse_set_args(["apic_mode=x2APIC"])
