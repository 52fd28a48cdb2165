"""Simulated machines with BMCs for the fleet test: per machine one OpenIPMI ipmi_sim (Debian
openipmi; its LAN channel on a loopback UDP port, its SOL on the machine's serial port) and QEMU
started and stopped by it through chassis.py (lan.conf `chassis_control`), with QEMU's
ipmi-bmc-extern device connected to ipmi_sim's VM serial interface (QEMU docs: the external BMC
pairing) and an isa-ipmi-kcs interface for the guest.

The guest's serial port is a telnet server socket that ipmi_sim's `sol "telnet:..."` connects
to, with `wait=on` (QEMU starts the guest only once the BMC is connected: no console byte is lost
before SOL) and `logfile=` (QEMU's own copy of every byte the guest wrote: serial.log, what the
test compares the SOL capture with).
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import chassis  # the same folder: chassis.py keeps the running QEMU's process id

HERE = os.path.dirname(os.path.abspath(__file__))
CHASSIS = os.path.join(HERE, "chassis.py")
USER, PASSWORD = "fleet", "sim-pw-1"
STICK_BOOT = "cdrom"   # the boot device (ipmi_sim's name) that attaches the stick: virtual media

EMU = """mc_setbmc 0x20
mc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02 persist_sdr
sel_enable 0x20 1000 0x0a
mc_enable 0x20
"""


def free_port(kind=socket.SOCK_STREAM):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def missing_tools():
    return [t for t in ("ipmi_sim", "ipmitool") if not shutil.which(t)]


def _qemu_argv(argv, d, sol_port, vm_port):
    """build_command's QEMU arguments, split into (without the stick, the stick's), with the
    serial port on SOL's socket and the external BMC attached."""
    base, stick, i = [], [], 0
    while i < len(argv):
        a, nxt = argv[i], argv[i + 1] if i + 1 < len(argv) else ""
        if a == "-drive" and "id=stick" in nxt or a == "-device" and "drive=stick" in nxt:
            stick += [a, nxt]
            i += 2
        elif a == "-serial":
            base += ["-chardev", "socket,id=ser0,host=127.0.0.1,port=%d,server=on,wait=on,"
                     "telnet=on,logfile=%s" % (sol_port, os.path.join(d, "serial.log")),
                     "-serial", "chardev:ser0"]
            i += 2
        else:
            base.append(a)
            i += 1
    base += ["-chardev", "socket,id=ipmi0,host=127.0.0.1,port=%d,reconnect=1" % vm_port,
             "-device", "ipmi-bmc-extern,id=bmc0,chardev=ipmi0",
             "-device", "isa-ipmi-kcs,bmc=bmc0"]
    return base, stick


class SimMachine:
    """One machine: its folder, ports, ipmi_sim process."""

    def __init__(self, d, name, qemu_argv):
        self.dir, self.name = d, name
        self.lan_port = free_port(socket.SOCK_DGRAM)
        self.vm_port, self.sol_port = free_port(), free_port()
        base, stick = _qemu_argv(qemu_argv, d, self.sol_port, self.vm_port)
        with open(os.path.join(d, "qemu.json"), "w") as fh:
            json.dump({"argv": base, "stick": stick, "stick_boot": STICK_BOOT}, fh)
        self.password_file = os.path.join(d, "bmc.pw")
        with open(self.password_file, "w") as fh:
            fh.write(PASSWORD)
        os.chmod(self.password_file, 0o600)
        with open(os.path.join(d, "lan.conf"), "w") as fh:
            fh.write(self._lan_conf())
        with open(os.path.join(d, "sim.emu"), "w") as fh:
            fh.write(EMU)
        os.makedirs(os.path.join(d, "state"), exist_ok=True)
        self.proc = None

    def _lan_conf(self):
        auths = "none md2 md5 straight"
        return "\n".join([
            'name "%s"' % self.name, "set_working_mc 0x20", "  startlan 1",
            "    addr 127.0.0.1 %d" % self.lan_port, "    priv_limit admin",
            "    allowed_auths_callback %s" % auths, "    allowed_auths_user %s" % auths,
            "    allowed_auths_operator %s" % auths, "    allowed_auths_admin %s" % auths,
            "    guid a123456789abcdefa123456789abcdef", "  endlan",
            "  serial 15 127.0.0.1 %d codec VM" % self.vm_port,
            '  chassis_control "%s %s %s"' % (sys.executable, CHASSIS, self.dir),
            '  sol "telnet:127.0.0.1:%d" 115200' % self.sol_port,
            '  user 2 true "%s" "%s" admin 10 %s' % (USER, PASSWORD, auths), ""])

    def start(self):
        log = open(os.path.join(self.dir, "ipmi_sim.out"), "wb")
        self.proc = subprocess.Popen(
            ["ipmi_sim", "-c", "lan.conf", "-f", "sim.emu", "-s", "state", "-n"], cwd=self.dir,
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        time.sleep(0.5)

    def inventory_row(self, boot_device=STICK_BOOT, **kw):
        row = {"name": self.name, "bmc": "127.0.0.1:%d" % self.lan_port, "user": USER,
               "password_file": self.password_file, "interface": "lanplus", "cipher": "3",
               "boot_device": boot_device}
        row.update(kw)
        return row

    def qemu_pid(self):
        """The running QEMU's process id, or None when it is off (chassis.py's own reading)."""
        return chassis._pid(self.dir)

    def powerons(self):
        try:
            with open(os.path.join(self.dir, "powerons")) as fh:
                return [ln.split()[1] for ln in fh if ln.strip()]
        except OSError:
            return []

    def stop(self):
        """Power the guest off (chassis.py) and end ipmi_sim."""
        subprocess.run([sys.executable, CHASSIS, self.dir, "set", "power", "0"], timeout=30)
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
