"""A read-only FAT12/16/32 reader (Microsoft FAT specification 1.03, "FAT32 File System
Specification", December 2000): the BPB (§3), the FAT type from the cluster count (§3.5), cluster
chains (§4), directories (§6) and long names (§7), for finding and reading the run logs.

probe() returns a FatVolume or None (not FAT); FatError is damage found while reading one."""

import struct
from collections import namedtuple

from .device import StickError

# §3.1-3.3: the BPB, at the start of the volume.
BS_JMP = 0
JMP_OPCODES = (0xEB, 0xE9)       # BS_jmpBoot: a short or near jump
BPB_BYTS_PER_SEC = 11
BPB_SEC_PER_CLUS = 13
BPB_RSVD_SEC_CNT = 14
BPB_NUM_FATS = 16
BPB_ROOT_ENT_CNT = 17
BPB_TOT_SEC16 = 19
BPB_FAT_SZ16 = 22
BPB_TOT_SEC32 = 32
BPB_FAT_SZ32 = 36                # FAT32 only, as the next three
BPB_EXT_FLAGS = 40
BPB_ROOT_CLUS = 44
BOOT_SIGNATURE_AT = 510          # 0x55 0xAA (§3.1 note)
BOOT_SIGNATURE = b"\x55\xaa"
BOOT_SECTOR_MIN = 512
SECTOR_SIZES = (512, 1024, 2048, 4096)
EXT_FLAGS_NO_MIRROR = 0x80       # BPB_ExtFlags bit 7: only the FAT in bits 0-3 is active
EXT_FLAGS_ACTIVE = 0x0F
# §3.5: the FAT type is decided by the count of data clusters alone.
FAT12_MAX_CLUSTERS = 4084
FAT16_MAX_CLUSTERS = 65524
FIRST_CLUSTER = 2                # clusters 0 and 1 are reserved (§4)
# §4: entry values at and above these end a chain; one below is a bad cluster.
EOC = {12: 0xFF8, 16: 0xFFF8, 32: 0x0FFFFFF8}
FAT32_MASK = 0x0FFFFFFF          # the high 4 bits of a FAT32 entry are reserved
# §6: directory entries.
DIR_ENTRY_SIZE = 32
DIR_NAME_LEN = 11
DIR_ATTR = 11
DIR_NTRES = 12
DIR_FST_CLUS_HI = 20
DIR_FST_CLUS_LO = 26
DIR_FILE_SIZE = 28
DIR_END = 0x00                   # DIR_Name[0]: this and every later entry are free
DIR_FREE = 0xE5
DIR_KANJI_E5 = 0x05              # DIR_Name[0] 0x05 stands for a real 0xE5
ATTR_VOLUME_ID = 0x08
ATTR_DIRECTORY = 0x10
ATTR_LONG_NAME = 0x0F            # READ_ONLY | HIDDEN | SYSTEM | VOLUME_ID
ATTR_LONG_NAME_MASK = 0x3F
NTRES_LOWER_BASE = 0x08          # Windows NT's case bits (not in 1.03, written by mtools/Linux)
NTRES_LOWER_EXT = 0x10
# §7: long name entries.
LDIR_ORD = 0
LDIR_NAME_PARTS = ((1, 10), (14, 12), (28, 4))  # Name1, Name2, Name3: UCS-2 characters
LDIR_CHKSUM = 13
LAST_LONG_ENTRY = 0x40
LDIR_ORD_MASK = 0x3F
FAT_CACHE_CHUNK = 1 << 16        # the FAT is read in pieces of this many bytes

Entry = namedtuple("Entry", "name short attr cluster size")


class FatError(StickError):
    """A FAT file system damaged where the reader needed it."""


def short_name_checksum(raw):
    """§7.2 ChkSum(): the checksum of an 11-byte short name stored in its long name entries."""
    s = 0
    for b in raw:
        s = (((s & 1) << 7) + (s >> 1) + b) & 0xFF
    return s


def _short_name(raw, ntres):
    base = bytes([DIR_FREE]) + raw[1:8] if raw[0] == DIR_KANJI_E5 else raw[:8]
    base, ext = base.decode("cp437").rstrip(), raw[8:].decode("cp437").rstrip()
    if ntres & NTRES_LOWER_BASE:
        base = base.lower()
    if ntres & NTRES_LOWER_EXT:
        ext = ext.lower()
    return base + ("." + ext if ext else "")


def _long_part(ent):
    units = b"".join(ent[off:off + n] for off, n in LDIR_NAME_PARTS)
    return units.decode("utf-16-le", "replace")


class _LongName:
    """Collects the long name entries before a short one (§7: last part first, ordinals N..1)."""

    def __init__(self):
        self.parts, self.expect, self.chk = [], None, None

    def add(self, ent):
        ord_ = ent[LDIR_ORD]
        if ord_ & LAST_LONG_ENTRY:
            self.parts, self.expect, self.chk = [], ord_ & LDIR_ORD_MASK, ent[LDIR_CHKSUM]
        elif ord_ != self.expect or ent[LDIR_CHKSUM] != self.chk:
            self.expect = None  # out of order: an orphan, the short name stands alone
            return
        self.parts.append(_long_part(ent))
        self.expect = (ord_ & LDIR_ORD_MASK) - 1

    def take(self, raw_short):
        """The long name belonging to this short entry, or None."""
        name = None
        if self.parts and self.expect == 0 and self.chk == short_name_checksum(raw_short):
            name = "".join(reversed(self.parts)).split("\0")[0]
        self.parts, self.expect = [], None
        return name


class FatVolume:
    """A FAT file system at `offset` on a Device; `kind` is FAT12, FAT16 or FAT32."""

    def __init__(self, dev, offset, bpb):
        self.dev, self.offset = dev, offset
        (self.sector, self.sec_per_clus, rsvd, nfats, root_ent, fat_sz, tot_sec, self.bits,
         self.clusters, root_clus, active) = bpb
        self.kind = "FAT%d" % self.bits
        self.cluster_bytes = self.sector * self.sec_per_clus
        self.fat_at = offset + (rsvd + active * fat_sz) * self.sector
        self.fat_bytes = fat_sz * self.sector
        root_dir_sectors = (root_ent * DIR_ENTRY_SIZE + self.sector - 1) // self.sector
        self.root_at = offset + (rsvd + nfats * fat_sz) * self.sector
        self.root_len = root_ent * DIR_ENTRY_SIZE
        self.data_at = self.root_at + root_dir_sectors * self.sector
        self.root_cluster = root_clus if self.bits == 32 else 0
        self._fat_cache = {}

    # --- the FAT (§4) ---
    def _fat_read(self, pos, n):
        out = b""
        while n > 0:
            chunk = pos // FAT_CACHE_CHUNK
            if chunk not in self._fat_cache:
                base = chunk * FAT_CACHE_CHUNK
                self._fat_cache[chunk] = self.dev.read(
                    self.fat_at + base, min(FAT_CACHE_CHUNK, self.fat_bytes - base))
            data = self._fat_cache[chunk][pos % FAT_CACHE_CHUNK:pos % FAT_CACHE_CHUNK + n]
            if not data:
                raise FatError("the FAT ends early (device cut short?)")
            out, pos, n = out + data, pos + len(data), n - len(data)
        return out

    def fat_entry(self, n):
        if self.bits == 12:
            word, = struct.unpack("<H", self._fat_read(n + n // 2, 2))
            return word >> 4 if n & 1 else word & 0xFFF
        if self.bits == 16:
            return struct.unpack("<H", self._fat_read(2 * n, 2))[0]
        return struct.unpack("<I", self._fat_read(4 * n, 4))[0] & FAT32_MASK

    def chain(self, first, what):
        """The clusters of a chain from `first` to its end-of-chain mark. Raises FatError on a
        free, bad or out-of-range entry or a loop."""
        out, n, last = [], first, FIRST_CLUSTER + self.clusters - 1
        while True:
            if not FIRST_CLUSTER <= n <= last:
                raise FatError("%s: cluster chain reaches cluster %d (valid %d-%d)"
                               % (what, n, FIRST_CLUSTER, last))
            if len(out) >= self.clusters:
                raise FatError("%s: cluster chain loops" % what)
            out.append(n)
            n = self.fat_entry(n)
            if n >= EOC[self.bits]:
                return out

    def cluster_extents(self, clusters):
        """[(device offset, length)] of clusters, neighbours merged."""
        out = []
        for c in clusters:
            off = self.data_at + (c - FIRST_CLUSTER) * self.cluster_bytes
            if out and out[-1][0] + out[-1][1] == off:
                out[-1] = (out[-1][0], out[-1][1] + self.cluster_bytes)
            else:
                out.append((off, self.cluster_bytes))
        return out

    def file_extents(self, entry, what):
        """Where a file's `entry.size` bytes lie on the device."""
        if entry.size == 0:
            return []
        clusters = self.chain(entry.cluster, what)
        need = -(-entry.size // self.cluster_bytes)
        if len(clusters) < need:
            raise FatError("%s: %d clusters in its chain, its size %d needs %d"
                           % (what, len(clusters), entry.size, need))
        out, left = [], entry.size
        for off, n in self.cluster_extents(clusters[:need]):
            out.append((off, min(n, left)))
            left -= n
        return out

    # --- directories (§6, §7) ---
    def _dir_bytes(self, entry):
        if entry is None and self.bits != 32:
            return self.dev.read(self.root_at, self.root_len)
        cluster = self.root_cluster if entry is None or entry.cluster == 0 else entry.cluster
        what = "directory %s" % (entry.name if entry else "/")
        return b"".join(self.dev.read(off, n) for off, n in
                        self.cluster_extents(self.chain(cluster, what)))

    def listdir(self, entry=None):
        """The entries of a directory (the root when entry is None), without volume labels,
        "." and ".."."""
        data, out, lfn = self._dir_bytes(entry), [], _LongName()
        for pos in range(0, len(data) - DIR_ENTRY_SIZE + 1, DIR_ENTRY_SIZE):
            ent = data[pos:pos + DIR_ENTRY_SIZE]
            if ent[0] == DIR_END:
                break
            attr = ent[DIR_ATTR]
            if ent[0] == DIR_FREE:
                lfn = _LongName()
                continue
            if attr & ATTR_LONG_NAME_MASK == ATTR_LONG_NAME:
                lfn.add(ent)
                continue
            raw = ent[:DIR_NAME_LEN]
            long_name = lfn.take(raw)
            if attr & ATTR_VOLUME_ID or raw in (b".          ", b"..         "):
                continue
            hi, = struct.unpack_from("<H", ent, DIR_FST_CLUS_HI)
            lo, = struct.unpack_from("<H", ent, DIR_FST_CLUS_LO)
            size, = struct.unpack_from("<I", ent, DIR_FILE_SIZE)
            short = _short_name(raw, ent[DIR_NTRES])
            cluster = (hi << 16 | lo) if self.bits == 32 else lo
            out.append(Entry(long_name or short, short, attr, cluster, size))
        return out

    def lookup(self, parent, name):
        """The entry called `name` (long or short, case-insensitive) in a directory, or None."""
        want = name.casefold()
        for e in self.listdir(parent):
            if e.name.casefold() == want or e.short.casefold() == want:
                return e
        return None


def is_dir(entry):
    return bool(entry.attr & ATTR_DIRECTORY)


def _bpb(boot, size):
    """The BPB's geometry as a tuple for FatVolume, or None when boot is no FAT boot sector
    (or the file system would not fit in `size` bytes)."""
    if len(boot) < BOOT_SECTOR_MIN or boot[BS_JMP] not in JMP_OPCODES or \
            boot[BOOT_SIGNATURE_AT:BOOT_SIGNATURE_AT + 2] != BOOT_SIGNATURE:
        return None
    sector, spc, rsvd, nfats, root_ent, tot16 = struct.unpack_from("<HBHBHH", boot,
                                                                   BPB_BYTS_PER_SEC)
    fat16, = struct.unpack_from("<H", boot, BPB_FAT_SZ16)
    tot32, fat32 = struct.unpack_from("<II", boot, BPB_TOT_SEC32)
    fat_sz, tot_sec = fat16 or fat32, tot16 or tot32
    if sector not in SECTOR_SIZES or spc == 0 or spc & (spc - 1) or not rsvd or not nfats \
            or not fat_sz or tot_sec * sector > size:
        return None
    root_dir_sectors = (root_ent * DIR_ENTRY_SIZE + sector - 1) // sector
    data_sec = tot_sec - (rsvd + nfats * fat_sz + root_dir_sectors)
    if data_sec <= 0:
        return None
    clusters = data_sec // spc
    bits = 12 if clusters <= FAT12_MAX_CLUSTERS else 16 if clusters <= FAT16_MAX_CLUSTERS else 32
    root_clus, active = 0, 0
    if bits == 32:
        ext, = struct.unpack_from("<H", boot, BPB_EXT_FLAGS)
        root_clus, = struct.unpack_from("<I", boot, BPB_ROOT_CLUS)
        active = ext & EXT_FLAGS_ACTIVE if ext & EXT_FLAGS_NO_MIRROR else 0
        if active >= nfats:
            return None
    if fat_sz * sector * 8 < (clusters + FIRST_CLUSTER) * bits:
        return None  # a FAT too small for its clusters
    return (sector, spc, rsvd, nfats, root_ent, fat_sz, tot_sec, bits, clusters, root_clus,
            active)


def probe(dev, offset, size):
    """The FAT file system at offset, or None when its first sector is no FAT boot sector."""
    bpb = _bpb(dev.read(offset, max(SECTOR_SIZES)), size)
    return FatVolume(dev, offset, bpb) if bpb else None
