#!/usr/bin/python3
"""Pack the firmware into a compressed image (docs/hacking.md, "Image size"): the loaded image of
baremetric.so (its sections the .efi would carry, laid out at their addresses from 0) compressed as
one LZ4 block (lz4/doc/lz4_Block_format.md) behind a header that efi/unpack/packed_image.h
declares. The packed .efi's start-up program (efi/unpack/unpack.c) allocates the image's memory,
decodes the block into it and enters it at its ELF entry point, where the image relocates itself
as it does when the UEFI loader maps it.

  lz_pack.py SO OUT --sections ".text .data ..."   write OUT: the header and the block
  lz_pack.py --compress IN OUT / --decompress IN OUT    a bare block (tests)

The encoder is a greedy LZ77 over hash chains with one step of lazy matching; every block it
writes is decoded again here and compared before it is kept."""

import argparse
import fnmatch
import struct
import sys
import zlib

# efi/unpack/packed_image.h (tests/python/test_lz_pack.py holds the two to each other)
PACKED_MAGIC = b"BMPK"
PACKED_VERSION = 1
PACKED_HEADER = "<4sHHIIIIII"  # magic, version, header bytes, packed, image, memory bytes, entry, image CRC-32, reserved
PACKED_FIELDS = ("magic", "version", "header_bytes", "packed_bytes", "image_bytes", "memory_bytes", "entry",
                 "image_crc32", "reserved")
PACKED_HEADER_BYTES = struct.calcsize(PACKED_HEADER)
PAGE_BYTES = 4096

# LZ4 block format
MIN_MATCH = 4
LAST_LITERALS = 5      # the block ends with at least this many literals
MATCH_START_LIMIT = 12  # no match starts in the block's last 12 bytes
MAX_OFFSET = 65535
NIBBLE_MAX = 15
EXT_MORE = 255
CHAIN_DEPTH = 64       # candidates tried per position: ratio against time (~2 s for 270 KB)
GOOD_ENOUGH = 256      # a match this long ends the search

# ELF64 little-endian
ELF_MAGIC = b"\x7fELF"
ELF_HEADER = "<16sHHIQQQIHHHHHH"
SECTION_HEADER = "<IIQQQQIIQQ"  # name, type, flags, addr, offset, size, link, info, addralign, entsize
SHT_NOBITS = 8
SHF_ALLOC = 0x2


def match_length(data, a, b, limit):
    """How many bytes from data[a] equal those from data[b] (a < b), at most limit."""
    n = 0
    while n + 32 <= limit and data[a + n:a + n + 32] == data[b + n:b + n + 32]:
        n += 32
    while n < limit and data[a + n] == data[b + n]:
        n += 1
    return n


class Matcher:
    """Hash chains over the 4-byte strings of data: find(i) is the longest earlier match of data[i:]."""

    def __init__(self, data):
        self.data = data
        self.head = {}
        self.prev = [-1] * len(data)
        self.next_insert = 0

    def insert_to(self, end):
        data, head, prev = self.data, self.head, self.prev
        for j in range(self.next_insert, min(end, len(data) - MIN_MATCH + 1)):
            key = data[j:j + MIN_MATCH]
            prev[j] = head.get(key, -1)
            head[key] = j
        self.next_insert = max(self.next_insert, end)

    def find(self, i, limit):
        """(length, offset) of the longest match for data[i:] of at most limit bytes, (0, 0) if none."""
        self.insert_to(i)
        data = self.data
        best, best_off = 0, 0
        cand = self.head.get(data[i:i + MIN_MATCH], -1)
        depth = CHAIN_DEPTH
        while cand >= 0 and i - cand <= MAX_OFFSET and depth:
            depth -= 1
            if best < limit and data[cand + best] == data[i + best]:
                n = match_length(data, cand, i, limit)
                if n > best:
                    best, best_off = n, i - cand
                    if n >= GOOD_ENOUGH or n == limit:
                        break
            cand = self.prev[cand]
        return (best, best_off) if best >= MIN_MATCH else (0, 0)


def put_length(out, n):
    while n >= EXT_MORE:
        out.append(EXT_MORE)
        n -= EXT_MORE
    out.append(n)


def put_sequence(out, literals, match_len=0, offset=0):
    lit = len(literals)
    ml = match_len - MIN_MATCH if match_len else 0
    out.append((min(lit, NIBBLE_MAX) << 4) | min(ml, NIBBLE_MAX))
    if lit >= NIBBLE_MAX:
        put_length(out, lit - NIBBLE_MAX)
    out += literals
    if match_len:
        out += struct.pack("<H", offset)
        if ml >= NIBBLE_MAX:
            put_length(out, ml - NIBBLE_MAX)


def compress(data):
    """data as one LZ4 block."""
    data = bytes(data)
    out = bytearray()
    matcher = Matcher(data)
    n = len(data)
    last_start = n - MATCH_START_LIMIT
    anchor = i = 0
    while i <= last_start:
        limit = n - LAST_LITERALS - i
        length, offset = matcher.find(i, limit)
        if not length:
            i += 1
            continue
        # lazy: a longer match one byte on is worth a literal
        if i + 1 <= last_start:
            nlen, noff = matcher.find(i + 1, limit - 1)
            if nlen > length + 1:
                i, length, offset = i + 1, nlen, noff
        put_sequence(out, data[anchor:i], length, offset)
        i += length
        anchor = i
    put_sequence(out, data[anchor:])
    return bytes(out)


def read_length(block, p, n):
    """(n plus the extension bytes at block[p:], the position after them): a nibble of 15's length."""
    while True:
        if p >= len(block):
            raise ValueError("a length's extension cut off by the block's end")
        b = block[p]
        p += 1
        n += b
        if b != EXT_MORE:
            return n, p


def decompress(block, limit=1 << 30):
    """The bytes of an LZ4 block (the reference the encoder is checked against)."""
    out = bytearray()
    p, end = 0, len(block)
    while p < end:
        token = block[p]
        p += 1
        lit = token >> 4
        if lit == NIBBLE_MAX:
            lit, p = read_length(block, p, lit)
        if p + lit > end:
            raise ValueError("literals past the block's end")
        out += block[p:p + lit]
        p += lit
        if p == end:
            break
        if p + 2 > end:
            raise ValueError("a match offset cut off by the block's end")
        offset = block[p] | block[p + 1] << 8
        p += 2
        if not 0 < offset <= len(out):
            raise ValueError("match offset %d outside the output (%d bytes)" % (offset, len(out)))
        ml = token & NIBBLE_MAX
        if ml == NIBBLE_MAX:
            ml, p = read_length(block, p, ml)
        ml += MIN_MATCH
        start = len(out) - offset
        while ml:  # an overlapping match repeats its pattern: copy a period at a time
            chunk = out[start:start + min(ml, offset)]
            out += chunk
            start += len(chunk)
            ml -= len(chunk)
        if len(out) > limit:
            raise ValueError("output past %d bytes" % limit)
    return bytes(out)


def read_elf(path):
    """(entry, [(name, type, flags, addr, file bytes or None)]) of an ELF64 little-endian file."""
    with open(path, "rb") as fh:
        elf = fh.read()
    if elf[:4] != ELF_MAGIC or elf[4] != 2 or elf[5] != 1:
        raise SystemExit("%s: not a little-endian ELF64 file" % path)
    hdr = struct.unpack_from(ELF_HEADER, elf, 0)
    entry, shoff, shentsize, shnum, shstrndx = hdr[4], hdr[6], hdr[11], hdr[12], hdr[13]
    raw = [struct.unpack_from(SECTION_HEADER, elf, shoff + i * shentsize) for i in range(shnum)]
    strtab = raw[shstrndx]
    names = elf[strtab[4]:strtab[4] + strtab[5]]
    sections = []
    for s in raw:
        name = names[s[0]:names.index(b"\0", s[0])].decode()
        body = None if s[1] == SHT_NOBITS else elf[s[4]:s[4] + s[5]]
        sections.append((name, s[1], s[2], s[3], s[5], body))
    return entry, sections


def flat_image(so, patterns):
    """(image bytes from address 0, memory bytes to reserve, entry) of the sections matching patterns."""
    entry, sections = read_elf(so)
    image = bytearray()
    memory = 0
    for name, _type, flags, addr, size, body in sections:
        if not flags & SHF_ALLOC or not size or not any(fnmatch.fnmatchcase(name, p) for p in patterns):
            continue
        memory = max(memory, addr + size)
        if body is not None:
            if len(image) < addr + size:
                image.extend(bytes(addr + size - len(image)))
            image[addr:addr + size] = body
    if not image or not 0 < entry < len(image):
        raise SystemExit("%s: entry point %#x is not inside the image's %d bytes" % (so, entry, len(image)))
    memory = -(-memory // PAGE_BYTES) * PAGE_BYTES
    return bytes(image), memory, entry


def read_packed(path):
    """(header fields as a dict, the block) of a file pack() wrote."""
    with open(path, "rb") as fh:
        data = fh.read()
    header = dict(zip(PACKED_FIELDS, struct.unpack_from(PACKED_HEADER, data)))
    return header, data[PACKED_HEADER_BYTES:]


def pack(so, out_path, patterns):
    image, memory, entry = flat_image(so, patterns)
    block = compress(image)
    if decompress(block, len(image)) != image:
        raise SystemExit("lz_pack: the block does not decode to the image (an encoder bug)")
    header = struct.pack(PACKED_HEADER, PACKED_MAGIC, PACKED_VERSION, PACKED_HEADER_BYTES, len(block),
                         len(image), memory, entry, zlib.crc32(image), 0)
    with open(out_path, "wb") as fh:
        fh.write(header + block)
    print("lz_pack: %s: %d bytes of image (%d of memory) packed into %d" % (so, len(image), memory, len(block)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--sections", help="the section names (glob patterns) of the loaded image")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--compress", action="store_true", help="src as one bare LZ4 block")
    mode.add_argument("--decompress", action="store_true", help="a bare LZ4 block's bytes")
    args = ap.parse_args(argv)
    if args.compress or args.decompress:
        with open(args.src, "rb") as fh:
            data = fh.read()
        with open(args.out, "wb") as fh:
            fh.write(compress(data) if args.compress else decompress(data))
        return 0
    if not args.sections:
        ap.error("--sections is needed to pack an ELF")
    pack(args.src, args.out, args.sections.split())
    return 0


if __name__ == "__main__":
    sys.exit(main())
