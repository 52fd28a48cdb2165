"""The USB image `make image` built (make integration builds it first) against the GPT and FAT
specifications, with the checks of tests/python/test_image.py: partition on 1 MiB boundaries clear
of the backup GPT, FAT32 exactly as large as its partition, BPB hidden sectors = partition start,
`sgdisk -v` and `fsck.fat -n` clean, BOOTX64.EFI present (and equal to the built .efi)."""

import os

import pytest

import test_image

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

IMAGE = os.path.join(ROOT, "build", "x86_64", "baremetric.img")
EFI = os.path.join(ROOT, "build", "x86_64", "baremetric.efi")


def test_built_image_layout(tmp_path):
    if not os.path.exists(IMAGE):
        pytest.fail("%s is missing: run `make image` (make integration does)" % IMAGE)
    with open(EFI, "rb") as fh:
        efi = fh.read()
    test_image.check_image(IMAGE, tmp_path, efi)
