#!/bin/sh
# Build a GPT disk image with one FAT32 EFI system partition holding EFI/BOOT/BOOTX64.EFI (or the
# removable-media name given: BOOTAA64.EFI for AArch64) and, beside it, EFI/BOOT/baremetric.cfg,
# the commented config template (docs/baremetric.cfg, made by scripts/gen_docs.py: as it is it
# changes nothing; the firmware reads it from the folder it was loaded from), without root or loop
# devices (sgdisk + mtools), ready to dd onto a USB stick. Each further PATH=FILE copies FILE to
# PATH in the partition (a folder the image already has: the root or EFI/BOOT): the shim stick's
# other files (make SHIM=1). At the root, startup.nsh: a firmware that starts its UEFI Shell instead
# of the stick (AAVMF did, in 1 boot of 3, when the stick sat behind a hub and was not yet listed;
# machines whose only boot option is the shell) runs it, and it starts the boot file of the first
# file system that holds our EFI/BOOT/baremetric.cfg beside it.
# Usage: scripts/mkimage.sh APP.EFI OUT.img [SIZE_MIB [BOOT_NAME [PATH=FILE ...]]]
#
# Layout (512-byte sectors): protective MBR + primary GPT in sectors 0-33, the partition from
# 1 MiB (sector 2048) to the last 1 MiB boundary before the backup GPT (the image's last 33
# sectors), the FAT32 file system exactly as large as the partition, its BPB hidden-sectors
# field = the partition's start LBA. tests/python/test_image.py checks all of it.
set -eu

efi="$1"
out="$2"
size_mib="${3:-64}"
boot_name="${4:-BOOTX64.EFI}"
config="${MKIMAGE_TEMPLATE:-$(dirname "$0")/../docs/baremetric.cfg}" # the environment: for tests
if [ $# -gt 4 ]; then shift 4; else shift $#; fi

SECTOR=512
MIB_SECTORS=2048          # sectors per MiB: the alignment of the partition's start and end
GPT_BACKUP_SECTORS=33     # backup header + 32 sectors of partition entries at the disk's end
FAT32_MIN_SECTORS=67584   # 33 MiB: >= 65525 one-sector clusters plus the FATs and reserved area

total=$((size_mib * MIB_SECTORS))
part_start=$MIB_SECTORS
# Last sector before a 1 MiB boundary that stays clear of the backup GPT.
part_end=$(( (total - GPT_BACKUP_SECTORS - 1) / MIB_SECTORS * MIB_SECTORS - 1 ))
part_sectors=$((part_end - part_start + 1))
if [ ! -f "$config" ]; then
	echo "mkimage: no config template $config (make docs writes it)" >&2
	exit 1
fi
if [ "$part_sectors" -lt "$FAT32_MIN_SECTORS" ]; then
	echo "mkimage: ${size_mib} MiB is too small for a FAT32 partition (need >= 36 MiB)" >&2
	exit 1
fi

tmp="$out.tmp"
rm -f "$tmp"
# sparse: what no one writes stays a hole (the image is ~1 MB of data; dd writes holes as zeros)
truncate -s "${size_mib}M" "$tmp"
sgdisk --clear --new=1:$part_start:$part_end --typecode=1:ef00 --change-name=1:BAREMETRIC \
	"$tmp" >/dev/null
# mtools addresses the partition as IMAGE@@OFFSET; -T sizes the file system to the partition
# (without it mformat takes the rest of the image, over the backup GPT), -H sets hidden sectors.
# FAT32 needs at least 65525 clusters: 512-byte clusters give ~125000 at 64 MiB.
fs="$tmp@@$((part_start * SECTOR))"
mformat -i "$fs" -F -c 1 -T $part_sectors -H $part_start -v BAREMETRIC ::
mmd -i "$fs" ::/EFI ::/EFI/BOOT
mcopy -i "$fs" "$efi" "::/EFI/BOOT/$boot_name"
mcopy -i "$fs" "$config" ::/EFI/BOOT/baremetric.cfg
for extra in "$@"; do
	mcopy -i "$fs" "${extra#*=}" "::/${extra%%=*}"
done
# The shell's script syntax (UEFI Shell 2.2 specification: for/endfor, if exist/endif, exit /b);
# CRLF line ends as the shell's own scripts use. Written after the extra files: MokManager lists
# the root in directory order, and the shim stick's certificate stays the entry after EFI/.
nsh="$tmp.nsh"
{
	printf '@echo -off\r\n'
	printf '# baremetric (scripts/mkimage.sh): the firmware started its shell, not the stick\r\n'
	printf 'for %%a in fs0 fs1 fs2 fs3 fs4 fs5 fs6 fs7 fs8 fs9 fs10 fs11 fs12 fs13 fs14 fs15\r\n'
	printf '  if exist %%a:\\EFI\\BOOT\\baremetric.cfg then\r\n'
	printf '    if exist %%a:\\EFI\\BOOT\\%s then\r\n' "$boot_name"
	printf '      echo "baremetric: the firmware started its shell; starting %%a:\\EFI\\BOOT\\%s"\r\n' "$boot_name"
	printf '      %%a:\\EFI\\BOOT\\%s\r\n' "$boot_name"
	printf '      exit /b\r\n'
	printf '    endif\r\n'
	printf '  endif\r\n'
	printf 'endfor\r\n'
	printf 'echo "baremetric: no file system holds EFI\\BOOT\\baremetric.cfg and %s"\r\n' "$boot_name"
} >"$nsh"
mcopy -i "$fs" "$nsh" ::/startup.nsh
rm -f "$nsh"
mv "$tmp" "$out"
