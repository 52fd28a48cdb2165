"""SMBIOS reference for the corpus tests, from dmidecode's text (linuxhw/DMI has no raw dumps):
the values dmidecode printed for every Memory Device (type 17), the DRAM peak computed from them
by the firmware's documented rule (drivers/fw/smbios.h), and an SMBIOS table re-encoded from
those values per DSP0134 (each structure as long as dmidecode says it was, each field at its
DSP0134 offset, sizes and speeds in the encoding the spec prescribes for their value) in
dmidecode --dump-bin layout, so `dmidecode --from-dump` reads it back. Stdlib only."""
import re
import struct

# DSP0134 7.18.2 Memory Device Type, by dmidecode's names.
MEM_TYPES = {
    "Other": 0x01, "Unknown": 0x02, "DRAM": 0x03, "EDRAM": 0x04, "VRAM": 0x05, "SRAM": 0x06,
    "RAM": 0x07, "ROM": 0x08, "Flash": 0x09, "EEPROM": 0x0A, "FEPROM": 0x0B, "EPROM": 0x0C,
    "CDRAM": 0x0D, "3DRAM": 0x0E, "SDRAM": 0x0F, "SGRAM": 0x10, "RDRAM": 0x11, "DDR": 0x12,
    "DDR2": 0x13, "DDR2 FB-DIMM": 0x14, "DDR3": 0x18, "FBD2": 0x19, "DDR4": 0x1A, "LPDDR": 0x1B,
    "LPDDR2": 0x1C, "LPDDR3": 0x1D, "LPDDR4": 0x1E, "Logical non-volatile device": 0x1F,
    "HBM": 0x20, "HBM2": 0x21, "DDR5": 0x22, "LPDDR5": 0x23, "HBM3": 0x24,
}
UNITS = {"bytes": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}
HEADER = re.compile(r"^Handle 0x([0-9A-Fa-f]{4}), DMI type (\d+), (\d+) bytes")
NOT_GIVEN = ("Not Specified", "<BAD INDEX>", "")
STR_MAX = 31
EP_LEN = 0x18
TABLE_AT = 0x20
SPEED_MAX = 0xFFFF
MIB = 1 << 20


def parse(text):
    """(version (major, minor) or None, [ (handle, type, length, {field: value}) ])."""
    ver, structs, cur = None, [], None
    for line in text.splitlines():
        m = re.match(r"SMBIOS (\d+)\.(\d+)(?:\.\d+)? present", line)
        if m:
            ver = (int(m.group(1)), int(m.group(2)))
        h = HEADER.match(line)
        if h:
            cur = (int(h.group(1), 16), int(h.group(2)), int(h.group(3)), {})
            structs.append(cur)
            continue
        if cur is not None and line.startswith("\t") and not line.startswith("\t\t") and ":" in line:
            k, _, v = line[1:].partition(":")
            cur[3].setdefault(k.strip(), v[1:] if v.startswith(" ") else v)
    return ver, structs


def _size(v):
    """bytes, or 'unknown', or 0 (no module)."""
    if v is None or v.startswith("No Module") or v.startswith("Not Installed"):
        return 0
    if v.strip() == "Unknown":
        return "unknown"
    m = re.match(r"(\d+) (bytes|kB|MB|GB|TB)", v)
    return int(m.group(1)) * UNITS[m.group(2)] if m else None


def _speed(v):
    if v is None or v.strip() in ("Unknown", "None"):
        return 0
    m = re.match(r"(\d+) (MT/s|MHz)", v)
    return int(m.group(1)) if m else None


def _width(v):
    if v is None or v.strip() == "Unknown":
        return 0
    m = re.match(r"(\d+) bits", v)
    return int(m.group(1)) if m else None


def _str(v):
    if v is None:
        return None
    v = v.rstrip("\n")
    return None if v.strip() in NOT_GIVEN else v


def _clean(s):
    """What the firmware keeps of a string: 31 bytes, trailing blanks removed."""
    if s is None:
        return ""
    b = s.encode("ascii", "replace")[:STR_MAX]
    return b.rstrip(b" ").decode()


def encode_memdev(handle, length, f, strings):
    """One type 17 structure of `length` bytes from dmidecode's fields, or (None, why)."""
    body = bytearray(max(length, 4))
    body[0], body[1] = 17, length
    struct.pack_into("<H", body, 2, handle)

    def putw(off, val, size=2):
        if off + size <= length:
            struct.pack_into("<H" if size == 2 else "<I", body, off, val)

    def puts(off, s):
        if off < length and s is not None:
            strings.append(s.encode("ascii", "replace"))
            body[off] = len(strings)

    tw, dw = _width(f.get("Total Width")), _width(f.get("Data Width"))
    if tw is None or dw is None:
        return None, "width not understood"
    putw(0x08, tw or 0xFFFF)
    putw(0x0A, dw or 0xFFFF)
    size = _size(f.get("Size"))
    if size is None:
        return None, "size %r not understood" % f.get("Size")
    if size == "unknown":
        putw(0x0C, 0xFFFF)
    elif size and (size % MIB or size < MIB):
        putw(0x0C, 0x8000 | (size >> 10))
    elif size and size // MIB < 0x7FFF:
        putw(0x0C, size // MIB)
    elif size:
        putw(0x0C, 0x7FFF)
        putw(0x1C, size // MIB, 4)
    puts(0x10, _str(f.get("Locator")))
    puts(0x11, _str(f.get("Bank Locator")))
    t = f.get("Type")
    if t is not None and 0x12 < length:
        if t.strip() not in MEM_TYPES:
            return None, "type %r not in DSP0134's table" % t
        body[0x12] = MEM_TYPES[t.strip()]
    for off, ext, key in ((0x15, 0x54, "Speed"), (0x20, 0x58, "Configured Memory Speed")):
        v = f.get(key, f.get("Configured Clock Speed") if key.startswith("Configured") else None)
        sp = _speed(v)
        if sp is None:
            return None, "%s %r not understood" % (key, v)
        if sp >= SPEED_MAX:
            putw(off, SPEED_MAX)
            putw(ext, sp, 4)
        else:
            putw(off, sp)
    puts(0x17, _str(f.get("Manufacturer")))
    puts(0x1A, _str(f.get("Part Number")))
    return body, None


def reference_and_dump(text):
    """(reference dict, dump bytes, None) or (None, None, why)."""
    ver, structs = parse(text)
    if ver is None:
        return None, None, "no 'SMBIOS x.y present' line"
    table, ref, peak, populated, missing, n = bytearray(), {}, 0, 0, 0, 0
    for handle, typ, length, f in structs:
        if typ != 17:
            continue
        strings = []
        body, why = encode_memdev(handle, length, f, strings)
        if body is None:
            return None, None, why
        table += body + (b"\0".join(strings) + b"\0\0" if strings else b"\0\0")
        n += 1
        h = "mem.%04x" % handle
        size = _size(f.get("Size"))
        ref[h + ".size"] = "unknown 0" if size == "unknown" else str(size)
        t = f.get("Type")
        ref[h + ".type"] = str(MEM_TYPES.get(t.strip(), 0) if t is not None and length > 0x12 else 0)
        sp = _speed(f.get("Speed")) if length >= 0x17 else 0
        cs = f.get("Configured Memory Speed", f.get("Configured Clock Speed"))
        cs = _speed(cs) if length >= 0x22 else 0
        ref[h + ".speed"] = str(min(sp, SPEED_MAX))
        ref[h + ".conf_speed"] = str(min(cs, SPEED_MAX))
        dw = _width(f.get("Data Width")) if length >= 0x0C else 0
        tw = _width(f.get("Total Width")) if length >= 0x0A else 0
        ref[h + ".width"] = "%d %d" % (dw, tw)
        ref[h + ".locator"] = "%s|%s" % (_clean(_str(f.get("Locator"))), _clean(_str(f.get("Bank Locator"))))
        ref[h + ".part"] = "%s|%s" % (_clean(_str(f.get("Manufacturer"))) if length > 0x17 else "",
                                      _clean(_str(f.get("Part Number"))) if length > 0x1A else "")
        if size:
            populated += 1
            mts = min(cs, SPEED_MAX) or min(sp, SPEED_MAX)
            if not mts or not dw:
                missing += 1
            else:
                peak += mts * dw // 8
    table += bytes([127, 4, 0xFF, 0xFE, 0, 0])
    ref["smbios.version"] = "%d.%d" % ver
    ref["smbios.memdevs"] = str(n)
    ref["smbios.peak"] = "unknown" if (not populated or missing) else str(peak)
    ep = bytearray(TABLE_AT)
    ep[0:5] = b"_SM3_"
    ep[6], ep[7], ep[8], ep[0x0A] = EP_LEN, ver[0], ver[1], 1
    struct.pack_into("<I", ep, 0x0C, len(table))
    struct.pack_into("<Q", ep, 0x10, TABLE_AT)
    ep[5] = (0x100 - sum(ep[:EP_LEN])) & 0xFF
    return ref, bytes(ep + table), None
