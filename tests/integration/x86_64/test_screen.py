"""The end-of-run screen for a USB-stick user without a serial cable: the summary is drawn on the
framebuffer, held for hold_s seconds, and a key press powers off at once."""

import os
import socket
import subprocess
import time

from bmharness.run import qemu
from conftest import IMAGE

HOLD_S = 60


def monitor(sock_path, command, timeout=10):
    """Send one HMP command to QEMU's monitor socket."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sock_path)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    with s:
        s.settimeout(timeout)
        s.recv(4096)  # banner
        s.sendall(command.encode() + b"\n")
        time.sleep(0.5)


def read_ppm(path):
    with open(path, "rb") as fh:
        data = fh.read()
    magic, dims, maxval, pixels = data.split(b"\n", 3)
    assert magic == b"P6"
    width, height = map(int, dims.split())
    return width, height, pixels


def test_summary_on_screen_then_key_powers_off(tmp_path):
    out = str(tmp_path)
    qemu.prepare(out, image=IMAGE, settings={"probes": "timer", "timer_samples": 64, "hold_s": HOLD_S})
    sock = os.path.join(out, "mon.sock")
    cmd = qemu.build_command(out) + ["-monitor", "unix:%s,server,nowait" % sock]
    serial = os.path.join(out, "serial.log")
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = start + 90
        while time.monotonic() < deadline:
            if os.path.exists(serial) and b" end records=" in open(serial, "rb").read():
                break
            assert proc.poll() is None, "QEMU exited before the end record"
            time.sleep(0.5)
        else:
            raise AssertionError("no end record within 90 s")
        time.sleep(1.5)  # the summary is drawn right after the end record
        shot = os.path.join(out, "screen.ppm")
        monitor(sock, "screendump %s" % shot)
        width, height, pixels = read_ppm(shot)
        # The title line is drawn in green when the run is ok; OVMF's own console never is.
        top = pixels[:width * 3 * 32]
        green = sum(1 for i in range(0, len(top) - 2, 3)
                    if top[i + 1] > 150 and top[i] < 100 and top[i + 2] < 100)
        assert green > 200, "no green status line at the top: the summary was not drawn"
        assert proc.poll() is None, "the machine powered off before hold_s ran out"
        monitor(sock, "sendkey a")
        proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert time.monotonic() - start < HOLD_S, "the key did not end the hold"
    assert proc.returncode == 1  # isa-debug-exit, status ok
