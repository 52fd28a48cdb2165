/* What the FAT reader's tests share (tests/unit/test_fat.c, test_fat_corrupt.c): the images
 * tests/unit/fat_fixtures.sh makes with mkfs.fat and mtools (in build/host/fat/, or the folder
 * $BAREMETRIC_FAT_FIXTURES names), loaded into memory and read through a struct blk_reader; each
 * file's cluster runs as `mshowfat` states them; little-endian fields for patching an image. */
#ifndef TESTS_UNIT_FAT_IMAGE_H
#define TESTS_UNIT_FAT_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "drivers/storage/fat.h"

#define FAT_MAX_RUNS 64
#define FAT_MAX_EXTENTS 64

/* A block device over an image in memory. */
struct fat_disk {
	uint8_t *data;
	size_t size;
	unsigned reads;
	unsigned fail_from; /* reads after this many fail (0: never) */
};

/* A fixture: the image, how it is read, and what mkfs.fat was told. */
struct fat_fixture {
	const char *img, *chains;
	uint32_t block_size;
	uint64_t part_lba;      /* where the script put the volume, in this block size */
	uint32_t cluster_bytes; /* -S x -s */
	uint32_t sector_bytes;  /* -S */
	unsigned type;          /* -F */
};

#define FAT_N_FIXTURES 6
/* fat12 (512 blocks); fat16 at 1 MiB (512 and 4096 blocks); fat16_4k (4096 and 512 blocks); fat32. */
extern const struct fat_fixture fat_fixtures[FAT_N_FIXTURES];

/* A loaded image and its volume (keep it in place: the volume points at its reader). */
struct fat_img {
	struct fat_disk d;
	struct blk_reader r;
	struct fat_vol v;
	uint8_t scratch[FAT_SCRATCH_MAX];
	const struct fat_fixture *fx;
};

/* A fixture file into malloc'ed memory (NUL-terminated); NULL and a failed check if absent. */
uint8_t *fat_fx_load(const char *name, size_t *size);

/* Load the fixture's image (not mounted): 0, or -1 with a failed check. */
int fat_img_load(struct fat_img *im, const struct fat_fixture *fx);
/* fat_mount at the fixture's place with the image's scratch buffer. */
int fat_img_mount(struct fat_img *im);
/* Load and mount: 0, or nonzero with a failed check. */
int fat_img_open(struct fat_img *im, const struct fat_fixture *fx);
void fat_img_close(struct fat_img *im);

/* A run of consecutive clusters, as `mshowfat` prints "<first-last>". */
struct fat_run {
	uint32_t first, count;
};

/* The runs of path ("/DIR/FILE") in the fixture's .chains file (mshowfat output): their count. */
unsigned fat_fx_runs(const char *chains, const char *path, struct fat_run *runs, unsigned max);

/* fat_list_dir's names, collected by fat_fx_list_fn. */
#define FAT_LISTING_MAX 80
struct fat_listing {
	char names[FAT_LISTING_MAX][FAT_NAME_MAX];
	unsigned n, dirs;
	struct fat_vol *reenter; /* if set, each file's extents are read from inside the callback */
	unsigned reentered;
};
void fat_fx_list_fn(const char *name, const struct fat_file *f, void *ctx);
/* How many times name was listed. */
int fat_fx_listed(const struct fat_listing *l, const char *name);

/* Little-endian fields of `bytes` bytes, for reading and patching an image. */
uint32_t fat_fx_le(const uint8_t *p, unsigned bytes);
void fat_fx_put(uint8_t *p, uint32_t v, unsigned bytes);

#endif
