#!/usr/bin/python3
"""The chassis of a simulated machine: the program OpenIPMI's ipmi_sim runs for chassis control
(lan.conf `chassis_control`, OpenIPMI lanserv/extcmd.c's protocol), so that `ipmitool chassis
power ...` and `chassis bootdev ...` reach a QEMU guest.

    chassis.py MACHINE_DIR get power|boot ...    prints `name:value` lines
    chassis.py MACHINE_DIR set power "1" boot "cdrom" ...

MACHINE_DIR holds qemu.json ({"argv": QEMU's arguments without the boot stick, "stick": the
arguments that attach it, "stick_boot": the boot device that selects it}), and this program
keeps there `boot` (the device last set), `qemu.pid` and `powerons` (one line per power-on, with
the boot device it used). Power on starts QEMU detached (its own session, output to qemu.out);
the stick is attached only when the boot device set through IPMI is the one named, so a fleet run
that did not set it boots nothing. Power off sends SIGTERM, then SIGKILL after 5 s.
"""

import json
import os
import signal
import subprocess
import sys
import time

KILL_WAIT_S = 5


def _path(d, name):
    return os.path.join(d, name)


def _pid(d):
    try:
        with open(_path(d, "qemu.pid")) as fh:
            pid = int(fh.read().strip())
    except (OSError, ValueError):
        return None
    try:
        # a QEMU that exited but was not reaped yet (a zombie) is off
        with open("/proc/%d/stat" % pid) as fh:
            if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                return None
    except OSError:
        return None
    return pid


def _boot(d):
    try:
        with open(_path(d, "boot")) as fh:
            return fh.read().strip()
    except OSError:
        return "default"


def power_on(d):
    if _pid(d):
        return
    with open(_path(d, "qemu.json")) as fh:
        conf = json.load(fh)
    boot = _boot(d)
    argv = list(conf["argv"]) + (list(conf["stick"]) if boot == conf["stick_boot"] else [])
    with open(_path(d, "powerons"), "a") as fh:
        fh.write("%s %s\n" % (time.strftime("%H:%M:%S"), boot))
    out = open(_path(d, "qemu.out"), "ab")
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                            start_new_session=True, cwd=d)
    with open(_path(d, "qemu.pid"), "w") as fh:
        fh.write(str(proc.pid))


def power_off(d):
    pid = _pid(d)
    if not pid:
        return
    os.kill(pid, signal.SIGTERM)
    # a frozen machine (the fleet test's SIGSTOP) takes its SIGTERM only once continued
    os.kill(pid, signal.SIGCONT)
    end = time.monotonic() + KILL_WAIT_S
    while time.monotonic() < end and _pid(d):
        time.sleep(0.1)
    if _pid(d):
        os.kill(pid, signal.SIGKILL)


def main(argv):
    d, verb, args = argv[1], argv[2], argv[3:]
    if verb == "get":
        for name in args:
            if name == "power":
                print("power:%d" % (1 if _pid(d) else 0))
            elif name == "boot":
                print("boot:%s" % _boot(d))
            else:
                return 1
        return 0
    if verb == "set":
        pairs = dict(zip(args[0::2], (a.strip('"') for a in args[1::2])))
        if "boot" in pairs:
            with open(_path(d, "boot"), "w") as fh:
                fh.write(pairs["boot"])
        if "power" in pairs:
            (power_on if pairs["power"] == "1" else power_off)(d)
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
