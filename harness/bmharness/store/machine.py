"""Machine identity and run identity for the results store.

A machine is what the run's `plat` records say about the hardware and what booted it; its id is
a hash of those fields, so two boots of one machine get one id and a different CPU model, a
microcode or firmware update, other memory or another OS kernel (hosted runs) make another.
The fields, from summary.json's `platform` (docs/protocol.md):

- arch and env (`begin`): bare metal and hosted runs of one box are different machines;
- CPU (`plat kind=cpu`): vendor, family, model, stepping, brand, microcode (`ucode`; `unreadable`
  where the firmware cannot read it, AArch64 and hosted) and the hypervisor signature (a virtual
  machine is not its host);
- firmware (`plat kind=firmware`: vendor, rev, UEFI and SMBIOS versions) or, hosted, the OS
  (`plat kind=os`: sysname, release);
- memory devices (`plat kind=memdev`, SMBIOS type 17): locator, size, type, speed, configured
  speed, manufacturer and part of every populated device;
- SMBIOS system (type 1) and board (type 2) and a hash of the SMBIOS serial: `plat kind=system`
  and `kind=board` (manufacturer, product, version, serial_hash; hosted from /sys/class/dmi/id).
  The firmware sends the serial only as a SHA-256 prefix (serial_hash, "none" for an empty or
  placeholder serial); a record with the serial itself (older logs of other tools) is hashed
  here the same way. Absent (present=0) or unreadable: null, and MISSING names it.

A run's key is a hash of what the boot measured (its begin record and every set's raw
statistics), so the same run is found again whether it comes from a parse directory, its serial
log or the boot stick, and whichever harness version parsed it.
"""

import hashlib
import json

MISSING = ("system (SMBIOS type 1)", "board (SMBIOS type 2)", "SMBIOS serial")
SYSTEM_KINDS, BOARD_KINDS = ("system", "smbios_system"), ("board", "baseboard", "smbios_board")
ID_LEN = 12  # hex digits of a machine id: short to type, ample for a lab's machines


def _first(x):
    return (x[0] if x else None) if isinstance(x, list) else x


def _plat(summary, *kinds):
    plat = summary.get("platform") or {}
    return next((_first(plat[k]) for k in kinds if plat.get(k)), None) or {}


def _smbios_part(rec):
    keys = ("manufacturer", "vendor", "product", "version")
    got = {k: str(rec[k]) for k in keys if rec.get(k) not in (None, "", "none")}  # "2", not 2
    return got or None


def _serial_hash(system, board):
    """The firmware's serial_hash (system first, then board), else a hash of a serial given."""
    for rec in (system, board):
        h = rec.get("serial_hash")
        if h not in (None, "", "none"):
            return str(h)
    return serial_hash(system.get("serial") or board.get("serial"))


def serial_hash(serial):
    """A SHA-256 prefix of an SMBIOS serial, or None for none / a placeholder."""
    if serial in (None, "", "none", "0", "Not Specified", "To Be Filled By O.E.M."):
        return None
    return hashlib.sha256(str(serial).encode("utf-8")).hexdigest()[:16]


def _memory(summary):
    keys = ("locator", "size", "type", "speed", "conf_speed", "manufacturer", "part")
    devs = [d for d in (summary.get("platform") or {}).get("memdev") or []
            if isinstance(d, dict) and (d.get("size") or d.get("size_unknown"))]
    return sorted("/".join(str(d.get(k, "")) for k in keys) for d in devs)


def identity(summary):
    """The identity fields of the machine a summary was measured on (module docstring)."""
    begin = summary.get("begin") or {}
    cpu, fw, osr = _plat(summary, "cpu"), _plat(summary, "firmware"), _plat(summary, "os")
    system, board = _plat(summary, *SYSTEM_KINDS), _plat(summary, *BOARD_KINDS)
    firmware = " ".join(str(fw[k]) for k in ("vendor", "rev", "uefi", "smbios") if fw.get(k))
    os_text = " ".join(str(osr[k]) for k in ("sysname", "release") if osr.get(k))
    if not firmware and begin.get("fw_vendor"):
        firmware = " ".join(str(begin[k]) for k in ("fw_vendor", "fw_rev") if begin.get(k))
    return {
        "arch": begin.get("arch"), "env": begin.get("env"),
        "cpu_vendor": cpu.get("vendor"), "cpu_family": cpu.get("family"),
        "cpu_model": cpu.get("model"), "cpu_stepping": cpu.get("stepping"),
        "cpu_brand": cpu.get("brand"), "microcode": cpu.get("ucode"),
        "hypervisor": cpu.get("hv_sig"),
        "firmware": firmware or None, "os": os_text or None,
        "memory": _memory(summary),
        "system": _smbios_part(system), "board": _smbios_part(board),
        "serial_hash": _serial_hash(system, board),
    }


def _digest(obj):
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()


def machine_id(ident):
    return _digest(ident)[:ID_LEN]


def label(ident):
    """A short human name: brand (vendor family/model/stepping), env arch."""
    fms = "/".join(str(ident.get(k)) for k in ("cpu_family", "cpu_model", "cpu_stepping"))
    return "%s (%s %s) %s %s" % (ident.get("cpu_brand") or "cpu ?", ident.get("cpu_vendor") or "?",
                                 fms, ident.get("env") or "?", ident.get("arch") or "?")


def missing(ident):
    """The identity fields this machine's records did not carry."""
    names = {"system": MISSING[0], "board": MISSING[1], "serial_hash": MISSING[2]}
    out = [names[k] for k in ("system", "board", "serial_hash") if not ident.get(k)]
    out += [k for k in ("cpu_vendor", "cpu_model", "microcode") if ident.get(k) in (None, "")]
    if not ident.get("memory"):
        out.append("memory devices")
    return out


def run_key(summary):
    """The content hash naming one boot (module docstring)."""
    sets = [(s.get("set"), s.get("name"), s.get("received"),
             {k: ((s.get("stats") or {}).get("raw") or {}).get(k)
              for k in ("n", "min", "max", "mean", "median")})
            for s in summary.get("sets") or []]
    # the end record without its log line number: a serial log has console lines a stick lacks
    end = {k: v for k, v in (summary.get("end") or {}).items() if k != "line"}
    return _digest({"begin": summary.get("begin"), "end": end, "sets": sets})
