/* Tests for the FAT reader (drivers/storage/fat.c, fat_dir.c) on damaged volumes: the images of
 * tests/unit/fat_fixtures.sh loaded (fat_image.c) and patched here, through this file's own
 * reading of the boot sector and FAT (offsets from the spec, "FAT: General Overview of On-Disk
 * Format" 1.03), never the reader's. Each damage must give an error with its reason, never a
 * hang or a read outside the image. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/storage/fat.h"
#include "tests/unit/fat_image.h"
#include "test.h"

/* The FAT entry of `cluster` in a FAT16 or FAT32 image: BPB_BytsPerSec (offset 11) and
 * BPB_RsvdSecCnt (14) place the first FAT. */
static uint8_t *fat_slot(struct fat_img *im, uint32_t cluster, unsigned bytes)
{
	uint8_t *bs = im->d.data + im->fx->part_lba * im->fx->block_size;

	return bs + fat_fx_le(bs + 14, 2) * fat_fx_le(bs + 11, 2) + (size_t)cluster * bytes;
}

/* RUN_000.LOG in fat16.img with its FAT entry at cluster index `at` of its chain set to val,
 * (or, at < 0, nothing changed): fat_extents' result, *why its reason. */
static int patched_run000(int at, uint32_t val, const char **why)
{
	static struct fat_img im;
	struct fat_run runs[1];
	struct fat_extent ext[FAT_MAX_EXTENTS];
	struct fat_file f;
	unsigned n = 77;
	int rc = -100;

	*why = "";
	if (fat_fx_runs("fat16.chains", "/BAREMETRIC/RUN_000.LOG", runs, 1) != 1 || fat_img_load(&im, &fat_fixtures[1]))
		return rc;
	if (at >= 0)
		fat_fx_put(fat_slot(&im, runs[0].first + (uint32_t)at, 2), val, 2);
	if (fat_img_mount(&im) == 0 && fat_lookup(&im.v, "/BAREMETRIC/RUN_000.LOG", &f) == 0) {
		rc = fat_extents(&im.v, &f, ext, FAT_MAX_EXTENTS, &n);
		*why = fat_error(&im.v);
		if (rc)
			CHECK_EQ_U64(n, 0);
	}
	fat_img_close(&im);
	return rc;
}

static void corrupt_chains(void)
{
	struct fat_run runs[1];
	const char *why;
	uint32_t first;

	CHECK_EQ_U64(fat_fx_runs("fat16.chains", "/BAREMETRIC/RUN_000.LOG", runs, 1), 1);
	CHECK_EQ_U64(runs[0].count, 5); /* 20000 bytes in 4 KiB clusters */
	first = runs[0].first;
	CHECK_EQ_U64(patched_run000(-1, 0, &why), 0);
	CHECK_EQ_U64(patched_run000(4, first, &why), FAT_ERR_CORRUPT); /* last -> first: a cycle */
	CHECK(strstr(why, "cycle") != NULL);
	CHECK_EQ_U64(patched_run000(1, first + 1, &why), FAT_ERR_CORRUPT); /* a cycle onto itself */
	CHECK(strstr(why, "cycle") != NULL);
	CHECK_EQ_U64(patched_run000(1, 1, &why), FAT_ERR_CORRUPT); /* 1 is no cluster number */
	CHECK(strstr(why, "outside") != NULL);
	CHECK_EQ_U64(patched_run000(2, 0xFFF0, &why), FAT_ERR_CORRUPT); /* reserved, past the last */
	CHECK(strstr(why, "outside") != NULL);
	CHECK_EQ_U64(patched_run000(2, 0xFFFF, &why), FAT_ERR_CORRUPT); /* end of chain too early */
	CHECK(strstr(why, "shorter") != NULL);
	CHECK_EQ_U64(patched_run000(2, 0, &why), FAT_ERR_CORRUPT);
	CHECK(strstr(why, "free") != NULL);
	CHECK_EQ_U64(patched_run000(2, 0xFFF7, &why), FAT_ERR_CORRUPT);
	CHECK(strstr(why, "bad") != NULL);
	CHECK_EQ_U64(patched_run000(4, first + 5, &why), FAT_ERR_CORRUPT); /* into RUN_001's chain */
	CHECK(strstr(why, "longer") != NULL);
}

/* A directory whose chain loops and that has no end marker: the walk ends at 65536 entries. */
static void corrupt_directory_cycle(void)
{
	struct fat_img im;
	struct fat_run dir[1];
	struct fat_listing *l = calloc(1, sizeof(*l));
	uint8_t *d;

	if (!l || fat_fx_runs("fat16.chains", "/BAREMETRIC", dir, 1) != 1 || fat_img_load(&im, &fat_fixtures[1])) {
		free(l);
		CHECK(0);
		return;
	}
	fat_fx_put(fat_slot(&im, dir[0].first, 2), dir[0].first, 2);
	/* The directory's cluster (4 KiB, 4 KiB-aligned in the image): the one holding RUN_000.LOG's
	 * 8.3 entry. Its free entries (first byte 0) become deleted ones (0xE5): no end marker. */
	d = NULL;
	for (size_t off = 0; off + 32 <= im.d.size && !d; off += 32)
		if (memcmp(im.d.data + off, "RUN_000 LOG", 11) == 0)
			d = im.d.data + off / 4096 * 4096;
	CHECK(d != NULL);
	for (unsigned i = 0; d && i < 4096 / 32; i++)
		if (d[32 * i] == 0)
			d[32 * i] = 0xE5;
	if (fat_img_mount(&im) == 0) {
		CHECK_EQ_U64(fat_list_dir(&im.v, "/BAREMETRIC", fat_fx_list_fn, l), FAT_ERR_CORRUPT);
		CHECK(strstr(fat_error(&im.v), "65536") != NULL);
		CHECK(l->n >= 6);
	}
	free(l);
	fat_img_close(&im);
}

/* FAT32 entries are 28 bits: set high bits are ignored, the chain and extents stay the same. */
static void fat32_mask(void)
{
	struct fat_img im;
	struct fat_run runs[1];
	struct fat_extent e1[FAT_MAX_EXTENTS], e2[FAT_MAX_EXTENTS];
	struct fat_file f;
	unsigned n1 = 0, n2 = 0;
	uint8_t *slot;

	if (fat_fx_runs("fat32.chains", "/BAREMETRIC/RUN_000.LOG", runs, 1) != 1 || fat_img_open(&im, &fat_fixtures[5]))
		return;
	CHECK_EQ_U64(fat_lookup(&im.v, "/BAREMETRIC/RUN_000.LOG", &f), 0);
	CHECK_EQ_U64(fat_extents(&im.v, &f, e1, FAT_MAX_EXTENTS, &n1), 0);
	slot = fat_slot(&im, runs[0].first + 3, 4);
	CHECK_EQ_U64(fat_fx_le(slot, 4), runs[0].first + 4);
	fat_fx_put(slot, 0xF0000000u | (runs[0].first + 4), 4);
	CHECK_EQ_U64(fat_img_mount(&im), 0);
	CHECK_EQ_U64(fat_extents(&im.v, &f, e2, FAT_MAX_EXTENTS, &n2), 0);
	CHECK_EQ_U64(n1, 1);
	CHECK_EQ_U64(n2, n1);
	CHECK(memcmp(e1, e2, sizeof(e1[0]) * n1) == 0);
	fat_img_close(&im);
}

/* The boot sector: patched fat12.img copies. */
static int patched_mount(unsigned off, const void *bytes, unsigned len, const char **why)
{
	static struct fat_img im;
	int rc = -100;

	*why = "";
	if (fat_img_load(&im, &fat_fixtures[0]))
		return rc;
	memcpy(im.d.data + off, bytes, len);
	rc = fat_img_mount(&im);
	*why = fat_error(&im.v);
	if (rc == 0)
		CHECK_EQ_U64(im.v.type, 12);
	fat_img_close(&im);
	return rc;
}

static void corrupt_boot_sector(void)
{
	const char *why;

	CHECK_EQ_U64(patched_mount(510, "\x55\xAB", 2, &why), FAT_ERR_FORMAT);
	CHECK(strstr(why, "signature") != NULL);
	CHECK_EQ_U64(patched_mount(11, "\x00\x03", 2, &why), FAT_ERR_FORMAT); /* 768 bytes/sector */
	CHECK(strstr(why, "bytes per sector") != NULL);
	CHECK_EQ_U64(patched_mount(13, "\x03", 1, &why), FAT_ERR_FORMAT); /* 3 sectors/cluster */
	CHECK(strstr(why, "power of two") != NULL);
	CHECK_EQ_U64(patched_mount(0, "\x00", 1, &why), FAT_ERR_FORMAT);
	CHECK_EQ_U64(patched_mount(16, "\x00", 1, &why), FAT_ERR_FORMAT); /* no FAT */
	/* The type is the cluster count's, whatever BS_FilSysType (offset 54) says. */
	CHECK_EQ_U64(patched_mount(54, "FAT32   ", 8, &why), 0);
}

/* The type is decided by the count of data clusters ("FAT Type Determination": fewer than 4085
 * is FAT12, fewer than 65525 FAT16): BPB_TotSec16 (offset 19) or BPB_TotSec32 (32) patched to end
 * the volume right after that many clusters. The data region starts after BPB_RsvdSecCnt (14),
 * BPB_NumFATs (16) times BPB_FATSz16 (22) or BPB_FATSz32 (36), and BPB_RootEntCnt (17) entries. */
static int mount_with_clusters(const struct fat_fixture *fx, uint32_t clusters, unsigned *type)
{
	static struct fat_img im;
	uint8_t *b;
	uint32_t bps, fatsz, data, spc;
	int rc = -100;

	if (fat_img_load(&im, fx))
		return rc;
	b = im.d.data + fx->part_lba * fx->block_size;
	bps = fat_fx_le(b + 11, 2);
	spc = b[13];
	fatsz = fat_fx_le(b + 22, 2) ? fat_fx_le(b + 22, 2) : fat_fx_le(b + 36, 4);
	data = fat_fx_le(b + 14, 2) + b[16] * fatsz + (fat_fx_le(b + 17, 2) * 32 + bps - 1) / bps;
	if (fat_fx_le(b + 19, 2))
		fat_fx_put(b + 19, data + clusters * spc, 2);
	else
		fat_fx_put(b + 32, data + clusters * spc, 4);
	rc = fat_img_mount(&im);
	*type = im.v.type;
	fat_img_close(&im);
	return rc;
}

static void type_by_cluster_count(void)
{
	unsigned type;

	CHECK_EQ_U64(mount_with_clusters(&fat_fixtures[3], 4084, &type), 0);
	CHECK_EQ_U64(type, 12);
	CHECK_EQ_U64(mount_with_clusters(&fat_fixtures[3], 4085, &type), 0);
	CHECK_EQ_U64(type, 16);
	CHECK_EQ_U64(mount_with_clusters(&fat_fixtures[5], 65525, &type), 0);
	CHECK_EQ_U64(type, 32);
	/* One cluster fewer makes it FAT16, which a FAT32 BPB (no root entries, FATSz16 0) is not. */
	CHECK_EQ_U64(mount_with_clusters(&fat_fixtures[5], 65524, &type), FAT_ERR_FORMAT);
}

/* A long name whose parts all carry the same checksum, but not their 8.3 entry's: not used. */
static void lfn_checksum(void)
{
	struct fat_img im;
	struct fat_file f;
	uint8_t *s = NULL;
	struct fat_listing *l = calloc(1, sizeof(*l));

	if (!l || fat_img_load(&im, &fat_fixtures[0])) {
		free(l);
		return;
	}
	for (size_t off = 0; off + 32 <= im.d.size && !s; off += 32)
		if (memcmp(im.d.data + off, "ALONGF~1TXT", 11) == 0)
			s = im.d.data + off;
	CHECK(s != NULL);
	/* The long entries before it: attribute 0x0F at byte 11, checksum at byte 13. */
	for (uint8_t *p = s ? s - 32 : NULL; p && p >= im.d.data && p[11] == 0x0F; p -= 32)
		p[13] ^= 0x5A;
	CHECK_EQ_U64(fat_img_mount(&im), 0);
	CHECK_EQ_U64(fat_lookup(&im.v, "/Sub Dir/Deeper Level/A Long File Name.txt", &f), FAT_ERR_NOT_FOUND);
	CHECK_EQ_U64(fat_lookup(&im.v, "/Sub Dir/Deeper Level/ALONGF~1.TXT", &f), 0);
	CHECK_EQ_U64(fat_list_dir(&im.v, "/Sub Dir/Deeper Level", fat_fx_list_fn, l), 0);
	CHECK_EQ_U64(l->n, 1);
	CHECK_EQ_U64(fat_fx_listed(l, "ALONGF~1.TXT"), 1);
	free(l);
	fat_img_close(&im);
}

TEST_SUITE(fat_corrupt) = {
	{ "corrupt_chains", corrupt_chains },
	{ "corrupt_directory_cycle", corrupt_directory_cycle },
	{ "fat32_mask", fat32_mask },
	{ "corrupt_boot_sector", corrupt_boot_sector },
	{ "type_by_cluster_count", type_by_cluster_count },
	{ "lfn_checksum", lfn_checksum },
	{ 0, 0 },
};
