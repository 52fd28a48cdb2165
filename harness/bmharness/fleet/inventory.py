"""The fleet inventory: which machines to boot and how to reach their BMCs.

TOML (tomllib) -- an optional [defaults] table and one [[machine]] table per machine -- or CSV
with a header row naming the same fields:

  name           the machine's name in the table and its output folder (required, unique)
  bmc            the BMC's address, host or host:port (required; port default 623)
  user           the IPMI user (required)
  password_file  a file holding the password (ipmitool -f), or
  password_env   the name of an environment variable holding it (passed as IPMI_PASSWORD, -E)
  interface      ipmitool's interface: lanplus (default) or lan
  cipher         lanplus cipher suite id (ipmitool -C), optional
  boot_device    what `chassis bootdev` sets for the next boot: the stick or virtual media
                 (cdrom, floppy, disk, ...; default cdrom)
  timeout_s      seconds from power-on to the done line (default 1800)
  start_s        seconds from power-on to the firmware's first record (default 600)

Passwords never go into the inventory: it names where they are.
"""

import csv
import os
import re

try:
    import tomllib
except ImportError:  # Python < 3.11: TOML inventories need 3.11, CSV works everywhere
    tomllib = None

FIELDS = ("name", "bmc", "user", "password_file", "password_env", "interface", "cipher",
          "boot_device", "timeout_s", "start_s")
REQUIRED = ("name", "bmc", "user")
INTERFACES = ("lanplus", "lan")
# ipmitool chassis bootdev's devices (ipmitool(1))
BOOT_DEVICES = ("none", "pxe", "disk", "safe", "diag", "cdrom", "bios", "floppy")
DEFAULTS = {"interface": "lanplus", "boot_device": "cdrom", "timeout_s": 1800, "start_s": 600}
IPMI_PORT = 623
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")


class InventoryError(Exception):
    pass


class Machine:
    """One inventory entry, checked."""

    def __init__(self, d, where):
        unknown = sorted(set(d) - set(FIELDS))
        if unknown:
            raise InventoryError("%s: unknown field(s) %s (fields: %s)" % (
                where, ", ".join(unknown), ", ".join(FIELDS)))
        for k in REQUIRED:
            if not str(d.get(k) or "").strip():
                raise InventoryError("%s: no %s" % (where, k))
        self.name = str(d["name"]).strip()
        if not NAME_RE.fullmatch(self.name):
            raise InventoryError("%s: name %r: letters, digits, '.', '_', '-' only (it names a "
                                 "folder)" % (where, self.name))
        bmc = str(d["bmc"]).strip()
        host, port = bmc.rsplit(":", 1) if ":" in bmc else (bmc, "")
        self.host = host
        self.port = _int(port or IPMI_PORT, where, "bmc port", 1, 65535)
        self.user = str(d["user"]).strip()
        self.password_file = str(d.get("password_file") or "").strip() or None
        self.password_env = str(d.get("password_env") or "").strip() or None
        if bool(self.password_file) == bool(self.password_env):
            raise InventoryError("%s: give one of password_file and password_env" % where)
        if self.password_file and not os.access(self.password_file, os.R_OK):
            raise InventoryError("%s: password_file %s cannot be read" % (where,
                                                                          self.password_file))
        self.interface = str(d.get("interface") or DEFAULTS["interface"]).strip()
        if self.interface not in INTERFACES:
            raise InventoryError("%s: interface %r: one of %s" % (where, self.interface,
                                                                  ", ".join(INTERFACES)))
        self.cipher = str(d["cipher"]).strip() if str(d.get("cipher") or "").strip() else None
        self.boot_device = str(d.get("boot_device") or DEFAULTS["boot_device"]).strip()
        if self.boot_device not in BOOT_DEVICES:
            raise InventoryError("%s: boot_device %r: one of %s" % (
                where, self.boot_device, ", ".join(BOOT_DEVICES)))
        self.timeout_s = _int(d.get("timeout_s") or DEFAULTS["timeout_s"], where, "timeout_s",
                              1, 86400)
        self.start_s = _int(d.get("start_s") or DEFAULTS["start_s"], where, "start_s", 1, 86400)

    def __repr__(self):  # no secret to hide: the object holds only where the password is
        return "Machine(%s, %s:%d)" % (self.name, self.host, self.port)


def _int(v, where, what, lo, hi):
    try:
        x = int(str(v).strip())
    except ValueError:
        raise InventoryError("%s: %s %r is not a whole number" % (where, what, v))
    if not lo <= x <= hi:
        raise InventoryError("%s: %s %d not in %d..%d" % (where, what, x, lo, hi))
    return x


def _toml(path):
    if tomllib is None:
        raise InventoryError("%s: TOML needs Python 3.11 (tomllib); use CSV" % path)
    try:
        with open(path, "rb") as fh:
            doc = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise InventoryError("%s: not valid TOML: %s" % (path, exc))
    defaults = doc.get("defaults") or {}
    machines = doc.get("machine")
    if not isinstance(machines, list) or not machines:
        raise InventoryError("%s: no [[machine]] tables" % path)
    return [dict(defaults, **m) for m in machines]


def _csv(path):
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        raise InventoryError("%s: no machines (a header row, then one row per machine)" % path)
    return [{k.strip(): v for k, v in r.items() if k and v not in (None, "")} for r in rows]


def load(path):
    """[Machine] of an inventory file (.toml or .csv). Raises InventoryError."""
    try:
        entries = _csv(path) if path.lower().endswith(".csv") else _toml(path)
    except OSError as exc:
        raise InventoryError("%s: %s" % (path, exc.strerror or exc))
    out, seen = [], set()
    for i, d in enumerate(entries):
        m = Machine(d, "%s: machine %d (%s)" % (path, i + 1, d.get("name", "?")))
        if m.name in seen:
            raise InventoryError("%s: machine name %s twice" % (path, m.name))
        seen.add(m.name)
        out.append(m)
    return out
