"""The harness's per-architecture QEMU command lines (bmharness.qemu.ARCHES): x86_64 keeps q35 +
OVMF + isa-debug-exit, aarch64 gets virt with GICv3, -cpu max, AAVMF and no exit device."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "harness"))

from bmharness import qemu  # noqa: E402


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
    assert "usb-storage,drive=stick" in cmd  # booted as a USB stick, like x86_64
    assert qemu.build_command("/r", arch="aarch64", cpu="cortex-a72")[
        cmd.index("-cpu") + 1] == "cortex-a72"


def test_aarch64_tools_named():
    missing = dict((pkg, what) for what, pkg in qemu.missing_tools(qemu="/nonexistent/qemu",
                                                                   arch="aarch64"))
    assert "qemu-system-arm" in missing


def test_unknown_arch_refused():
    with pytest.raises(qemu.HarnessError):
        qemu.build_command("/r", arch="riscv64")
