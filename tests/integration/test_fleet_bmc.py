"""`baremetric fleet run` against real BMC software: four simulated machines, each an OpenIPMI
ipmi_sim (Debian openipmi) on a loopback port driving QEMU (tests/integration/bmc_sim/: power and
boot device through ipmi_sim's chassis control, QEMU's ipmi-bmc-extern on ipmi_sim's VM
interface, the guest serial port as ipmi_sim's SOL), reached with Debian's ipmitool.

  good    the default CPU, the smallest probe set (`timer`, 64 samples): done, stored
  intel   the same with -cpu Skylake-Client: done, stored as another machine
  broken  a stick whose BOOTX64.EFI is junk: OVMF never starts the firmware -> failed
  hang    a 10-minute noise window after `timer`, its QEMU frozen (SIGSTOP) once `noise` has
          begun: a machine gone silent, which costs the host no CPU while the fleet waits out its
          bound -> failed, timeout at probe 2/2

Asserted: every final state and reason, each machine powered on once from the boot device the
inventory named (set by `chassis bootdev`), the good runs stored (and only they), every SOL log
byte-equal to QEMU's own copy of the serial output (for a machine still running, a prefix of it),
plain lines without control sequences when the output is not a terminal, and the password in no
process's arguments and no output."""

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "bmc_sim"))
import sim  # noqa: E402
from bmharness.run import qemu  # noqa: E402
from bmharness.store import db, ops  # noqa: E402
import boot_pool  # noqa: E402
from conftest import background_result  # noqa: E402

IMAGE = os.path.join(ROOT, "build", "x86_64", "baremetric.img")
# configs.py's smallest x86 probe set; save=off: the fleet stores the SOL capture, the stick's
# copy is the SAVE boots' subject (it costs a short TCG boot ~1.5 s)
QUICK = {"probes": "timer", "timer_samples": 64, "save": "off"}
START_S = 120       # power-on to the first record: a loaded machine's OVMF start fits well within
# The two failures wait out their bounds, so these cost the test its time (they were 120 s and
# 150 s: 158 s of make test's wall, a core spinning in `noise` all along). A good machine here
# reaches its done line in 10-30 s beside make test's boot pool; these are 1.5x and 2x that
# (the hang was 90 s, 3x: the spinning core cost make test 30 s more).
BROKEN_START_S = 45   # the junk boot file never gives a record: any bound shows it
HANG_TIMEOUT_S = 60   # 2x the slowest good machine seen beside make test's boot pool (30 s)
# The hanging machine is frozen once its console has shown the timer's probe record and then
# nothing for HANG_QUIET_S (the timer's records are out, `noise` runs silent): spinning in `noise`
# for the whole bound cost make test ~55 CPU-s.
HANG_FREEZE_AT = b"probe name=timer"
HANG_QUIET_S = 2
HANG_FREEZE_WAIT_S = START_S
GOOD_TIMEOUT_S = 300
# Runs argv[1:] with SIGINT at its default (exec keeps an ignored signal ignored).
SIGINT_DEFAULT = [sys.executable, "-c", "import os, signal, sys; "
                  "signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"]

pytestmark = pytest.mark.skipif(bool(sim.missing_tools()) or not os.path.exists(IMAGE),
                                reason="needs %s and %s" % (
                                    " ".join(sim.missing_tools()) or "ipmi_sim, ipmitool",
                                    "build/x86_64/baremetric.img (make image)"))


def _machine(tmp, name, settings, cpu=None, image=IMAGE):
    d = str(tmp / name)
    qemu.prepare(d, image=image, settings=settings)
    argv = qemu.build_command(d, cpu=cpu)
    return sim.SimMachine(d, name, argv)


def _broken_image(tmp):
    img = str(tmp / "broken.img")
    shutil.copyfile(IMAGE, img)
    junk = tmp / "junk.efi"
    junk.write_bytes(b"MZ not a PE image\n" * 64)
    subprocess.run(["mcopy", "-o", "-i", img + qemu.ESP_OFFSET, str(junk),
                    "::/EFI/BOOT/BOOTX64.EFI"], check=True,
                   env=dict(os.environ, MTOOLS_SKIP_CHECK="1"))
    return img


def _argv_watch(stop, seen):
    """Every process's arguments, sampled through the run: the password must be in none."""
    while not stop.is_set():
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    with open("/proc/%s/cmdline" % pid, "rb") as fh:
                        cmd = fh.read()
                except OSError:
                    continue
                if b"ipmitool" in cmd:
                    seen.append(cmd)
        time.sleep(0.2)


def _toml(rows):
    out = []
    for r in rows:
        out.append("[[machine]]")
        out += ['%s = %s' % (k, json.dumps(v)) for k, v in r.items()]
        out.append("")
    return "\n".join(out)


def _freeze_when(machine, text, stop, frozen):
    """SIGSTOP the machine's QEMU once its serial log shows text and has then been quiet for
    HANG_QUIET_S (chassis.py's power-off sends SIGCONT after SIGTERM, so the fleet's power-off
    still ends it)."""
    log, end = os.path.join(machine.dir, "serial.log"), time.monotonic() + HANG_FREEZE_WAIT_S
    size, quiet_since = -1, None
    while not stop.is_set() and time.monotonic() < end:
        try:
            with open(log, "rb") as fh:
                data = fh.read()
        except OSError:
            data = b""
        if text in data:
            if len(data) != size:
                size, quiet_since = len(data), time.monotonic()
            elif time.monotonic() - quiet_since >= HANG_QUIET_S:
                pid = machine.qemu_pid()
                if pid:
                    os.kill(pid, signal.SIGSTOP)
                    frozen.append(pid)
                return
        time.sleep(0.2)


# The fleet run waits out its failures' bounds (~65 s, a few CPU-s): it starts with the session, in a
# thread beside the boot pool, while the other tests run (boot_pool.background).
@boot_pool.background("fleet")
def run_fleet(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fleet")
    machines = {
        "good": _machine(tmp, "good", QUICK),
        "intel": _machine(tmp, "intel", QUICK, cpu="Skylake-Client"),
        "broken": _machine(tmp, "broken", QUICK, image=_broken_image(tmp)),
        "hang": _machine(tmp, "hang", dict(QUICK, probes="timer,noise", noise_ms=600000)),
    }
    rows = [m.inventory_row(start_s=BROKEN_START_S if n == "broken" else START_S,
                            timeout_s=HANG_TIMEOUT_S if n == "hang" else GOOD_TIMEOUT_S)
            for n, m in machines.items()]
    inv = tmp / "fleet.toml"
    inv.write_text(_toml(rows))
    dbp, out = str(tmp / "store.sqlite"), str(tmp / "out")
    stop, seen, frozen = threading.Event(), [], []
    watcher = threading.Thread(target=_argv_watch, args=(stop, seen), daemon=True)
    freezer = threading.Thread(target=_freeze_when, args=(machines["hang"], HANG_FREEZE_AT, stop, frozen),
                               daemon=True)
    try:
        for m in machines.values():
            m.start()
        watcher.start()
        freezer.start()
        proc = subprocess.run([os.path.join(ROOT, "harness", "baremetric"), "fleet", "run",
                               str(inv), "--out", out, "--db", dbp, "--workers", "4"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=900)
    finally:
        stop.set()
        for m in machines.values():
            m.stop()
    with open(os.path.join(out, "fleet.json")) as fh:
        res = {r["name"]: r for r in json.load(fh)["machines"]}
    return {"machines": machines, "proc": proc, "res": res, "db": dbp, "out": out,
            "argv_seen": seen, "inv": str(inv), "frozen": frozen}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    return background_result("fleet", tmp_path_factory)


def test_states(fleet):
    res, proc = fleet["res"], fleet["proc"]
    text = proc.stdout.decode()
    assert proc.returncode == 1, text + proc.stderr.decode()  # two machines failed
    assert res["good"]["state"] == res["intel"]["state"] == "done", res
    assert res["good"]["status"] == res["intel"]["status"] == "ok"
    assert res["broken"]["state"] == "failed"
    assert "no firmware record in %d s" % BROKEN_START_S in res["broken"]["reason"]
    assert res["hang"]["state"] == "failed"
    assert fleet["frozen"], "the hanging machine never showed %r" % HANG_FREEZE_AT
    assert res["hang"]["reason"] == "timeout after %d s at probe 2/2 (noise)" % HANG_TIMEOUT_S
    # the live table, as plain lines (stdout is not a terminal): each machine waited, booted
    # and ended; the hanging one was seen at its second probe
    assert "\x1b" not in text
    for name in fleet["machines"]:
        assert " %s: booting" % name in text
    assert " hang: probe 2/2 (noise)" in text
    assert "fleet: 2 done, 2 failed" in text


def test_boot_device_set_through_ipmi(fleet):
    """Each machine powered on once, from the device the inventory named (chassis.py attaches
    the stick only for it): `chassis bootdev` reached the BMC before the power-on."""
    for m in fleet["machines"].values():
        assert m.powerons() == [sim.STICK_BOOT], m.name


def test_good_runs_stored(fleet):
    conn = db.connect(fleet["db"], create=False)
    ms = ops.machines(conn)
    assert len(ms) == 2 and sum(len(m["runs"]) for m in ms) == 2
    vendors = sorted(m["identity"]["cpu_vendor"] for m in ms)
    assert vendors == ["AuthenticAMD", "GenuineIntel"]  # qemu64 and Skylake-Client
    ids = {fleet["res"][n]["machine_id"] for n in ("good", "intel")}
    assert ids == {m["machine_id"] for m in ms}
    conn.close()


def test_sol_logs_equal_qemu_serial(fleet):
    for name, m in fleet["machines"].items():
        with open(os.path.join(fleet["out"], name, "sol.log"), "rb") as fh:
            sol = fh.read()
        with open(os.path.join(m.dir, "serial.log"), "rb") as fh:
            serial = fh.read()
        assert sol, name
        if fleet["res"][name]["state"] == "done":
            assert sol == serial, name
        else:  # the machine ran on after the capture stopped: what was captured came first
            assert serial.startswith(sol), name


def test_secrets_nowhere(fleet):
    pw = sim.PASSWORD.encode()
    assert fleet["argv_seen"], "no ipmitool process was sampled"
    assert not [c for c in fleet["argv_seen"] if pw in c]
    assert pw not in fleet["proc"].stdout + fleet["proc"].stderr
    with open(os.path.join(fleet["out"], "fleet.json"), "rb") as fh:
        assert pw not in fh.read()


def _sol_payload_status(m):
    """Get Payload Activation Status for SOL (IPMI 2.0 24.4: netfn app 0x06, cmd 0x4a, payload
    type 1): ipmi_sim answers `01 00 00` (one instance, none active) or `01 01 00`."""
    out = subprocess.run(["ipmitool", "-I", "lanplus", "-C", "3", "-H", "127.0.0.1", "-p",
                          str(m.lan_port), "-U", sim.USER, "-f", m.password_file, "raw", "0x06",
                          "0x4a", "0x01"], stdout=subprocess.PIPE, timeout=30, check=True)
    return out.stdout.decode().split()


def test_ctrl_c_leaves_sol_deactivated(tmp_path):
    """SIGINT (Ctrl-C) while a machine is running: the fleet stops, marks it interrupted and
    deactivates its SOL session; the BMC then has no SOL session active, as before the run."""
    m = _machine(tmp_path, "stuck", dict(QUICK, probes="timer,noise", noise_ms=600000))
    inv = tmp_path / "fleet.csv"
    row = m.inventory_row(start_s=START_S, timeout_s=GOOD_TIMEOUT_S)
    inv.write_text(",".join(row) + "\n" + ",".join(str(v) for v in row.values()) + "\n")
    out = str(tmp_path / "out")
    try:
        m.start()
        assert _sol_payload_status(m) == ["01", "00", "00"]  # as found
        # A shell's background job (`make test &`) inherits SIGINT ignored, and so would the
        # fleet: Python then raises no KeyboardInterrupt and the run goes on to its time-out.
        # SIGINT_DEFAULT gives the fleet SIGINT as a terminal's Ctrl-C finds it.
        proc = subprocess.Popen(SIGINT_DEFAULT + [os.path.join(ROOT, "harness", "baremetric"),
                                                  "fleet", "run", str(inv), "--out", out,
                                                  "--no-store"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        seen, t0 = b"", time.monotonic()
        while b"stuck: probe 2/2" not in seen and time.monotonic() - t0 < START_S + 60:
            seen += proc.stdout.readline()
        assert b"stuck: probe 2/2" in seen, seen
        assert _sol_payload_status(m) == ["01", "01", "00"]  # the fleet's session
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=60)
        text = (seen + rest).decode()
        assert proc.returncode == 1, text + err.decode()
        assert "stuck: failed: interrupted (SOL deactivated)" in text
        assert "(interrupted)" in text
        assert _sol_payload_status(m) == ["01", "00", "00"]
    finally:
        m.stop()
