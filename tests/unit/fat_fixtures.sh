#!/bin/sh
# The FAT reader's test images (tests/unit/test_fat.c), made by the real tools: mkfs.fat
# (dosfstools) formats, mtools writes files and directories, and `mshowfat` states each file's
# cluster chain, which the tests compare with the reader's extents. Run by the Makefile's unit rule.
# Usage: tests/unit/fat_fixtures.sh OUTDIR
#
# OUTDIR/<name>.img     the image; <name>.chains: `mshowfat` of the files listed below
# OUTDIR/src/           the files copied in (their content is unique per 7-byte line, so a block
#                       read from the wrong place never compares equal)
#
#   fat12.img     FAT12, 512-byte sectors, 1 sector per cluster (a 1.44 MB floppy), volume label;
#                 BIG.BIN written into the gaps left by deleting every other filler file, across
#                 FAT sector boundaries (a 12-bit entry straddles them)
#   fat16.img     FAT16, 512-byte sectors, 8 per cluster, at 1 MiB into the image (a partition
#                 at block 2048, or 256 in 4096-byte blocks); fragmented BIG.BIN the same way
#   fat16_4k.img  FAT16 with 4096-byte sectors
#   fat32.img     FAT32, 512-byte sectors, 1 per cluster; FSInfo's next-free hint cleared so
#                 mtools fills the gaps (it would append otherwise)
# Every image has \BAREMETRIC\ with RUN_000.LOG .. RUN_004.LOG and run_007.log (lower case: an
# 8.3 name with the NT case flags, no long name), and "Sub Dir/Deeper Level/A Long File Name.txt".
set -eu

out=${1:?usage: $0 OUTDIR}
rm -rf "$out"
mkdir -p "$out/src"
export MTOOLS_SKIP_CHECK=1 MTOOLS_NO_VFAT=0

# A file of $2 bytes whose 7-byte lines ("0000001\n" ...) start at $3: unique content.
mkfile() {
	seq -w "$3" 9999999 | head -c "$2" >"$1"
}

mkfile "$out/src/run.log" 20000 1
mkfile "$out/src/long.txt" 5000 100000
mkfile "$out/src/big.bin" 400000 200000
mkfile "$out/src/filler" 20000 300000

# populate IMG FILLER_COUNT: the common tree, then fillers, every other one deleted, then BIG.BIN.
populate() {
	img=$1
	mmd -i "$img" ::/BAREMETRIC "::/Sub Dir" "::/Sub Dir/Deeper Level"
	for i in 0 1 2 3 4; do
		mcopy -i "$img" "$out/src/run.log" "::/BAREMETRIC/RUN_00$i.LOG"
	done
	mcopy -i "$img" "$out/src/run.log" ::/BAREMETRIC/run_007.log
	mcopy -i "$img" "$out/src/long.txt" "::/Sub Dir/Deeper Level/A Long File Name.txt"
	i=1
	while [ "$i" -le "$2" ]; do
		mcopy -i "$img" "$out/src/filler" "::/F$i.DAT"
		i=$((i + 1))
	done
	i=1
	while [ "$i" -le "$2" ]; do
		mdel -i "$img" "::/F$i.DAT"
		i=$((i + 2))
	done
	[ -n "${3:-}" ] && $3
	mcopy -i "$img" "$out/src/big.bin" ::/BIG.BIN
	mshowfat -i "$img" ::/BIG.BIN ::/BAREMETRIC ::/BAREMETRIC/RUN_000.LOG ::/BAREMETRIC/run_007.log \
		"::/Sub Dir/Deeper Level/A Long File Name.txt" >"$out/$(basename "${img%%@@*}" .img).chains"
}

# FAT32: FSInfo's FSI_Nxt_Free (byte 492 of the sector BPB_FSInfo, offset 48, names) set to
# 0xFFFFFFFF, "no hint" (spec: "FAT32 FSInfo Sector Structure"), so the next file fills the gaps.
clear_fsinfo_hint() {
	fsinfo=$(od -An -tu2 -j48 -N2 "$out/fat32.img" | tr -d ' ')
	printf '\377\377\377\377' | dd of="$out/fat32.img" bs=1 seek=$((fsinfo * 512 + 492)) conv=notrunc 2>/dev/null
}

mkfs.fat -C -F 12 -S 512 -s 1 -n BAREMETRIC --invariant "$out/fat12.img" 1440 >/dev/null
populate "$out/fat12.img" 60

truncate -s 21M "$out/fat16.img"
mkfs.fat -F 16 -S 512 -s 8 --offset 2048 --invariant "$out/fat16.img" 20480 >/dev/null
populate "$out/fat16.img@@1M" 40

mkfs.fat -C -F 16 -S 4096 -s 1 --invariant "$out/fat16_4k.img" 20000 >/dev/null
populate "$out/fat16_4k.img" 10

mkfs.fat -C -F 32 -S 512 -s 1 --invariant "$out/fat32.img" 40000 >/dev/null
populate "$out/fat32.img" 20 clear_fsinfo_hint
