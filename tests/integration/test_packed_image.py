"""The packed x86_64 .efi (docs/hacking.md, "Image size"; scripts/lz_pack.py, efi/unpack/): its
block decodes, with liblz4 as the reference, to the very bytes objcopy puts in the plain .efi's
sections at their addresses, the header's entry point is the ELF's, and a damaged packed image is
refused under OVMF with a line that says so and an error the boot manager reports before it goes on
to its next option, instead of running a broken image. That every boot of the suite runs the packed image
whole is the rest of its test."""

import os
import shutil
import struct
import zlib

import lz4.block
import pytest

from bmharness.run import qemu

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "build", "x86_64")
EFI, PLAIN, SO, PACKED = (os.path.join(OUT, n) for n in
                          ("baremetric.efi", "baremetric-plain.efi", "baremetric.so", "packed.bin"))
# efi/unpack/packed_image.h
HEADER = "<4sHHIIIIII"
HEADER_BYTES = 32
DAMAGED = b"baremetric: the packed image is damaged"
# OVMF's boot manager on the image's EFI_LOAD_ERROR, before it goes on to its next option
REFUSED = b": Load Error"
BOOT_TIMEOUT_S = 90

PE_OFFSET_FIELD = 0x3C
COFF_HEADER = "<HHIIIHH"
SECTION_HEADER = "<8sIIII"  # Name, VirtualSize, VirtualAddress, SizeOfRawData, PointerToRawData
SECTION_HEADER_BYTES = 40
ELF_ENTRY_AT = 24


def need(path):
    if not os.path.exists(path):
        pytest.fail("%s is missing: run `make` (make integration does)" % path)
    with open(path, "rb") as fh:
        return fh.read()


def pe_sections(data):
    """[(name, virtual address, bytes in the file)] of a PE file."""
    pe = struct.unpack_from("<I", data, PE_OFFSET_FIELD)[0]
    coff = struct.unpack_from(COFF_HEADER, data, pe + 4)
    table = pe + 4 + struct.calcsize(COFF_HEADER) + coff[5]
    out = []
    for i in range(coff[1]):
        name, vsize, va, raw, ptr = struct.unpack_from(SECTION_HEADER, data, table + i * SECTION_HEADER_BYTES)
        out.append((name.rstrip(b"\0").decode(), va, data[ptr:ptr + min(raw, vsize)]))
    return out


def unpacked():
    packed = need(PACKED)
    magic, version, hbytes, pbytes, ibytes, mbytes, entry, crc, _ = struct.unpack_from(HEADER, packed)
    assert (magic, version, hbytes) == (b"BMPK", 1, HEADER_BYTES)
    assert len(packed) == HEADER_BYTES + pbytes
    image = lz4.block.decompress(packed[HEADER_BYTES:], uncompressed_size=ibytes)
    assert len(image) == ibytes and zlib.crc32(image) == crc
    return image, mbytes, entry


def test_block_is_the_plain_image():
    image, memory, entry = unpacked()
    plain = pe_sections(need(PLAIN))
    assert any(name == ".text" for name, _va, _b in plain)
    for name, va, body in plain:
        assert image[va:va + len(body)] == body, "%s at 0x%x differs from the plain .efi's" % (name, va)
    assert memory % 4096 == 0 and memory >= len(image)
    assert entry == struct.unpack_from("<Q", need(SO), ELF_ENTRY_AT)[0]


def test_packed_efi_is_the_one_built():
    """baremetric.efi carries packed.bin whole (a stale link would carry an older image)."""
    assert need(PACKED) in need(EFI)


def test_damaged_image_is_refused(tmp_path):
    efi = bytearray(need(EFI))
    packed = need(PACKED)
    at = bytes(efi).index(packed) + HEADER_BYTES + len(packed) // 3
    efi[at:at + 8] = bytes(b ^ 0x5A for b in efi[at:at + 8])
    damaged = tmp_path / "damaged.efi"
    damaged.write_bytes(efi)
    run = qemu.run_qemu(str(tmp_path / "boot"), usb=False, efi=str(damaged), settings={"save": "off"},
                        timeout=BOOT_TIMEOUT_S, stop_after=(REFUSED.decode(), 0.5))
    with open(run["serial_log"], "rb") as fh:
        log = fh.read()
    assert DAMAGED in log, log[-2000:]
    assert b"@BM" not in log, "records from a damaged image"
    assert run["stopped_after"] and REFUSED in log[log.index(DAMAGED):], (
        "the boot manager did not see the image fail: %s" % run["firmware_status_name"])
    shutil.rmtree(tmp_path / "boot", ignore_errors=True)
