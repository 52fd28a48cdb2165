#!/bin/sh
# Build a GPT disk image with one FAT32 EFI system partition holding EFI/BOOT/BOOTX64.EFI, without
# root or loop devices (sgdisk + mtools), ready to dd onto a USB stick.
# Usage: scripts/mkimage.sh BOOTX64.EFI OUT.img [SIZE_MIB]
set -eu

efi="$1"
out="$2"
size_mib="${3:-64}"
# The partition starts at sector 2048 = 1 MiB; mtools addresses it as IMAGE@@1M.
part_start=2048

tmp="$out.tmp"
rm -f "$tmp"
dd if=/dev/zero of="$tmp" bs=1M count="$size_mib" status=none
sgdisk --clear --new=1:$part_start:0 --typecode=1:ef00 --change-name=1:BAREMETRIC "$tmp" >/dev/null
# FAT32 needs at least 65525 clusters: with 64 MiB and 512-byte clusters it has ~130000.
mformat -i "$tmp@@1M" -F -c 1 -v BAREMETRIC ::
mmd -i "$tmp@@1M" ::/EFI ::/EFI/BOOT
mcopy -i "$tmp@@1M" "$efi" ::/EFI/BOOT/BOOTX64.EFI
mv "$tmp" "$out"
