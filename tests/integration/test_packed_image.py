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
import efi_files
from efi_files import lz_pack

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "build", "x86_64")
EFI, PLAIN, SO, PACKED = (os.path.join(OUT, n) for n in
                          ("baremetric.efi", "baremetric-plain.efi", "baremetric.so", "packed.bin"))
DAMAGED = b"baremetric: the packed image is damaged"
# OVMF's boot manager on the image's EFI_LOAD_ERROR, before it goes on to its next option
REFUSED = b": Load Error"
BOOT_TIMEOUT_S = 90

ELF_ENTRY_AT = 24


def need(path):
    """path, failing the test when the build has not made it."""
    if not os.path.exists(path):
        pytest.fail("%s is missing: run `make` (make integration does)" % path)
    return path


def read(path):
    with open(need(path), "rb") as fh:
        return fh.read()


def unpacked():
    header, block = lz_pack.read_packed(need(PACKED))
    assert (header["magic"], header["version"], header["header_bytes"]) == (
        lz_pack.PACKED_MAGIC, lz_pack.PACKED_VERSION, lz_pack.PACKED_HEADER_BYTES)
    assert len(block) == header["packed_bytes"]
    image = lz4.block.decompress(block, uncompressed_size=header["image_bytes"])
    assert len(image) == header["image_bytes"] and zlib.crc32(image) == header["image_crc32"]
    return image, header["memory_bytes"], header["entry"]


def test_block_is_the_plain_image():
    image, memory, entry = unpacked()
    plain = efi_files.sections(need(PLAIN))
    assert any(x.name == ".text" for x in plain)
    for x in plain:
        assert image[x.va:x.va + len(x.data)] == x.data, "%s at 0x%x differs from the plain .efi's" % (x.name, x.va)
    assert memory % 4096 == 0 and memory >= len(image)
    assert entry == struct.unpack_from("<Q", read(SO), ELF_ENTRY_AT)[0]


def test_packed_efi_is_the_one_built():
    """baremetric.efi carries packed.bin whole (a stale link would carry an older image)."""
    assert read(PACKED) in read(EFI)


def test_damaged_image_is_refused(tmp_path):
    efi = bytearray(read(EFI))
    packed = read(PACKED)
    at = bytes(efi).index(packed) + lz_pack.PACKED_HEADER_BYTES + len(packed) // 3
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
