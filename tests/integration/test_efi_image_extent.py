"""Everything the firmware's code reads or writes lies inside the image the UEFI loader maps.

The loader allocates SizeOfImage bytes (the PE optional header) and nothing else. A section the
link places beyond it, as the AArch64 linker script once did with every `.bss.<name>` section that
-fdata-sections makes, is memory the firmware writes without owning: free memory when the boot
manager loads us (silent corruption of whatever is allocated there next), a write-protected page
when AAVMF's UEFI Shell loads us (a Synchronous Exception, a permission fault on a store, before
the first record). This test compares each build's ELF (baremetric.so: its allocated sections)
with its .efi (the PE header's SizeOfImage), for both CPUs; a packed .efi (x86_64) also with the
memory its start-up program allocates for the image (efi/unpack/unpack.c).

The dynamic-linking tables (.dynsym, .dynstr, .hash, .gnu.hash) are allocated in the ELF but
nothing at run time reads them (gnu-efi's self-relocation reads only .dynamic and the RELA/RELR
tables), so they may lie outside."""

import os
import re
import subprocess

import pytest

import efi_files

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILDS = {"x86_64": "readelf", "aarch64": "aarch64-linux-gnu-readelf"}
UNUSED_AT_RUN_TIME = {".dynsym", ".dynstr", ".hash", ".gnu.hash"}

SHF_ALLOC = "A"
# readelf -S -W: "  [Nr] Name Type Address Off Size ES Flg Lk Inf Al"
SECTION_LINE = re.compile(r"^\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]+\s+(\S*)")


def allocated_sections(readelf, so):
    """[(name, address, size)] of the ELF's SHF_ALLOC sections."""
    out = subprocess.run([readelf, "-S", "-W", so], capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        m = SECTION_LINE.match(line)
        if m and SHF_ALLOC in m.group(4) and int(m.group(3), 16):
            rows.append((m.group(1), int(m.group(2), 16), int(m.group(3), 16)))
    return rows


def test_parser_reads_a_known_section_table():
    """The regex against readelf's own layout (binutils 2.40), so a format change fails here and not
    as an empty list that passes below."""
    line = "  [11] .bss.st           NOBITS          0000000000044970 054924 000100 00  WA  0   0  8"
    m = SECTION_LINE.match(line)
    assert m and m.groups() == (".bss.st", "0000000000044970", "000100", "WA")


def packed(arch):
    """Whether the CPU's .efi is packed (its make file sets FW_PACK := yes; docs/hacking.md, "Image size")."""
    with open(os.path.join(ROOT, "mk", "%s.mk" % arch)) as fh:
        return re.search(r"^FW_PACK\s*:?=\s*yes\s*$", fh.read(), re.M) is not None


def memory_bytes(packed_bin):
    """The memory the packed .efi's start-up program allocates for the image (efi/unpack/packed_image.h)."""
    header, _block = efi_files.lz_pack.read_packed(packed_bin)
    assert header["magic"] == efi_files.lz_pack.PACKED_MAGIC, "not a packed image: %s" % packed_bin
    return header["memory_bytes"]


def loaded_images(arch):
    """[(what, ELF, the bytes the program is given)]: the firmware's ELF in the .efi the loader maps;
    when packed, that ELF in the plain .efi and in the memory the start-up program allocates, and the
    start-up program's ELF in the packed .efi."""
    out = os.path.join(ROOT, "build", arch)
    so, efi = os.path.join(out, "baremetric.so"), os.path.join(out, "baremetric.efi")
    if not packed(arch):
        return [("the .efi", so, lambda: efi_files.size_of_image(efi))]
    plain, unpack_so = os.path.join(out, "baremetric-plain.efi"), os.path.join(out, "unpack.so")
    return [("the plain .efi", so, lambda: efi_files.size_of_image(plain)),
            ("the unpacked image's memory", so, lambda: memory_bytes(os.path.join(out, "packed.bin"))),
            ("the packed .efi", unpack_so, lambda: efi_files.size_of_image(efi))]


@pytest.mark.parametrize("arch", sorted(BUILDS))
def test_every_used_section_is_inside_the_image(arch):
    for what, so, limit_of in loaded_images(arch):
        if not os.path.exists(so):
            pytest.fail("%s is missing: run `make ARCH=%s` (make integration does)" % (so, arch))
        limit = limit_of()
        sections = allocated_sections(BUILDS[arch], so)
        assert any(name == ".text" for name, _a, _s in sections), sections
        outside = ["%s at 0x%x..0x%x" % (name, addr, addr + size) for name, addr, size in sections
                   if name not in UNUSED_AT_RUN_TIME and addr + size > limit]
        assert not outside, "%s, %s: sections beyond the loaded image (0x%x bytes): %s" % (
            arch, what, limit, ", ".join(outside))
