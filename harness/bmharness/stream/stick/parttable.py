"""Where the file systems of a stick are: the partitions of a GPT (UEFI 2.10 §5.3, tried with
512- and 4096-byte sectors, the backup header when the primary one is damaged), of an MBR
(UEFI 2.10 §5.2.1, the FAT and EFI system partition types) or, with no table, the whole device
(a "superfloppy"). volumes() lists the candidates; fat.py decides which one holds FAT."""

import struct
import uuid
import zlib
from collections import namedtuple

# A candidate: byte offset and size on the device, and where it is in words ("GPT partition 1").
Volume = namedtuple("Volume", "offset size where")

SECTOR_SIZES = (512, 4096)       # logical block sizes tried for the GPT

# UEFI 2.10 §5.2.1 Table 5.1/5.2: legacy MBR and its partition records.
MBR_TABLE = 446
MBR_ENTRY_SIZE = 16
MBR_ENTRIES = 4
MBR_TYPE = 4                     # OSType in a record
MBR_START_LBA = 8
MBR_SIZE_LBA = 12
MBR_SIGNATURE_AT = 510
MBR_SIGNATURE = b"\x55\xaa"
MBR_SECTOR = 512
MBR_PROTECTIVE = 0xEE            # §5.2.3: the protective MBR of a GPT disk
MBR_FAT_TYPES = {0x01: "FAT12", 0x04: "FAT16 (<32 MiB)", 0x06: "FAT16", 0x0B: "FAT32 (CHS)",
                 0x0C: "FAT32 (LBA)", 0x0E: "FAT16 (LBA)", 0xEF: "EFI system"}

# UEFI 2.10 §5.3.2 Table 5.5: GPT header.
GPT_SIGNATURE = b"EFI PART"
GPT_HEADER_LBA = 1
GPT_HEADER_MIN = 92              # HeaderSize is at least this
GPT_HEADER_SIZE = 12
GPT_HEADER_CRC = 16
GPT_MY_LBA = 24
GPT_ALTERNATE_LBA = 32
GPT_ENTRY_LBA = 72
GPT_ENTRY_COUNT = 80
GPT_ENTRY_SIZE = 84
GPT_ENTRY_CRC = 88
GPT_ENTRY_MIN = 128              # SizeOfPartitionEntry: 128 x 2^n
GPT_ENTRIES_MAX_BYTES = 1 << 20  # sanity bound on the entry array read
# UEFI 2.10 §5.3.3 Table 5.6: GPT partition entry.
GPT_PART_TYPE = 0
GPT_PART_START = 32
GPT_PART_END = 40
GPT_PART_NAME = 56
GPT_PART_NAME_LEN = 72
GPT_TYPE_NAMES = {"c12a7328-f81f-11d2-ba4b-00a0c93ec93b": "EFI system",
                  "ebd0a0a2-b9e5-4433-87c0-68b6b72699c7": "basic data"}


def _crc_ok(block, crc_at, stored):
    zeroed = block[:crc_at] + b"\0\0\0\0" + block[crc_at + 4:]
    return zlib.crc32(zeroed) & 0xFFFFFFFF == stored


def _gpt_header(dev, lba, sector):
    """The GPT header at lba as a dict, or None when there is none or it is damaged."""
    hdr = dev.read(lba * sector, sector)
    if len(hdr) < GPT_HEADER_MIN or hdr[:len(GPT_SIGNATURE)] != GPT_SIGNATURE:
        return None
    size, crc = struct.unpack_from("<II", hdr, GPT_HEADER_SIZE)
    if not GPT_HEADER_MIN <= size <= sector or not _crc_ok(hdr[:size], GPT_HEADER_CRC, crc):
        return None
    my_lba, alt_lba = struct.unpack_from("<QQ", hdr, GPT_MY_LBA)
    entry_lba, = struct.unpack_from("<Q", hdr, GPT_ENTRY_LBA)
    count, esize, ecrc = struct.unpack_from("<III", hdr, GPT_ENTRY_COUNT)
    if my_lba != lba or esize < GPT_ENTRY_MIN or count * esize > GPT_ENTRIES_MAX_BYTES:
        return None
    entries = dev.read(entry_lba * sector, count * esize)
    if len(entries) != count * esize or zlib.crc32(entries) & 0xFFFFFFFF != ecrc:
        return None
    return {"alternate": alt_lba, "entries": entries, "count": count, "esize": esize}


def _gpt_volumes(hdr, sector, which):
    out = []
    for i in range(hdr["count"]):
        e = hdr["entries"][i * hdr["esize"]:(i + 1) * hdr["esize"]]
        ptype = e[GPT_PART_TYPE:GPT_PART_TYPE + 16]
        if ptype == bytes(16):
            continue  # unused entry
        start, end = struct.unpack_from("<QQ", e, GPT_PART_START)
        name = e[GPT_PART_NAME:GPT_PART_NAME + GPT_PART_NAME_LEN].decode(
            "utf-16-le", "replace").split("\0")[0]
        tguid = str(uuid.UUID(bytes_le=ptype))
        where = "GPT%s partition %d: %s%s at LBA %d (%d-byte sectors)" % (
            which, i + 1, GPT_TYPE_NAMES.get(tguid, "type " + tguid),
            " '%s'" % name if name else "", start, sector)
        out.append(Volume(start * sector, (end - start + 1) * sector, where))
    return out


def gpt_volumes(dev):
    """The partitions of the GPT (primary header, else the backup at the last LBA), or None when
    the device has no valid GPT at any of SECTOR_SIZES."""
    for sector in SECTOR_SIZES:
        hdr = _gpt_header(dev, GPT_HEADER_LBA, sector)
        which = ""
        if hdr is None and dev.size >= 2 * sector:
            hdr, which = _gpt_header(dev, dev.size // sector - 1, sector), " (backup header)"
        if hdr is not None:
            return _gpt_volumes(hdr, sector, which)
    return None


def mbr_volumes(dev):
    """The MBR's partitions of a FAT or EFI system type that lie inside the device."""
    mbr = dev.read(0, MBR_SECTOR)
    if len(mbr) < MBR_SECTOR or mbr[MBR_SIGNATURE_AT:MBR_SIGNATURE_AT + 2] != MBR_SIGNATURE:
        return []
    out = []
    for i in range(MBR_ENTRIES):
        rec = mbr[MBR_TABLE + i * MBR_ENTRY_SIZE:MBR_TABLE + (i + 1) * MBR_ENTRY_SIZE]
        ptype = rec[MBR_TYPE]
        start, count = struct.unpack_from("<II", rec, MBR_START_LBA)
        if ptype not in MBR_FAT_TYPES or not count or (start + count) * MBR_SECTOR > dev.size:
            continue
        out.append(Volume(start * MBR_SECTOR, count * MBR_SECTOR, "MBR partition %d: type 0x%02x "
                          "%s at LBA %d" % (i + 1, ptype, MBR_FAT_TYPES[ptype], start)))
    return out


def volumes(dev):
    """Candidate volumes in the order to try them: a GPT's partitions; else the MBR's FAT
    partitions, then the whole device (a FAT file system without a partition table, whose boot
    sector also ends in 55 AA)."""
    gpt = gpt_volumes(dev)
    if gpt is not None:
        return gpt
    return mbr_volumes(dev) + [Volume(0, dev.size, "whole device (no partition table)")]
