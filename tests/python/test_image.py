"""The USB image (scripts/mkimage.sh) against the GPT and FAT specifications: the partition starts
and ends on 1 MiB boundaries clear of the backup GPT, the FAT32 file system is exactly as large as
its partition (it must not run over the backup GPT), the BPB's hidden-sectors field is the
partition's start LBA, `sgdisk -v` and `fsck.fat -n` find nothing wrong, and the boot file is
there. The script runs on a small stand-in .efi (no firmware build needed); the real image from
`make image` is checked the same way by tests/integration/test_image_layout.py (make integration
builds it first)."""

import os
import shutil
import struct
import subprocess
import zlib

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MKIMAGE = os.path.join(REPO, "scripts", "mkimage.sh")
SECTOR = 512
MIB_SECTORS = 2048
GPT_BACKUP_SECTORS = 33
ESP_GUID = "C12A7328-F81F-11D2-BA4B-00A0C93EC93B"


def _need(tool):
    if shutil.which(tool) is None:
        pytest.fail("%s is missing: scripts/deps.sh image installs it (make test does)" % tool)


def _guid(raw):
    a, b, c = struct.unpack_from("<IHH", raw, 0)
    return "%08X-%04X-%04X-%s-%s" % (a, b, c, raw[8:10].hex().upper(), raw[10:16].hex().upper())


def gpt_partitions(img):
    """Primary GPT header (LBA 1) checked by its CRC; the used entries as (first, last, type)."""
    with open(img, "rb") as fh:
        fh.seek(SECTOR)
        hdr = fh.read(SECTOR)
        assert hdr[:8] == b"EFI PART", "no GPT header at LBA 1"
        hsize = struct.unpack_from("<I", hdr, 12)[0]
        crc = struct.unpack_from("<I", hdr, 16)[0]
        assert zlib.crc32(hdr[:16] + b"\0\0\0\0" + hdr[20:hsize]) == crc, "GPT header CRC"
        first_usable, last_usable = struct.unpack_from("<QQ", hdr, 40)
        entries_lba, count, esize = struct.unpack_from("<QII", hdr, 72)
        fh.seek(entries_lba * SECTOR)
        table = fh.read(count * esize)
    parts = []
    for k in range(count):
        e = table[k * esize:(k + 1) * esize]
        if e[:16] == b"\0" * 16:
            continue
        first, last = struct.unpack_from("<QQ", e, 32)
        parts.append((first, last, _guid(e[:16])))
    return first_usable, last_usable, parts


def bpb(img, start):
    """The FAT32 boot sector's BPB fields that matter here."""
    with open(img, "rb") as fh:
        fh.seek(start * SECTOR)
        bs = fh.read(SECTOR)
    return {"bytes_per_sector": struct.unpack_from("<H", bs, 11)[0],
            "sectors_per_cluster": bs[13],
            "total16": struct.unpack_from("<H", bs, 19)[0],
            "hidden": struct.unpack_from("<I", bs, 28)[0],
            "total32": struct.unpack_from("<I", bs, 32)[0],
            "fat_size16": struct.unpack_from("<H", bs, 22)[0],
            "fs_type": bs[82:90], "signature": bs[510:512]}


def check_image(img, tmp_path, efi_bytes=None):
    for tool in ("sgdisk", "fsck.fat", "mcopy"):
        _need(tool)
    total = os.path.getsize(img) // SECTOR
    assert os.path.getsize(img) % SECTOR == 0
    verify = subprocess.run(["sgdisk", "-v", img], capture_output=True, text=True)
    assert verify.returncode == 0 and "No problems found" in verify.stdout, verify.stdout
    first_usable, last_usable, parts = gpt_partitions(img)
    assert last_usable == total - GPT_BACKUP_SECTORS - 1
    assert len(parts) == 1
    start, end, ptype = parts[0]
    assert ptype == ESP_GUID
    assert start % MIB_SECTORS == 0 and (end + 1) % MIB_SECTORS == 0, (start, end)
    assert first_usable <= start and end <= last_usable, "partition overlaps a GPT"
    part_sectors = end - start + 1
    f = bpb(img, start)
    assert f["signature"] == b"\x55\xaa"
    assert f["bytes_per_sector"] == SECTOR
    assert f["fs_type"] == b"FAT32   " and f["fat_size16"] == 0
    assert f["total16"] == 0
    # The file system is exactly its partition: not larger (over the backup GPT), not smaller.
    assert f["total32"] == part_sectors, (f["total32"], part_sectors)
    assert f["hidden"] == start
    part = tmp_path / "esp.img"
    with open(img, "rb") as src, open(part, "wb") as dst:
        src.seek(start * SECTOR)
        dst.write(src.read(part_sectors * SECTOR))
    fsck = subprocess.run(["fsck.fat", "-n", str(part)], capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    got = tmp_path / "BOOTX64.EFI"
    subprocess.run(["mcopy", "-n", "-i", "%s@@%d" % (img, start * SECTOR),
                    "::/EFI/BOOT/BOOTX64.EFI", str(got)], check=True)
    if efi_bytes is not None:
        assert got.read_bytes() == efi_bytes


@pytest.mark.parametrize("size_mib", [None, 100])
def test_mkimage_layout(tmp_path, size_mib):
    _need("mformat")
    efi = tmp_path / "stand-in.efi"
    payload = b"MZ" + os.urandom(3000)
    efi.write_bytes(payload)
    img = tmp_path / "disk.img"
    cmd = ["sh", MKIMAGE, str(efi), str(img)] + ([str(size_mib)] if size_mib else [])
    subprocess.run(cmd, check=True)
    assert os.path.getsize(img) == (size_mib or 64) * MIB_SECTORS * SECTOR
    check_image(str(img), tmp_path, payload)


def test_mkimage_refuses_too_small(tmp_path):
    efi = tmp_path / "stand-in.efi"
    efi.write_bytes(b"MZ")
    res = subprocess.run(["sh", MKIMAGE, str(efi), str(tmp_path / "x.img"), "20"],
                         capture_output=True, text=True)
    assert res.returncode != 0 and "too small" in res.stderr
    assert not os.path.exists(tmp_path / "x.img")


def test_mkimage_extra_files(tmp_path):
    """PATH=FILE arguments after the boot name (the shim stick, make SHIM=1) land at their paths."""
    _need("mformat")
    efi = tmp_path / "loader.efi"
    efi.write_bytes(b"MZ" + os.urandom(1000))
    second, cert = tmp_path / "second.efi", tmp_path / "key.cer"
    second.write_bytes(b"MZ" + os.urandom(2000))
    cert.write_bytes(os.urandom(800))
    img = tmp_path / "disk.img"
    subprocess.run(["sh", MKIMAGE, str(efi), str(img), "64", "BOOTX64.EFI",
                    "EFI/BOOT/grubx64.efi=%s" % second, "baremetric.cer=%s" % cert], check=True)
    check_image(str(img), tmp_path, efi.read_bytes())
    for path, src in (("EFI/BOOT/grubx64.efi", second), ("baremetric.cer", cert)):
        got = tmp_path / "got"
        subprocess.run(["mcopy", "-n", "-i", "%s@@%d" % (img, MIB_SECTORS * SECTOR), "::/" + path, str(got)],
                       check=True)
        assert got.read_bytes() == src.read_bytes(), path
