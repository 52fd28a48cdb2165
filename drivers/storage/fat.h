/* A read-only FAT12/16/32 reader over a block device, CPU-neutral and freestanding (no allocation,
 * every loop bounded). Its use: before ExitBootServices the firmware creates its run log through
 * UEFI's file protocol, pre-allocated, then finds the file here, over the same disk's BlockIo, and
 * turns its cluster chain into a list of device LBA extents; after ExitBootServices its own
 * mass-storage driver writes only inside that list. So the reader trusts nothing on the disk: the
 * boot sector is validated, the FAT type is decided by the cluster count (not by the label), and
 * a chain that is free, bad, out of range, a cycle, or not exactly as long as the file's size
 * needs is an error with a reason (fat_error), never a hang.
 *
 * Sizes: a FAT sector (512..4096 bytes) may differ from the device's block; both ways work for
 * reading, and fat_extents needs each cluster to start and end on a device block boundary.
 * Names: paths take '\' or '/', match long (VFAT) and 8.3 names case-insensitively, ASCII only
 * (a long name's other UCS-2 characters become '?'); "." and ".." are not path components.
 * Spec: Microsoft, "FAT: General Overview of On-Disk Format", version 1.03, December 6, 2000
 * (cited by its section headings). */
#ifndef DRIVERS_STORAGE_FAT_H
#define DRIVERS_STORAGE_FAT_H

#include <stddef.h>
#include <stdint.h>

/* Negative returns; fat_error() then says why. */
#define FAT_ERR_ARG (-1)       /* NULL argument, scratch too small, bad block size */
#define FAT_ERR_IO (-2)        /* the block reader failed */
#define FAT_ERR_FORMAT (-3)    /* not a FAT volume this reader accepts (boot sector, BPB) */
#define FAT_ERR_CORRUPT (-4)   /* a cluster chain or directory is inconsistent */
#define FAT_ERR_NOT_FOUND (-5) /* no such path, or a path component is not a directory */
#define FAT_ERR_LIMIT (-6)     /* more extents than the caller's array, or clusters not block aligned */

/* The device: reads `count` blocks of `block_size` bytes from device block `lba` into buf. */
struct blk_reader {
	void *ctx;
	uint32_t block_size; /* 512 or 4096 (any power of two 512..4096): the device's logical block */
	int (*read)(void *ctx, uint64_t lba, uint32_t count, void *buf); /* 0 ok */
};

/* A run of consecutive device blocks; absolute device LBAs, in file order. */
struct fat_extent {
	uint64_t lba;
	uint64_t blocks;
};

/* The largest unit read at once (a 4096-byte sector or block): scratch of this size always does. */
#define FAT_SCRATCH_MAX 4096u

/* A mounted volume; filled by fat_mount, read-only after it but for the scratch cache. */
struct fat_vol {
	const struct blk_reader *r;
	uint8_t type;              /* 12, 16 or 32 */
	uint32_t bytes_per_sec;    /* BPB_BytsPerSec */
	uint32_t sec_per_clus;     /* BPB_SecPerClus */
	uint64_t part_lba;         /* the volume's first device block */
	uint32_t fat_start;        /* the FAT in use, in sectors from the volume's start */
	uint32_t root_start;       /* FAT12/16: the fixed root directory, in sectors */
	uint32_t root_sectors;     /* FAT12/16: its length (0 on FAT32) */
	uint32_t root_cluster;     /* FAT32: the root directory's first cluster (0 on FAT12/16) */
	uint32_t data_start;       /* cluster 2's first sector */
	uint32_t cluster_count;    /* data clusters: valid numbers are 2 .. cluster_count + 1 */
	uint8_t *scratch;          /* caller's buffer, holds one read unit (unit_size bytes) */
	size_t scratch_size;
	uint32_t unit_size;        /* max(bytes_per_sec, block_size): what one cache fill reads */
	uint64_t cached_unit;      /* which unit scratch holds; valid only if cache_valid */
	int cache_valid;
	const char *error;         /* the last failure's reason, "" if none */
};

/* A file or directory as its directory entry describes it (spec: "FAT Directory Structure"). */
#define FAT_ATTR_READ_ONLY 0x01
#define FAT_ATTR_HIDDEN 0x02
#define FAT_ATTR_SYSTEM 0x04
#define FAT_ATTR_VOLUME_ID 0x08
#define FAT_ATTR_DIRECTORY 0x10
#define FAT_ATTR_ARCHIVE 0x20

struct fat_file {
	uint32_t first_cluster; /* 0: no clusters (empty file), or the root directory */
	uint32_t size;          /* bytes; 0 for directories */
	uint8_t attr;           /* FAT_ATTR_* */
};

/* Longest name handed to fat_list_dir's callback (a long name's 255 characters, NUL). */
#define FAT_NAME_MAX 256

/* Mount the FAT volume whose boot sector is device block part_lba. scratch: at least
 * max(block size, the volume's sector size) bytes (FAT_SCRATCH_MAX always does), kept by the
 * volume until it is no longer used. 0, or a negative FAT_ERR_* (ARG, IO, FORMAT). */
int fat_mount(struct fat_vol *v, const struct blk_reader *r, uint64_t part_lba, void *scratch,
	      size_t scratch_size);

/* Find a path like "\\BAREMETRIC\\RUN_007.LOG" (or with '/'; "" or "\\" is the root directory).
 * 0 and *f filled, or a negative FAT_ERR_* (NOT_FOUND, IO, CORRUPT). */
int fat_lookup(struct fat_vol *v, const char *path, struct fat_file *f);

/* The file's clusters as device extents, consecutive clusters merged, *n of them written to out.
 * A file's chain must be exactly as long as its size needs; a directory's whole chain is given.
 * 0, or a negative FAT_ERR_*: CORRUPT (a free, bad, reserved or out-of-range cluster, a chain
 * shorter or longer than the size, a cycle), LIMIT (more than max extents; clusters that do not
 * start and end on device blocks), IO. *n is 0 on failure. */
int fat_extents(struct fat_vol *v, const struct fat_file *f, struct fat_extent *out, unsigned max,
		unsigned *n);

/* Call fn for every entry of the directory at path, in directory order, with its long name if it
 * has a valid one, else its 8.3 name ("NAME.EXT", lower case where the entry says so); "." and
 * "..", volume labels, deleted entries and orphaned long-name parts are left out. fn may call the
 * reader again on the same volume. 0, or a negative FAT_ERR_* (NOT_FOUND also when path is a
 * file; IO; CORRUPT). */
int fat_list_dir(struct fat_vol *v, const char *path,
		 void (*fn)(const char *name, const struct fat_file *f, void *ctx), void *ctx);

/* The reason of the volume's last failure, "" if there was none. */
const char *fat_error(const struct fat_vol *v);

#endif
