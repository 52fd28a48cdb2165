"""The built .efi files as the integration tests read them: a PE file's COFF header, section table
and SizeOfImage (the PE/COFF specification's layouts), and the packed image's header and block
through scripts/lz_pack.py's own reader (its constants are held to efi/unpack/packed_image.h by
tests/python/test_lz_pack.py)."""

import collections
import struct

from script_module import load_script

PE_OFFSET_FIELD = 0x3C
PE_SIGNATURE = b"PE\0\0"
COFF_HEADER = "<HHIIIHH"  # Machine, NumberOfSections, TimeDateStamp, PointerToSymbolTable,
#                           NumberOfSymbols, SizeOfOptionalHeader, Characteristics
SECTION_HEADER = "<8sIIII"  # Name, VirtualSize, VirtualAddress, SizeOfRawData, PointerToRawData
SECTION_HEADER_BYTES = 40
PE32_PLUS_MAGIC = 0x20B
SIZE_OF_IMAGE_OFFSET = 56  # in the PE32+ optional header ("Optional Header Windows-Specific Fields")

Section = collections.namedtuple("Section", "name vsize va raw data")


def read_pe(path):
    """(the file's bytes, the COFF header's offset) of a PE file."""
    with open(path, "rb") as fh:
        data = fh.read()
    assert data[:2] == b"MZ", "not a PE file: %s" % path
    pe = struct.unpack_from("<I", data, PE_OFFSET_FIELD)[0]
    assert data[pe:pe + 4] == PE_SIGNATURE, "not a PE file: %s" % path
    return data, pe + len(PE_SIGNATURE)


def coff_header(path):
    data, coff = read_pe(path)
    return struct.unpack_from(COFF_HEADER, data, coff)


def sections(path):
    """[Section] of a PE file: name, virtual size and address, raw size, the bytes in the file."""
    data, coff = read_pe(path)
    header = struct.unpack_from(COFF_HEADER, data, coff)
    table = coff + struct.calcsize(COFF_HEADER) + header[5]
    out = []
    for i in range(header[1]):
        name, vsize, va, raw, ptr = struct.unpack_from(SECTION_HEADER, data, table + i * SECTION_HEADER_BYTES)
        out.append(Section(name.rstrip(b"\0").decode(), vsize, va, raw, data[ptr:ptr + min(raw, vsize)]))
    return out


def size_of_image(path):
    data, coff = read_pe(path)
    opt = coff + struct.calcsize(COFF_HEADER)
    assert struct.unpack_from("<H", data, opt)[0] == PE32_PLUS_MAGIC, "not PE32+: %s" % path
    return struct.unpack_from("<I", data, opt + SIZE_OF_IMAGE_OFFSET)[0]


lz_pack = load_script("lz_pack")
