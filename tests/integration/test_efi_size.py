"""The size of the built firmware, build/x86_64/baremetric.efi (`make` builds it; make integration
builds it first), against its budget (README, "Image size"): the file stays under 288 KiB, carries
no symbol table and no .dynsym, its relocations are the packed .relr table, and no single static
buffer in baremetric.so is large enough to matter (gnu-efi's linker script keeps .bss in the file,
so such buffers belong in memory allocated at run time). A failure prints the section sizes."""

import os
import struct
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EFI = os.path.join(ROOT, "build", "x86_64", "baremetric.efi")
SO = os.path.join(ROOT, "build", "x86_64", "baremetric.so")

# 200 KiB until the boot stick's path came (xHCI, USB mass storage, FAT reader, log writer,
# efi/save_*.c: 40 KB of .o text and data at -Os, 35 KB of .efi); 256 KiB then; 288 KiB since issue
# 30-32's additions (the stick found across hubs and LUNs, PCI translation and IOMMUs, the USB
# timeouts and recovery, unattended runs, the prim probe: 246,295 -> 267,287 bytes). The 200 KiB goal
# of issue 29 is not met (docs/hacking.md, "Image size").
EFI_MAX_BYTES = 288 * 1024
STATIC_OBJECT_MAX_BYTES = 8 * 1024  # the largest today: 6.5 KiB (a counter plan, bench/probes/irq/x86_64/context.c)

PE_OFFSET_FIELD = 0x3C
COFF_HEADER = "<HHIIIHH"  # Machine, NumberOfSections, TimeDateStamp, PointerToSymbolTable,
#                           NumberOfSymbols, SizeOfOptionalHeader, Characteristics
SECTION_HEADER = "<8sIIII"  # Name, VirtualSize, VirtualAddress, SizeOfRawData, PointerToRawData
SECTION_HEADER_BYTES = 40


def read_pe(path):
    """(COFF header fields, [(name, virtual size, raw size)]) of a PE file."""
    with open(path, "rb") as fh:
        data = fh.read()
    assert data[:2] == b"MZ", "not a PE file: %s" % path
    pe = struct.unpack_from("<I", data, PE_OFFSET_FIELD)[0]
    assert data[pe:pe + 4] == b"PE\0\0"
    coff = struct.unpack_from(COFF_HEADER, data, pe + 4)
    table = pe + 4 + struct.calcsize(COFF_HEADER) + coff[5]
    sections = []
    for i in range(coff[1]):
        name, vsize, _va, raw, _ptr = struct.unpack_from(SECTION_HEADER, data, table + i * SECTION_HEADER_BYTES)
        sections.append((name.rstrip(b"\0").decode(), vsize, raw))
    return coff, sections


def describe(path, sections):
    rows = ["%-10s %8d bytes in the file" % (name, raw) for name, _vsize, raw in sections]
    return "%s: %d bytes\n%s" % (path, os.path.getsize(path), "\n".join(rows))


@pytest.fixture(scope="module")
def efi():
    if not os.path.exists(EFI):
        pytest.fail("%s is missing: run `make` (make integration does)" % EFI)
    return read_pe(EFI)


def test_efi_within_budget(efi):
    _coff, sections = efi
    size = os.path.getsize(EFI)
    assert size <= EFI_MAX_BYTES, "the .efi grew past %d bytes (README, Image size)\n%s" % (
        EFI_MAX_BYTES, describe(EFI, sections))


def test_efi_carries_only_what_the_loader_uses(efi):
    coff, sections = efi
    names = [name for name, _vsize, _raw in sections]
    # (PointerToSymbolTable may be set all the same: the string table behind it holds the long
    # section name .note.gnu.build-id)
    assert coff[4] == 0, "%d COFF symbols in the .efi (objcopy without --strip-all?)" % coff[4]
    assert ".dynsym" not in names and ".dynstr" not in names, describe(EFI, sections)
    assert ".relr" in names, "no packed relocations (.relr): linked without -z pack-relative-relocs?"
    # everything RELR can pack is packed: what is left in .rela, if anything, is small
    assert all(raw <= 512 for name, _vsize, raw in sections if name == ".rela"), describe(EFI, sections)


def test_no_large_static_buffer():
    """Objects in .data/.bss of baremetric.so (both end up in the file) stay small: large buffers
    are reserved at run time (traps_provide_memory, the AP stacks, pool memory in efi/)."""
    if not os.path.exists(SO):
        pytest.fail("%s is missing: run `make` (make integration does)" % SO)
    out = subprocess.run(["nm", "-S", "--size-sort", SO], capture_output=True, text=True, check=True).stdout
    large = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "bBdD" and int(fields[1], 16) > STATIC_OBJECT_MAX_BYTES:
            large.append("%s %d bytes" % (fields[3], int(fields[1], 16)))
    assert not large, "static buffers over %d bytes (allocate them at run time): %s" % (
        STATIC_OBJECT_MAX_BYTES, ", ".join(large))
