"""The packer of the x86_64 .efi (scripts/lz_pack.py; docs/hacking.md, "Image size"): its LZ4
blocks are what the LZ4 Block Format says, checked by the reference implementation (liblz4, through
Debian's python3-lz4) decoding them, and its own decoder reads liblz4's blocks; the header it writes
is the one efi/unpack/packed_image.h declares. (The C decoder: tests/unit/test_lz_unpack.c; the
packed image against the plain one: tests/integration/test_packed_image.py.)"""

import os
import random
import re
import struct

import lz4.block
import pytest

from script_module import load_script

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADER_H = os.path.join(ROOT, "efi", "unpack", "packed_image.h")


lz_pack = load_script("lz_pack")


def samples():
    rng = random.Random(29)
    text = b"".join(b"record %d key=value crc=%08x\n" % (i, rng.getrandbits(32)) for i in range(3000))
    code = bytes(rng.choice(b"\x48\x89\xe5\x0f\x1f\x44\x00\xc3\x8b\x45") for _ in range(40000))
    return {
        "empty": b"",
        "short": b"abcdefghijk",  # shorter than the 12 bytes a match needs after it
        "zeros": bytes(100000),
        "random": bytes(rng.getrandbits(8) for _ in range(20000)),
        "text": text,
        "code-like": code,
        "runs": b"".join(bytes([rng.getrandbits(8)]) * rng.randint(1, 600) for _ in range(500)),
        "far": text[:70000] + text[:70000],  # repeats beyond the 64 KiB window
    }


@pytest.mark.parametrize("name", sorted(samples()))
def test_blocks_decode_with_liblz4(name):
    data = samples()[name]
    block = lz_pack.compress(data)
    assert lz4.block.decompress(block, uncompressed_size=len(data)) == data
    assert lz_pack.decompress(block) == data


def test_blocks_compress():
    data = samples()
    assert len(lz_pack.compress(data["zeros"])) < 1000
    assert len(lz_pack.compress(data["text"])) < len(data["text"]) // 2
    # incompressible data grows by the format's framing only (a length byte per 255 literals)
    assert len(lz_pack.compress(data["random"])) <= len(data["random"]) * 1.01 + 16


@pytest.mark.parametrize("name", ["text", "runs", "code-like"])
def test_decoder_reads_liblz4_blocks(name):
    data = samples()[name]
    block = lz4.block.compress(data, mode="high_compression", store_size=False)
    assert lz_pack.decompress(block) == data


def test_decoder_refuses_damaged_blocks():
    with pytest.raises(ValueError):
        lz_pack.decompress(bytes([0x10, ord("a"), 0x02, 0x00]))  # offset past the output
    with pytest.raises(ValueError):
        lz_pack.decompress(bytes([0x50, ord("a")]))  # literals cut short
    with pytest.raises(ValueError):
        lz_pack.decompress(bytes([0xF0]))  # a length's extension cut short
    with pytest.raises(ValueError):
        lz_pack.decompress(bytes([0x14, ord("a"), 0x01]))  # a match offset cut short


def header_h():
    with open(HEADER_H) as fh:
        text = fh.read()
    defines = dict(re.findall(r"^#define (PACKED_\w+) (.+?)\s*$", text, re.M))
    body = re.search(r"struct packed_header \{(.*?)\};", text, re.S).group(1)
    fields = re.findall(r"^\s*(\w+) (\w+)(?:\[\w+\])?;", body, re.M)
    return defines, fields


def test_header_matches_the_c_declaration():
    defines, fields = header_h()
    assert defines["PACKED_MAGIC"] == '"%s"' % lz_pack.PACKED_MAGIC.decode()
    assert int(defines["PACKED_VERSION"]) == lz_pack.PACKED_VERSION
    assert int(defines["PACKED_HEADER_BYTES"]) == lz_pack.PACKED_HEADER_BYTES
    # the C fields in order, as struct codes: char[4] -> 4s, uint16_t -> H, uint32_t -> I
    codes = {"char": "4s", "uint16_t": "H", "uint32_t": "I"}
    assert "<" + "".join(codes[t] for t, _name in fields) == lz_pack.PACKED_HEADER
    assert tuple(n for _t, n in fields) == lz_pack.PACKED_FIELDS
    assert struct.calcsize(lz_pack.PACKED_HEADER) == lz_pack.PACKED_HEADER_BYTES
