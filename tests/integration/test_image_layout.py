"""The USB image `make image` built (make integration builds it first) against the GPT and FAT
specifications, with the checks of tests/python/test_image.py: partition on 1 MiB boundaries clear
of the backup GPT, FAT32 exactly as large as its partition, BPB hidden sectors = partition start,
`sgdisk -v` and `fsck.fat -n` clean, BOOTX64.EFI present (and equal to the built .efi); and the
image's startup.nsh, which starts the firmware when OVMF starts its UEFI Shell instead (a boot)."""

import os
import subprocess

import pytest

import test_image
from bmharness.run import qemu
from bmharness.stream import parse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

IMAGE = os.path.join(ROOT, "build", "x86_64", "baremetric.img")
EFI = os.path.join(ROOT, "build", "x86_64", "baremetric.efi")


def test_built_image_layout(tmp_path):
    if not os.path.exists(IMAGE):
        pytest.fail("%s is missing: run `make image` (make integration does)" % IMAGE)
    with open(EFI, "rb") as fh:
        efi = fh.read()
    test_image.check_image(IMAGE, tmp_path, efi)


# The image's startup.nsh (scripts/mkimage.sh), for firmware that starts its UEFI Shell instead of
# the stick: an image whose boot file has another name than the removable-media one, so OVMF's boot
# manager finds nothing to boot on the stick and starts its shell, which runs the script.
SHELL_BOOT_NAME = "BM.EFI"
SHELL_STARTED = b'BdsDxe: starting Boot'
SHELL_NAME = b'"EFI Internal Shell"'
SCRIPT_SAYS = b"baremetric: the firmware started its shell; starting fs"
# save=off: the shell and the stick's start are tested, not saving (configs.py SAVES: ~1.5 s of a
# short TCG boot goes to the stick's settle time and the log's pre-allocation)
QUICK = {"probes": "timer", "timer_samples": 64, "save": "off"}


def test_shell_starts_the_stick(tmp_path):
    if not os.path.exists(EFI):
        pytest.fail("%s is missing: run `make` (make integration does)" % EFI)
    image = str(tmp_path / "shell.img")
    subprocess.run(["sh", test_image.MKIMAGE, EFI, image, "64", SHELL_BOOT_NAME], check=True)
    run = qemu.run_qemu(str(tmp_path / "boot"), image=image, settings=dict(QUICK))
    with open(run["serial_log"], "rb") as fh:
        log = fh.read()
    started = [line for line in log.split(b"\n") if SHELL_STARTED in line]
    assert started and SHELL_NAME in started[-1], "the boot manager did not start its shell:\n%r" % log[-3000:]
    assert SCRIPT_SAYS in log, "startup.nsh did not run:\n%r" % log[-3000:]
    summary = parse.parse_log(run["serial_log"])
    assert summary["end"] is not None and summary["end"]["status"] == "ok", log[-3000:]
