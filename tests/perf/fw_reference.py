"""Reference decodings for the firmware-table corpus tests: what iasl's disassembly (linuxhw/ACPI's
`{HWID}` files) and dmidecode's text (linuxhw/DMI) say about every field the firmware's parsers
decode, as the "key value" lines tests/unit/fw_corpus.c prints. The selection rules (which
processor entries are kept, which MCFG segment, which SPCR interface types) are the ACPI, PCI
Firmware and DSP0134 specifications' and the firmware's documented policy (drivers/fw/*.h); the
values come from the reference decoder's text only, never from our parser's output.
Also: encode_smbios() turns dmidecode's decoded type 17 (and 1/2) structures back into an SMBIOS
table per DSP0134, for the corpus that has no raw dumps. Stdlib only."""
import re
import struct

FIELD = re.compile(r"^\[([0-9A-Fa-f]+)h\s+(\d+)\s+([0-9A-Fa-f]+h|\s*\d+)\]\s*(.*?)\s*:\s?(.*)$")
FLAG = re.compile(r"^\s+(\S.*?)\s*:\s*(\S+)\s*$")
SIG = re.compile(r'Signature : "(.{4})"')
MADT_MAX_CPUS = 256
MADT_MAX_IOAPICS = 8
MADT_MAX_ISOS = 16
ACPI_MAX_TABLES = 48
ACPI_MAX_MCFG_SEGMENTS = 16
SPCR_16550 = {0x00, 0x01, 0x12}
SPCR_PL011 = {0x03, 0x0D, 0x0E}
SPCR_BAUDS = {3: 9600, 4: 19200, 6: 57600, 7: 115200}
# MADT GIC entries (ACPI 6.5 5.2.12.14-17): types, the shortest length of each that is read
# (GICC: 76 since ACPI 6.0, the MPIDR at 68), GICC flags (table 5.37), MPIDR's affinity fields.
MADT_GICC, MADT_GICD, MADT_GICR = 0x0B, 0x0C, 0x0E
GICC_MIN_LEN, GICD_MIN_LEN, GICR_MIN_LEN = 76, 24, 16
GICC_ENABLED, GICC_ONLINE_CAPABLE = 1 << 0, 1 << 3
MPIDR_AFFINITY = 0xFF00FFFFFF
GIC_MAX_GICR_RANGES = 8


def _num(v):
    v = v.strip().split()[0] if v.strip() else ""
    try:
        return int(v, 16)
    except ValueError:
        return None


AML_HEADER = re.compile(r'^ \*\s+Signature\s+"(.{4})"')
AML_BLOCK = re.compile(r'DefinitionBlock \("[^"]*", "(.{4})"')


def split_tables(text):
    """The disassembly cut into (signature, lines) per table, in file order. A data table starts
    at its "[000h ...] Signature" line; an AML table (DSDT, SSDT) at its header comment (which
    holds iasl's checksum verdict), else at its DefinitionBlock line."""
    out, cur, aml_open = [], None, False
    for line in text.splitlines():
        m = SIG.search(line)
        h = AML_HEADER.match(line)
        b = AML_BLOCK.search(line)
        if m and line.startswith("[000h"):
            cur, aml_open = (m.group(1), []), False
            out.append(cur)
        elif h:
            cur, aml_open = (h.group(1), []), True
            out.append(cur)
        elif b:
            if not (aml_open and cur and cur[0] == b.group(1)):
                cur = (b.group(1), [])
                out.append(cur)
            aml_open = False
        if cur is not None:
            cur[1].append(line)
    return out


def checksum_bad(lines):
    """iasl's verdict: 'Incorrect checksum' on the header's Checksum line."""
    return any("Incorrect checksum" in l and "Checksum" in l for l in lines[:40])


def fields(lines):
    """Flat list of (offset, name, value); a GAS's members named 'Parent.Member'; decoded flag
    lines (no offset) as (None, name, value)."""
    res, gas_left, gas_name = [], 0, ""
    for line in lines:
        m = FIELD.match(line)
        if m:
            off, name, val = int(m.group(1), 16), m.group(4).strip(), m.group(5).strip()
            if gas_left:
                res.append((off, gas_name + "." + name, val))
                gas_left -= 1
                continue
            if val.startswith("[Generic Address Structure]"):
                gas_name, gas_left = name, 5
            res.append((off, name, val))
            continue
        f = FLAG.match(line)
        if f and not line.startswith("["):
            res.append((None, f.group(1), f.group(2)))
    return res


def first(fl, name):
    for off, n, v in fl:
        if n == name:
            return v
    return None


def _fadt(fl, lines_dsdt, out):
    length = _num(first(fl, "Table Length") or "0") or 0
    out["fadt.present"] = "1"
    if length < 116:
        return

    def block(name32, gas):
        v = _num(first(fl, name32) or "0") or 0
        if v == 0 and first(fl, gas + ".Space ID") is not None and _num(first(fl, gas + ".Space ID")) == 1:
            v = _num(first(fl, gas + ".Address")) or 0
        return v if v <= 0xFFFF else 0

    out["fadt.pm_tmr"] = "0x%x" % block("PM Timer Block Address", "PM Timer Block")
    out["fadt.pm_tmr_32bit"] = first(fl, "32-bit PM Timer (V1)") or "0"
    out["fadt.pm1a_cnt"] = "0x%x" % block("PM1A Control Block Address", "PM1A Control Block")
    out["fadt.pm1b_cnt"] = "0x%x" % ((_num(first(fl, "PM1B Control Block Address") or "0") or 0) & 0xFFFF)
    port = value = 0
    if (first(fl, "Reset Register Supported (V2)") == "1" and length >= 129
            and _num(first(fl, "Reset Register.Space ID") or "ff") == 1):
        port = (_num(first(fl, "Reset Register.Address")) or 0) & 0xFFFF
        value = _num(first(fl, "Value to cause reset") or "0") or 0
    out["fadt.reset_port"] = "0x%x" % port
    out["fadt.reset_value"] = "0x%x" % value
    s5 = find_s5(lines_dsdt) if lines_dsdt is not None else None
    out["fadt.s5"] = "1" if s5 else "0"
    if s5:
        out["fadt.s5_typ"] = "%d %d" % s5


S5_NAME = re.compile(r"Name \(\\?_S5_?, Package \(")


def _aml_small(tok):
    """A package element the firmware reads as SLP_TYP: Zero, One or a byte constant."""
    tok = tok.strip().rstrip(",").strip()
    if tok == "Zero":
        return 0
    if tok == "One":
        return 1
    if re.fullmatch(r"0x[0-9A-Fa-f]{2}", tok):
        return int(tok, 16)
    return None


def find_s5(lines):
    """SLP_TYPa/b of the first Name(_S5, Package) whose first element is a small constant."""
    for i, line in enumerate(lines):
        if not S5_NAME.search(line):
            continue
        text = re.sub(r"//[^\n]*|/\*.*?\*/", "", "\n".join(lines[i:i + 40]), flags=re.S)
        if "{" not in text:
            continue
        body = text.split("{", 1)[1].split("}", 1)[0]
        toks = [t for t in re.split(r"[,\s]+", body) if t]
        if not toks:
            continue
        a = _aml_small(toks[0])
        if a is None:
            continue
        b = _aml_small(toks[1]) if len(toks) > 1 else None
        return (a, b if b is not None else 0)
    return None


def _madt(lines, out):
    fl = fields(lines)
    out["madt.valid"] = "1"
    lapic = _num(first(fl, "Local Apic Address") or "0") or 0
    pcat = first(fl, "PC-AT Compatibility") or "0"
    subs, cur = [], None
    for off, n, v in fl:
        if n == "Subtable Type":
            cur = {"type": _num(v), "_list": []}
            subs.append(cur)
        elif cur is not None:
            cur["_list"].append((n, v))  # every field in order: a GICR entry has two "Length"s
            if n not in cur:
                cur[n] = v
    cpus, en, oc, unus, dup, drop = [], 0, 0, 0, 0, 0
    ioapics, isos, dropped_io = [], [], 0
    gicc = 0
    for s in subs:
        t = s["type"]
        if t in (0, 9):
            if t == 0:
                cid, uid, fl_ = _num(s.get("Local Apic ID", "0")), _num(s.get("Processor ID", "0")), _num(s.get("Flags (decoded below)", "0"))
            else:
                cid, uid, fl_ = _num(s.get("Processor x2Apic ID", "0")), _num(s.get("Processor UID", "0")), _num(s.get("Flags (decoded below)", "0"))
            if not fl_ & 3:
                unus += 1
            elif any(c[1] == cid for c in cpus):
                dup += 1
            elif len(cpus) >= MADT_MAX_CPUS:
                drop += 1
            else:
                cpus.append(("x2apic" if t == 9 else "lapic", cid, uid, fl_))
                if fl_ & 1:
                    en += 1
                else:
                    oc += 1
        elif t == 1:
            if len(ioapics) < MADT_MAX_IOAPICS:
                ioapics.append((_num(s.get("I/O Apic ID", "0")), _num(s.get("Address", "0")), _num(s.get("Interrupt", "0"))))
            else:
                dropped_io += 1
        elif t == 2:
            if len(isos) < MADT_MAX_ISOS:
                isos.append((_num(s.get("Bus", "0")), _num(s.get("Source", "0")), _num(s.get("Interrupt", "0")),
                             _num(s.get("Flags (decoded below)", "0"))))
            else:
                dropped_io += 1
        elif t == 5:
            lapic = _num(s.get("APIC Address", "0"))
        elif t == 0x0B:
            gicc += 1
    out["madt.lapic_base"] = "0x%x" % lapic
    out["madt.pcat"] = pcat
    out["madt.cpus"] = str(len(cpus))
    out["madt.enabled"] = str(en)
    out["madt.online_capable"] = str(oc)
    out["madt.unusable"] = str(unus)
    out["madt.duplicates"] = str(dup)
    out["madt.dropped"] = str(drop)
    for i, (k, cid, uid, f) in enumerate(cpus):
        out["madt.cpu.%d" % i] = "%s 0x%x uid %d flags %d" % (k, cid, uid, f)
    out["madt.ioapics"] = str(len(ioapics))
    for i, (a, b, c) in enumerate(ioapics):
        out["madt.ioapic.%d" % i] = "id %d addr 0x%x gsi %d" % (a, b, c)
    out["madt.isos"] = str(len(isos))
    for i, (a, b, c, d) in enumerate(isos):
        out["madt.iso.%d" % i] = "bus %d irq %d gsi %d flags 0x%x" % (a, b, c, d)
    out["madt.dropped_io"] = str(dropped_io)
    if any(sub["type"] in (MADT_GICC, MADT_GICD) for sub in subs):
        _gic(subs, out, MADT_MAX_CPUS - len(cpus))


def _gic(subs, out, room):
    """The MADT's GIC entries (ACPI 6.5 5.2.12.14 GICC, .15 GICD, .17 GICR) as the firmware's
    documented policy keeps them (drivers/fw/aarch64/madt_gicc.h, drivers/irqchip/aarch64/gicv3.h):
    a GICC processor is usable when Enabled (flags 1) or, not enabled, Online Capable (flags 2),
    one per affinity (MPIDR Aff3..Aff0); the first enabled one is taken as the boot CPU."""
    kept, counts = [], {"enabled": 0, "online_capable": 0, "unusable": 0, "duplicates": 0,
                        "dropped": 0, "malformed": 0}
    gicc_entries = gicc_gicr = 0
    gicd, gicr = None, []
    for sub in subs:
        length = _num(sub.get("Length", "0")) or 0
        if sub["type"] == MADT_GICC:
            if length < GICC_MIN_LEN:
                counts["malformed"] += 1
                continue
            gicc_entries += 1
            flags = _num(sub.get("Flags (decoded below)", "0")) or 0
            rd = _num(sub.get("Redistributor Base Address", "0")) or 0
            if flags & GICC_ENABLED and rd:
                gicc_gicr += 1
            mpidr = (_num(sub.get("ARM MPIDR", "0")) or 0) & MPIDR_AFFINITY
            usable = 1 if flags & GICC_ENABLED else 2 if flags & GICC_ONLINE_CAPABLE else 0
            if not usable:
                counts["unusable"] += 1
            elif any(k[0] == mpidr for k in kept):
                counts["duplicates"] += 1
            elif len(kept) >= room:
                counts["dropped"] += 1
            else:
                kept.append((mpidr, _num(sub.get("Processor UID", "0")) or 0, usable, rd,
                             _num(sub.get("Performance Interrupt", "0")) or 0))
                counts["enabled" if usable == 1 else "online_capable"] += 1
        elif sub["type"] == MADT_GICD and length >= GICD_MIN_LEN:
            gicd = (_num(sub.get("Base Address", "0")) or 0, _num(sub.get("Version", "0")) or 0)
        elif sub["type"] == MADT_GICR and length >= GICR_MIN_LEN:
            lens = [v for n, v in sub["_list"] if n == "Length"]  # the entry's, then the range's
            gicr.append((_num(sub.get("Base Address", "0")) or 0, _num(lens[1]) if len(lens) > 1 else 0))
    out["gic.gicc_cpus"] = str(len(kept))
    for k, v in counts.items():
        out["gic." + k] = str(v)
    for i, (mpidr, uid, usable, _rd, _pmu) in enumerate(kept):
        out["gic.cpu.%d" % i] = "mpidr 0x%x uid %d flags %d" % (mpidr, uid, usable)
    if gicd is None:
        return
    out["gic.gicd"] = "0x%x" % gicd[0]
    out["gic.version"] = str(gicd[1])
    out["gic.gicc_entries"] = str(gicc_entries)
    out["gic.gicc_gicr_entries"] = str(gicc_gicr)
    out["gic.gicr_ranges"] = str(len(gicr))
    for i, (base, size) in enumerate(gicr[:GIC_MAX_GICR_RANGES]):
        out["gic.gicr.%d" % i] = "base 0x%x len 0x%x" % (base, size)
    boot = next((k for k in kept if k[2] == 1), None)
    if boot:
        out["gic.boot_gicr"] = "0x%x" % boot[3]
        out["gic.boot_pmu_gsiv"] = str(boot[4])


def _hpet(fl, out):
    space = _num(first(fl, "Timer Block Register.Space ID") or "ff")
    base = _num(first(fl, "Timer Block Register.Address") or "0") or 0
    ok = space == 0 and base != 0
    out["hpet.present"] = "1" if ok else "0"
    if ok:
        out["hpet.base"] = "0x%x" % base


def _mcfg(fl, out, seen):
    """seen: the distinct allocations of the MCFG tables before this one (kept across tables)."""
    segs, cur = [], None
    for off, n, v in fl:
        if n == "Base Address":
            cur = {"base": _num(v)}
            segs.append(cur)
        elif cur is not None and n in ("Segment Group Number", "Start Bus Number", "End Bus Number"):
            cur[n] = _num(v)
    for s in segs:  # segment 0's first allocation with an address, as drivers/fw/acpi.h documents
        if s.get("Segment Group Number") == 0 and s["base"] and out.get("mcfg.seg0") != "1":
            out["mcfg.seg0"] = "1"
            out["mcfg.seg0.base"] = "0x%x" % s["base"]
            out["mcfg.seg0.buses"] = "%d %d" % (s.get("Start Bus Number", 0), s.get("End Bus Number", 0))
    for s in segs:
        t = (s["base"], s.get("Segment Group Number", 0), s.get("Start Bus Number", 0), s.get("End Bus Number", 0))
        if t not in [(x["base"], x.get("Segment Group Number", 0), x.get("Start Bus Number", 0),
                      x.get("End Bus Number", 0)) for x in seen]:
            seen.append(s)
    segs = seen
    out["mcfg.segments"] = str(len(segs))
    for i, s in enumerate(segs[:ACPI_MAX_MCFG_SEGMENTS]):
        out["mcfg.%d" % i] = "base 0x%x seg %d buses %d %d" % (
            s["base"], s.get("Segment Group Number", 0), s.get("Start Bus Number", 0), s.get("End Bus Number", 0))


def _spcr(fl, out):
    iface = _num(first(fl, "Interface Type") or "ff")
    space = _num(first(fl, "Serial Port Register.Space ID") or "ff")
    base = _num(first(fl, "Serial Port Register.Address") or "0") or 0
    rev = _num(first(fl, "Revision") or "0") or 0
    u16550 = iface in SPCR_16550 and base != 0 and space in (0, 1)
    pl011 = iface in SPCR_PL011 and base != 0 and space == 0
    out["spcr.uart16550"] = "1" if u16550 else "0"
    out["spcr.pl011"] = "1" if pl011 else "0"
    if u16550 or pl011:
        baud = SPCR_BAUDS.get(_num(first(fl, "Baud Rate") or "0"), 0)
        precise = _num(first(fl, "Precise Baud Rate") or "0") or 0
        if rev >= 4 and precise:
            baud = precise
        out["spcr.interface"] = "0x%x" % iface
        out["spcr.space"] = str(space)
        out["spcr.base"] = "0x%x" % base
        out["spcr.baud"] = str(baud)
        out["spcr.bit_width"] = str(_num(first(fl, "Serial Port Register.Bit Width")))
        out["spcr.access"] = str(_num(first(fl, "Serial Port Register.Encoded Access Width")))


DUMP_WARNING = re.compile(r"Incorrect checksum in table \[(.{4})\]")


def acpi_reference(text, dump_text=""):
    """(key -> value, signatures in file order) from one machine's iasl disassembly (and its
    acpidump text, for AML tables' checksum warnings). Tables are taken in file order, each one
    overwriting the fields of an earlier one of its signature, as the firmware walks the XSDT
    (MCFG allocations accumulate, distinct ones once)."""
    tables = split_tables(text)
    out = {"acpi.present": "1"}
    sigs = [s for s, _ in tables]
    xsdt = [s for s in sigs if s not in ("DSDT", "FACS", "RSDP", "XSDT", "RSDT")]
    listed = xsdt[:ACPI_MAX_TABLES]
    bad = 0
    for s, lines in tables:
        if s in ("DSDT", "FACS", "RSDP", "XSDT", "RSDT"):
            continue
        if checksum_bad(lines):
            bad += 1
    # AML tables' disassembly carries no checksum verdict in these files: acpidump's own warning
    # lines (ACPICA's table check, in the {HWID}.bin text) name them.
    warned = [w for w in DUMP_WARNING.findall(dump_text) if w not in ("DSDT", "FACS")]
    out["acpi.bad_checksums"] = str(max(bad, len(warned)))
    for s in ("DMAR", "IVRS", "IORT"):
        out["acpi." + s.lower()] = "1" if s in listed else "0"
    dsdt = next((l for s, l in tables if s == "DSDT"), None)
    out["fadt.present"] = "0"
    out["hpet.present"] = "0"
    out["mcfg.seg0"] = "0"
    out["mcfg.segments"] = "0"
    out["spcr.uart16550"] = "0"
    out["spcr.pl011"] = "0"
    out["madt.valid"] = "0"
    mcfg_seen = []
    for s, lines in tables:
        if checksum_bad(lines):
            continue  # the firmware skips it
        fl = fields(lines)
        if s == "FACP":
            _fadt(fl, dsdt, out)
        elif s == "HPET":
            _hpet(fl, out)
        elif s == "MCFG":
            _mcfg(fl, out, mcfg_seen)
        elif s == "SPCR":
            _spcr(fl, out)
        elif s == "APIC":
            _madt(lines, out)
    return out, sigs
