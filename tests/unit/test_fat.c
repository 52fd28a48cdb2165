/* Tests for the FAT reader (drivers/storage/fat.c, fat_dir.c) on images made by mkfs.fat and
 * mtools (tests/unit/fat_fixtures.sh, run by `make unit`; loaded by fat_image.c). Expectations come
 * from the tools, not from the reader: each file's cluster runs from `mshowfat`, its content from
 * the source file mcopy copied, the tree from the script. Every image is read with 512- and (where
 * its clusters allow) 4096-byte blocks, a volume at block 0 and one at 1 MiB. A missing fixture
 * fails the test. Corrupt volumes: test_fat_corrupt.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/storage/fat.h"
#include "tests/unit/fat_image.h"
#include "test.h"

/* ---- a file: lookup, extents against mshowfat, content against the source ---- */

static void check_file(struct fat_img *im, const char *path, const char *src, unsigned min_runs)
{
	const struct fat_fixture *fx = im->fx;
	struct fat_run runs[FAT_MAX_RUNS];
	struct fat_extent ext[FAT_MAX_EXTENTS];
	struct fat_file f;
	uint64_t cb = fx->cluster_bytes / fx->block_size, got = 0;
	unsigned nr = fat_fx_runs(fx->chains, path, runs, FAT_MAX_RUNS), n = 99;
	size_t src_size;
	uint8_t *want = fat_fx_load(src, &src_size);
	int rc;

	int failed = test_failed_checks;

	rc = fat_lookup(&im->v, path, &f);
	CHECK_EQ_U64(rc, 0);
	if (rc || !want) {
		test_note("%s, block %u: %s: %s", fx->img, fx->block_size, path, fat_error(&im->v));
		free(want);
		return;
	}
	CHECK_EQ_U64(f.size, src_size);
	CHECK(!(f.attr & FAT_ATTR_DIRECTORY));
	CHECK_EQ_U64(f.first_cluster, nr ? runs[0].first : 0);
	rc = fat_extents(&im->v, &f, ext, FAT_MAX_EXTENTS, &n);
	CHECK_EQ_U64(rc, 0);
	CHECK(nr >= min_runs);
	CHECK_EQ_U64(n, nr);
	for (unsigned i = 0; rc == 0 && i < n && i < nr; i++) {
		CHECK_EQ_U64(ext[i].blocks, runs[i].count * cb);
		CHECK_EQ_U64(ext[i].lba - ext[0].lba, (uint64_t)(runs[i].first - runs[0].first) * cb);
		/* The content: the extents' blocks, in order, are the file. */
		for (uint64_t b = 0; b < ext[i].blocks && got < src_size; b++, got += fx->block_size) {
			size_t len = src_size - got < fx->block_size ? src_size - got : fx->block_size;
			uint64_t at = (ext[i].lba + b) * fx->block_size;

			if (at + len > im->d.size || memcmp(im->d.data + at, want + got, len) != 0) {
				test_fail(__FILE__, __LINE__, "content differs at byte %llu", (unsigned long long)got);
				i = n;
				break;
			}
		}
	}
	CHECK(got >= src_size);
	if (test_failed_checks != failed)
		test_note("%s, block %u: %s: %s", fx->img, fx->block_size, path, fat_error(&im->v));
	free(want);
}

static void files_and_extents(void)
{
	for (unsigned i = 0; i < FAT_N_FIXTURES; i++) {
		struct fat_img im;

		if (fat_img_open(&im, &fat_fixtures[i]))
			continue;
		CHECK_EQ_U64(im.v.type, fat_fixtures[i].type);
		CHECK_EQ_U64(im.v.bytes_per_sec, fat_fixtures[i].sector_bytes);
		CHECK_EQ_U64(im.v.sec_per_clus * im.v.bytes_per_sec, fat_fixtures[i].cluster_bytes);
		/* BIG.BIN went into the gaps the deleted fillers left: fragmented, several runs. */
		check_file(&im, "/BIG.BIN", "src/big.bin", 5);
		check_file(&im, "/BAREMETRIC/RUN_000.LOG", "src/run.log", 1);
		check_file(&im, "/BAREMETRIC/run_007.log", "src/run.log", 1);
		check_file(&im, "/Sub Dir/Deeper Level/A Long File Name.txt", "src/long.txt", 1);
		fat_img_close(&im);
	}
}

/* FAT12: BIG.BIN's chain crosses clusters 341 and 682, whose 12-bit entries straddle two FAT
 * sectors (bytes 511-512, 1023-1024); its content compared above proves the crossing was read. */
static void fat12_straddles(void)
{
	struct fat_run runs[FAT_MAX_RUNS];
	unsigned n = fat_fx_runs("fat12.chains", "/BIG.BIN", runs, FAT_MAX_RUNS), seen = 0;

	for (unsigned i = 0; i < n; i++)
		for (uint32_t c = 341; c <= 682; c += 341)
			seen += c >= runs[i].first && c + 1 < runs[i].first + runs[i].count;
	CHECK_EQ_U64(seen, 2);
}

static void lookup_names(void)
{
	static const char *const same[] = {
		"\\BAREMETRIC\\RUN_007.LOG", "/baremetric/run_007.log", "BaReMeTrIc\\Run_007.Log",
		"//BAREMETRIC//RUN_007.LOG",
	};
	struct fat_img im;
	struct fat_file f, g;

	if (fat_img_open(&im, &fat_fixtures[0]))
		return;
	CHECK_EQ_U64(fat_lookup(&im.v, "/BAREMETRIC/run_007.log", &f), 0);
	for (unsigned i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		memset(&g, 0, sizeof(g));
		CHECK_EQ_U64(fat_lookup(&im.v, same[i], &g), 0);
		CHECK_EQ_U64(g.first_cluster, f.first_cluster);
	}
	/* Long names by their 8.3 aliases too (mtools' numeric tails, as `mdir` shows them). */
	CHECK_EQ_U64(fat_lookup(&im.v, "/SUBDIR~1/DEEPER~1/ALONGF~1.TXT", &g), 0);
	CHECK_EQ_U64(fat_lookup(&im.v, "/sub dir/DEEPER LEVEL/a long file name.TXT", &f), 0);
	CHECK_EQ_U64(g.first_cluster, f.first_cluster);
	CHECK_EQ_U64(fat_lookup(&im.v, "/BAREMETRIC", &f), 0);
	CHECK(f.attr & FAT_ATTR_DIRECTORY);
	CHECK_EQ_U64(fat_lookup(&im.v, "\\", &f), 0);
	CHECK(f.attr & FAT_ATTR_DIRECTORY);

	CHECK_EQ_U64(fat_lookup(&im.v, "/BAREMETRIC/RUN_999.LOG", &f), FAT_ERR_NOT_FOUND);
	CHECK(strstr(fat_error(&im.v), "no such") != NULL);
	CHECK_EQ_U64(fat_lookup(&im.v, "/BAREMETRIC/RUN_000.LO", &f), FAT_ERR_NOT_FOUND);
	CHECK_EQ_U64(fat_lookup(&im.v, "/BAREMETRIC/RUN_000.LOGX", &f), FAT_ERR_NOT_FOUND);
	CHECK_EQ_U64(fat_lookup(&im.v, "/F1.DAT", &f), FAT_ERR_NOT_FOUND); /* deleted (0xE5) */
	CHECK_EQ_U64(fat_lookup(&im.v, "/F2.DAT", &f), 0);
	CHECK_EQ_U64(fat_lookup(&im.v, "/BAREMETRIC/RUN_000.LOG/X", &f), FAT_ERR_NOT_FOUND);
	CHECK(strstr(fat_error(&im.v), "not a directory") != NULL);
	CHECK_EQ_U64(fat_lookup(&im.v, "/BAREMETRIC/.", &f), FAT_ERR_NOT_FOUND);
	fat_img_close(&im);
}


static void list_dir(void)
{
	static const char *const runs[] = { "RUN_000.LOG", "RUN_001.LOG", "RUN_002.LOG", "RUN_003.LOG",
					    "RUN_004.LOG", "run_007.log" };
	for (unsigned k = 0; k < FAT_N_FIXTURES; k++) {
		struct fat_img im;
		struct fat_listing *l = calloc(1, sizeof(*l));
		int failed;

		if (!l || fat_img_open(&im, &fat_fixtures[k])) {
			free(l);
			continue;
		}
		failed = test_failed_checks;
		l->reenter = &im.v;
		CHECK_EQ_U64(fat_list_dir(&im.v, "\\BAREMETRIC", fat_fx_list_fn, l), 0);
		CHECK_EQ_U64(l->n, 6); /* no "." or ".." */
		CHECK_EQ_U64(l->reentered, 6);
		for (unsigned i = 0; i < 6; i++)
			CHECK_EQ_U64(fat_fx_listed(l, runs[i]), 1);

		memset(l, 0, sizeof(*l));
		CHECK_EQ_U64(fat_list_dir(&im.v, "/Sub Dir", fat_fx_list_fn, l), 0);
		CHECK_EQ_U64(l->n, 1);
		CHECK_EQ_U64(fat_fx_listed(l, "Deeper Level"), 1);
		CHECK_EQ_U64(l->dirs, 1);
		CHECK(fat_list_dir(&im.v, "/BIG.BIN", fat_fx_list_fn, l) == FAT_ERR_NOT_FOUND);
		if (test_failed_checks != failed)
			test_note("%s, block %u", fat_fixtures[k].img, fat_fixtures[k].block_size);
		free(l);
		fat_img_close(&im);
	}
}

/* The root of fat12.img: the two directories, BIG.BIN and the even fillers F2 .. F60; no
 * volume label ("BAREMETRIC", a root entry too), no deleted odd fillers. */
static void list_root(void)
{
	struct fat_listing *l = calloc(1, sizeof(*l));
	struct fat_img im;
	char name[16];

	if (!l || fat_img_open(&im, &fat_fixtures[0])) {
		free(l);
		return;
	}
	CHECK_EQ_U64(fat_list_dir(&im.v, "", fat_fx_list_fn, l), 0);
	CHECK_EQ_U64(l->n, 3 + 30);
	CHECK_EQ_U64(l->dirs, 2);
	CHECK_EQ_U64(fat_fx_listed(l, "BAREMETRIC"), 1);
	CHECK_EQ_U64(fat_fx_listed(l, "Sub Dir"), 1);
	CHECK_EQ_U64(fat_fx_listed(l, "BIG.BIN"), 1);
	for (unsigned i = 1; i <= 60; i++) {
		snprintf(name, sizeof(name), "F%u.DAT", i);
		CHECK_EQ_U64(fat_fx_listed(l, name), i % 2 == 0);
	}
	free(l);
	fat_img_close(&im);
}

/* Mount and reader failures; the 512-byte clusters of fat32.img on a 4096-byte-block device. */
static void mount_and_limits(void)
{
	struct fat_img im;
	struct fat_file f;
	struct fat_extent e[2];
	unsigned n = 5;
	struct fat_fixture fx32_4k = fat_fixtures[5];

	/* fat16.img's volume is at 1 MiB: at block 0 there is no boot sector. */
	if (fat_img_load(&im, &fat_fixtures[1]) == 0) {
		CHECK_EQ_U64(fat_mount(&im.v, &im.r, 0, im.scratch, sizeof(im.scratch)), FAT_ERR_FORMAT);
		CHECK_EQ_U64(fat_mount(&im.v, &im.r, 2048, im.scratch, 256), FAT_ERR_ARG);
		im.d.fail_from = 1;
		CHECK_EQ_U64(fat_img_mount(&im), FAT_ERR_IO);
		CHECK(strstr(fat_error(&im.v), "read") != NULL);
		CHECK_EQ_U64(fat_lookup(&im.v, "/BIG.BIN", &f), FAT_ERR_ARG); /* not mounted */
		im.d.fail_from = 0;
		CHECK_EQ_U64(fat_img_mount(&im), 0);
		im.d.fail_from = im.d.reads;
		CHECK_EQ_U64(fat_lookup(&im.v, "/BAREMETRIC/RUN_000.LOG", &f), FAT_ERR_IO);
		im.d.fail_from = 0;
		CHECK_EQ_U64(fat_lookup(&im.v, "/BIG.BIN", &f), 0);
		CHECK_EQ_U64(fat_extents(&im.v, &f, e, 2, &n), FAT_ERR_LIMIT); /* fragmented: > 2 */
		CHECK_EQ_U64(n, 0);
		fat_img_close(&im);
	}
	fx32_4k.block_size = 4096;
	if (fat_img_open(&im, &fx32_4k) == 0) {
		CHECK_EQ_U64(fat_lookup(&im.v, "/BAREMETRIC/RUN_000.LOG", &f), 0);
		CHECK_EQ_U64(f.size, 20000);
		CHECK_EQ_U64(fat_extents(&im.v, &f, e, 2, &n), FAT_ERR_LIMIT);
		CHECK(strstr(fat_error(&im.v), "device blocks") != NULL);
		fat_img_close(&im);
	}
}

TEST_SUITE(fat) = {
	{ "files_and_extents", files_and_extents },
	{ "fat12_straddles", fat12_straddles },
	{ "lookup_names", lookup_names },
	{ "list_dir", list_dir },
	{ "list_root", list_root },
	{ "mount_and_limits", mount_and_limits },
	{ 0, 0 },
};
