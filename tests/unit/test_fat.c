/* Tests for the FAT reader (drivers/storage/fat.c, fat_dir.c) on images made by mkfs.fat and
 * mtools (tests/unit/fat_fixtures.sh, run by `make unit` into build/host/fat/, or the folder
 * $BAREMETRIC_FAT_FIXTURES names). Expectations come from the tools, not from the reader: each
 * file's cluster runs from `mshowfat`, its content from the source file mcopy copied, the tree
 * from the script. Corrupt volumes are made here by patching a loaded image through this file's
 * own reading of the boot sector and FAT. A missing fixture fails the test. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/storage/fat.h"
#include "test.h"

#define FIXTURE_DIR_DEFAULT "build/host/fat"
#define MAX_RUNS 64
#define MAX_EXTENTS 64

/* ---- a block device over an image in memory ---- */

struct disk {
	uint8_t *data;
	size_t size;
	unsigned reads;
	unsigned fail_from; /* reads after this many fail (0: never) */
};

static int disk_read(void *ctx, uint64_t lba, uint32_t count, void *buf, uint32_t bs)
{
	struct disk *d = ctx;

	if (d->fail_from && d->reads >= d->fail_from)
		return -1;
	d->reads++;
	if (lba > d->size / bs || count > d->size / bs - lba)
		return -1;
	memcpy(buf, d->data + lba * bs, (size_t)count * bs);
	return 0;
}

static int disk_read512(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	return disk_read(ctx, lba, count, buf, 512);
}

static int disk_read4096(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	return disk_read(ctx, lba, count, buf, 4096);
}

static const char *fixture_dir(void)
{
	const char *d = getenv("BAREMETRIC_FAT_FIXTURES");

	return d && *d ? d : FIXTURE_DIR_DEFAULT;
}

/* A fixture file into malloc'ed memory (NUL-terminated); NULL and a failed check if absent. */
static uint8_t *load(const char *name, size_t *size)
{
	char path[512];
	uint8_t *buf = NULL;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fixture_dir(), name);
	f = fopen(path, "rb");
	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
			buf[n] = 0;
			*size = (size_t)n;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	if (f)
		fclose(f);
	if (!buf)
		test_fail(__FILE__, __LINE__, "fixture %s missing: run `make unit` (tests/unit/fat_fixtures.sh)", path);
	return buf;
}

/* ---- the fixtures: image, how it is read, and what mkfs.fat was told ---- */

struct fixture {
	const char *img, *chains;
	uint32_t block_size;
	uint64_t part_lba;      /* where the script put the volume, in this block size */
	uint32_t cluster_bytes; /* -S x -s */
	uint32_t sector_bytes;  /* -S */
	unsigned type;          /* -F */
};

static const struct fixture fixtures[] = {
	{ "fat12.img", "fat12.chains", 512, 0, 512, 512, 12 },
	{ "fat16.img", "fat16.chains", 512, 2048, 4096, 512, 16 },
	{ "fat16.img", "fat16.chains", 4096, 256, 4096, 512, 16 }, /* 512-byte sectors, 4 KiB blocks */
	{ "fat16_4k.img", "fat16_4k.chains", 4096, 0, 4096, 4096, 16 },
	{ "fat16_4k.img", "fat16_4k.chains", 512, 0, 4096, 4096, 16 }, /* 4 KiB sectors, 512 blocks */
	{ "fat32.img", "fat32.chains", 512, 0, 512, 512, 32 },
};
#define N_FIXTURES (sizeof(fixtures) / sizeof(fixtures[0]))

struct img {
	struct disk d;
	struct blk_reader r;
	struct fat_vol v;
	uint8_t scratch[FAT_SCRATCH_MAX];
	const struct fixture *fx;
};

/* Load the fixture's image; 0 when loaded (not yet mounted). */
static int img_load(struct img *im, const struct fixture *fx)
{
	memset(im, 0, sizeof(*im));
	im->fx = fx;
	im->d.data = load(fx->img, &im->d.size);
	im->r.ctx = &im->d;
	im->r.block_size = fx->block_size;
	im->r.read = fx->block_size == 4096 ? disk_read4096 : disk_read512;
	return im->d.data ? 0 : -1;
}

static int img_mount(struct img *im)
{
	return fat_mount(&im->v, &im->r, im->fx->part_lba, im->scratch, sizeof(im->scratch));
}

/* Load and mount; a failure is a failed check. */
static int img_open(struct img *im, const struct fixture *fx)
{
	int rc;

	if (img_load(im, fx))
		return -1;
	rc = img_mount(im);
	if (rc) {
		test_fail(__FILE__, __LINE__, "%s (block %u): mount %d: %s", fx->img, fx->block_size, rc,
			  fat_error(&im->v));
		free(im->d.data);
		im->d.data = NULL;
	}
	return rc;
}

static void img_close(struct img *im)
{
	free(im->d.data);
	im->d.data = NULL;
}

/* ---- mshowfat's cluster runs: "::/PATH <a-b> <c> ..." ---- */

struct run {
	uint32_t first, count;
};

static unsigned chain_runs(const char *chains, const char *path, struct run *runs, unsigned max)
{
	size_t size, plen = strlen(path);
	char *text = (char *)load(chains, &size), *line, *save = NULL;
	unsigned n = 0;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char *p = line + 2; /* "::" */

		if (strncmp(line, "::", 2) != 0 || strncmp(p, path, plen) != 0 || strncmp(p + plen, " <", 2) != 0)
			continue;
		for (p += plen; (p = strchr(p, '<')) != NULL && n < max; n++) {
			unsigned long a = strtoul(p + 1, &p, 10), b = a;

			if (*p == '-')
				b = strtoul(p + 1, &p, 10);
			runs[n].first = (uint32_t)a;
			runs[n].count = (uint32_t)(b - a + 1);
		}
		break;
	}
	free(text);
	return n;
}

/* ---- a file: lookup, extents against mshowfat, content against the source ---- */

static void check_file(struct img *im, const char *path, const char *src, unsigned min_runs)
{
	const struct fixture *fx = im->fx;
	struct run runs[MAX_RUNS];
	struct fat_extent ext[MAX_EXTENTS];
	struct fat_file f;
	uint64_t cb = fx->cluster_bytes / fx->block_size, got = 0;
	unsigned nr = chain_runs(fx->chains, path, runs, MAX_RUNS), n = 99;
	size_t src_size;
	uint8_t *want = load(src, &src_size);
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
	rc = fat_extents(&im->v, &f, ext, MAX_EXTENTS, &n);
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
	for (unsigned i = 0; i < N_FIXTURES; i++) {
		struct img im;

		if (img_open(&im, &fixtures[i]))
			continue;
		CHECK_EQ_U64(im.v.type, fixtures[i].type);
		CHECK_EQ_U64(im.v.bytes_per_sec, fixtures[i].sector_bytes);
		CHECK_EQ_U64(im.v.sec_per_clus * im.v.bytes_per_sec, fixtures[i].cluster_bytes);
		/* BIG.BIN went into the gaps the deleted fillers left: fragmented, several runs. */
		check_file(&im, "/BIG.BIN", "src/big.bin", 5);
		check_file(&im, "/BAREMETRIC/RUN_000.LOG", "src/run.log", 1);
		check_file(&im, "/BAREMETRIC/run_007.log", "src/run.log", 1);
		check_file(&im, "/Sub Dir/Deeper Level/A Long File Name.txt", "src/long.txt", 1);
		img_close(&im);
	}
}

/* FAT12: BIG.BIN's chain crosses clusters 341 and 682, whose 12-bit entries straddle two FAT
 * sectors (bytes 511-512, 1023-1024); its content compared above proves the crossing was read. */
static void fat12_straddles(void)
{
	struct run runs[MAX_RUNS];
	unsigned n = chain_runs("fat12.chains", "/BIG.BIN", runs, MAX_RUNS), seen = 0;

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
	struct img im;
	struct fat_file f, g;

	if (img_open(&im, &fixtures[0]))
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
	img_close(&im);
}

/* ---- listing ---- */

struct listing {
	char names[80][FAT_NAME_MAX];
	unsigned n, dirs;
	struct fat_vol *reenter; /* if set, each file's extents are read from inside the callback */
	unsigned reentered;
};

static void list_fn(const char *name, const struct fat_file *f, void *ctx)
{
	struct listing *l = ctx;
	struct fat_extent e[MAX_EXTENTS];
	unsigned n;

	if (l->n < 80)
		snprintf(l->names[l->n], FAT_NAME_MAX, "%s", name);
	l->n++;
	l->dirs += !!(f->attr & FAT_ATTR_DIRECTORY);
	if (l->reenter && !(f->attr & FAT_ATTR_DIRECTORY) && fat_extents(l->reenter, f, e, MAX_EXTENTS, &n) == 0)
		l->reentered++;
}

static int listed(const struct listing *l, const char *name)
{
	int times = 0;

	for (unsigned i = 0; i < l->n && i < 80; i++)
		times += strcmp(l->names[i], name) == 0;
	return times;
}

static void list_dir(void)
{
	static const char *const runs[] = { "RUN_000.LOG", "RUN_001.LOG", "RUN_002.LOG", "RUN_003.LOG",
					    "RUN_004.LOG", "run_007.log" };
	for (unsigned k = 0; k < N_FIXTURES; k++) {
		struct img im;
		struct listing *l = calloc(1, sizeof(*l));
		int failed;

		if (!l || img_open(&im, &fixtures[k])) {
			free(l);
			continue;
		}
		failed = test_failed_checks;
		l->reenter = &im.v;
		CHECK_EQ_U64(fat_list_dir(&im.v, "\\BAREMETRIC", list_fn, l), 0);
		CHECK_EQ_U64(l->n, 6); /* no "." or ".." */
		CHECK_EQ_U64(l->reentered, 6);
		for (unsigned i = 0; i < 6; i++)
			CHECK_EQ_U64(listed(l, runs[i]), 1);

		memset(l, 0, sizeof(*l));
		CHECK_EQ_U64(fat_list_dir(&im.v, "/Sub Dir", list_fn, l), 0);
		CHECK_EQ_U64(l->n, 1);
		CHECK_EQ_U64(listed(l, "Deeper Level"), 1);
		CHECK_EQ_U64(l->dirs, 1);
		CHECK(fat_list_dir(&im.v, "/BIG.BIN", list_fn, l) == FAT_ERR_NOT_FOUND);
		if (test_failed_checks != failed)
			test_note("%s, block %u", fixtures[k].img, fixtures[k].block_size);
		free(l);
		img_close(&im);
	}
}

/* The root of fat12.img: the two directories, BIG.BIN and the even fillers F2 .. F60; no
 * volume label ("BAREMETRIC", a root entry too), no deleted odd fillers. */
static void list_root(void)
{
	struct listing *l = calloc(1, sizeof(*l));
	struct img im;
	char name[16];

	if (!l || img_open(&im, &fixtures[0])) {
		free(l);
		return;
	}
	CHECK_EQ_U64(fat_list_dir(&im.v, "", list_fn, l), 0);
	CHECK_EQ_U64(l->n, 3 + 30);
	CHECK_EQ_U64(l->dirs, 2);
	CHECK_EQ_U64(listed(l, "BAREMETRIC"), 1);
	CHECK_EQ_U64(listed(l, "Sub Dir"), 1);
	CHECK_EQ_U64(listed(l, "BIG.BIN"), 1);
	for (unsigned i = 1; i <= 60; i++) {
		snprintf(name, sizeof(name), "F%u.DAT", i);
		CHECK_EQ_U64(listed(l, name), i % 2 == 0);
	}
	free(l);
	img_close(&im);
}

/* ---- corrupt volumes: patched here, through this file's own reading of the BPB ---- */

static uint32_t le(const uint8_t *p, unsigned bytes)
{
	uint32_t v = 0;

	while (bytes--)
		v = v << 8 | p[bytes];
	return v;
}

/* The FAT entry of `cluster` in a FAT16 or FAT32 image: BPB_BytsPerSec (offset 11) and
 * BPB_RsvdSecCnt (14) place the first FAT. */
static uint8_t *fat_slot(struct img *im, uint32_t cluster, unsigned bytes)
{
	uint8_t *bs = im->d.data + im->fx->part_lba * im->fx->block_size;

	return bs + le(bs + 14, 2) * le(bs + 11, 2) + (size_t)cluster * bytes;
}

static void put(uint8_t *p, uint32_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* RUN_000.LOG in fat16.img with its FAT entry at cluster index `at` of its chain set to val,
 * (or, at < 0, nothing changed): fat_extents' result, *why its reason. */
static int patched_run000(int at, uint32_t val, const char **why)
{
	static struct img im;
	struct run runs[1];
	struct fat_extent ext[MAX_EXTENTS];
	struct fat_file f;
	unsigned n = 77;
	int rc = -100;

	*why = "";
	if (chain_runs("fat16.chains", "/BAREMETRIC/RUN_000.LOG", runs, 1) != 1 || img_load(&im, &fixtures[1]))
		return rc;
	if (at >= 0)
		put(fat_slot(&im, runs[0].first + (uint32_t)at, 2), val, 2);
	if (img_mount(&im) == 0 && fat_lookup(&im.v, "/BAREMETRIC/RUN_000.LOG", &f) == 0) {
		rc = fat_extents(&im.v, &f, ext, MAX_EXTENTS, &n);
		*why = fat_error(&im.v);
		if (rc)
			CHECK_EQ_U64(n, 0);
	}
	img_close(&im);
	return rc;
}

static void corrupt_chains(void)
{
	struct run runs[1];
	const char *why;
	uint32_t first;

	CHECK_EQ_U64(chain_runs("fat16.chains", "/BAREMETRIC/RUN_000.LOG", runs, 1), 1);
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
	struct img im;
	struct run dir[1];
	struct listing *l = calloc(1, sizeof(*l));
	uint8_t *d;

	if (!l || chain_runs("fat16.chains", "/BAREMETRIC", dir, 1) != 1 || img_load(&im, &fixtures[1])) {
		free(l);
		CHECK(0);
		return;
	}
	put(fat_slot(&im, dir[0].first, 2), dir[0].first, 2);
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
	if (img_mount(&im) == 0) {
		CHECK_EQ_U64(fat_list_dir(&im.v, "/BAREMETRIC", list_fn, l), FAT_ERR_CORRUPT);
		CHECK(strstr(fat_error(&im.v), "65536") != NULL);
		CHECK(l->n >= 6);
	}
	free(l);
	img_close(&im);
}

/* FAT32 entries are 28 bits: set high bits are ignored, the chain and extents stay the same. */
static void fat32_mask(void)
{
	struct img im;
	struct run runs[1];
	struct fat_extent e1[MAX_EXTENTS], e2[MAX_EXTENTS];
	struct fat_file f;
	unsigned n1 = 0, n2 = 0;
	uint8_t *slot;

	if (chain_runs("fat32.chains", "/BAREMETRIC/RUN_000.LOG", runs, 1) != 1 || img_open(&im, &fixtures[5]))
		return;
	CHECK_EQ_U64(fat_lookup(&im.v, "/BAREMETRIC/RUN_000.LOG", &f), 0);
	CHECK_EQ_U64(fat_extents(&im.v, &f, e1, MAX_EXTENTS, &n1), 0);
	slot = fat_slot(&im, runs[0].first + 3, 4);
	CHECK_EQ_U64(le(slot, 4), runs[0].first + 4);
	put(slot, 0xF0000000u | (runs[0].first + 4), 4);
	CHECK_EQ_U64(img_mount(&im), 0);
	CHECK_EQ_U64(fat_extents(&im.v, &f, e2, MAX_EXTENTS, &n2), 0);
	CHECK_EQ_U64(n1, 1);
	CHECK_EQ_U64(n2, n1);
	CHECK(memcmp(e1, e2, sizeof(e1[0]) * n1) == 0);
	img_close(&im);
}

/* The boot sector: patched fat12.img copies. */
static int patched_mount(unsigned off, const void *bytes, unsigned len, const char **why)
{
	static struct img im;
	int rc = -100;

	*why = "";
	if (img_load(&im, &fixtures[0]))
		return rc;
	memcpy(im.d.data + off, bytes, len);
	rc = img_mount(&im);
	*why = fat_error(&im.v);
	if (rc == 0)
		CHECK_EQ_U64(im.v.type, 12);
	img_close(&im);
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
static int mount_with_clusters(const struct fixture *fx, uint32_t clusters, unsigned *type)
{
	static struct img im;
	uint8_t *b;
	uint32_t bps, fatsz, data, spc;
	int rc = -100;

	if (img_load(&im, fx))
		return rc;
	b = im.d.data + fx->part_lba * fx->block_size;
	bps = le(b + 11, 2);
	spc = b[13];
	fatsz = le(b + 22, 2) ? le(b + 22, 2) : le(b + 36, 4);
	data = le(b + 14, 2) + b[16] * fatsz + (le(b + 17, 2) * 32 + bps - 1) / bps;
	if (le(b + 19, 2))
		put(b + 19, data + clusters * spc, 2);
	else
		put(b + 32, data + clusters * spc, 4);
	rc = img_mount(&im);
	*type = im.v.type;
	img_close(&im);
	return rc;
}

static void type_by_cluster_count(void)
{
	unsigned type;

	CHECK_EQ_U64(mount_with_clusters(&fixtures[3], 4084, &type), 0);
	CHECK_EQ_U64(type, 12);
	CHECK_EQ_U64(mount_with_clusters(&fixtures[3], 4085, &type), 0);
	CHECK_EQ_U64(type, 16);
	CHECK_EQ_U64(mount_with_clusters(&fixtures[5], 65525, &type), 0);
	CHECK_EQ_U64(type, 32);
	/* One cluster fewer makes it FAT16, which a FAT32 BPB (no root entries, FATSz16 0) is not. */
	CHECK_EQ_U64(mount_with_clusters(&fixtures[5], 65524, &type), FAT_ERR_FORMAT);
}

/* Mount and reader failures; the 512-byte clusters of fat32.img on a 4096-byte-block device. */
static void mount_and_limits(void)
{
	struct img im;
	struct fat_file f;
	struct fat_extent e[2];
	unsigned n = 5;
	struct fixture fx32_4k = fixtures[5];

	/* fat16.img's volume is at 1 MiB: at block 0 there is no boot sector. */
	if (img_load(&im, &fixtures[1]) == 0) {
		CHECK_EQ_U64(fat_mount(&im.v, &im.r, 0, im.scratch, sizeof(im.scratch)), FAT_ERR_FORMAT);
		CHECK_EQ_U64(fat_mount(&im.v, &im.r, 2048, im.scratch, 256), FAT_ERR_ARG);
		im.d.fail_from = 1;
		CHECK_EQ_U64(img_mount(&im), FAT_ERR_IO);
		CHECK(strstr(fat_error(&im.v), "read") != NULL);
		CHECK_EQ_U64(fat_lookup(&im.v, "/BIG.BIN", &f), FAT_ERR_ARG); /* not mounted */
		im.d.fail_from = 0;
		CHECK_EQ_U64(img_mount(&im), 0);
		im.d.fail_from = im.d.reads;
		CHECK_EQ_U64(fat_lookup(&im.v, "/BAREMETRIC/RUN_000.LOG", &f), FAT_ERR_IO);
		im.d.fail_from = 0;
		CHECK_EQ_U64(fat_lookup(&im.v, "/BIG.BIN", &f), 0);
		CHECK_EQ_U64(fat_extents(&im.v, &f, e, 2, &n), FAT_ERR_LIMIT); /* fragmented: > 2 */
		CHECK_EQ_U64(n, 0);
		img_close(&im);
	}
	fx32_4k.block_size = 4096;
	if (img_open(&im, &fx32_4k) == 0) {
		CHECK_EQ_U64(fat_lookup(&im.v, "/BAREMETRIC/RUN_000.LOG", &f), 0);
		CHECK_EQ_U64(f.size, 20000);
		CHECK_EQ_U64(fat_extents(&im.v, &f, e, 2, &n), FAT_ERR_LIMIT);
		CHECK(strstr(fat_error(&im.v), "device blocks") != NULL);
		img_close(&im);
	}
}

/* A long name whose parts all carry the same checksum, but not their 8.3 entry's: not used. */
static void lfn_checksum(void)
{
	struct img im;
	struct fat_file f;
	uint8_t *s = NULL;
	struct listing *l = calloc(1, sizeof(*l));

	if (!l || img_load(&im, &fixtures[0])) {
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
	CHECK_EQ_U64(img_mount(&im), 0);
	CHECK_EQ_U64(fat_lookup(&im.v, "/Sub Dir/Deeper Level/A Long File Name.txt", &f), FAT_ERR_NOT_FOUND);
	CHECK_EQ_U64(fat_lookup(&im.v, "/Sub Dir/Deeper Level/ALONGF~1.TXT", &f), 0);
	CHECK_EQ_U64(fat_list_dir(&im.v, "/Sub Dir/Deeper Level", list_fn, l), 0);
	CHECK_EQ_U64(l->n, 1);
	CHECK_EQ_U64(listed(l, "ALONGF~1.TXT"), 1);
	free(l);
	img_close(&im);
}

TEST_SUITE(fat) = {
	{ "files_and_extents", files_and_extents },
	{ "fat12_straddles", fat12_straddles },
	{ "lookup_names", lookup_names },
	{ "list_dir", list_dir },
	{ "list_root", list_root },
	{ "corrupt_chains", corrupt_chains },
	{ "corrupt_directory_cycle", corrupt_directory_cycle },
	{ "fat32_mask", fat32_mask },
	{ "corrupt_boot_sector", corrupt_boot_sector },
	{ "type_by_cluster_count", type_by_cluster_count },
	{ "mount_and_limits", mount_and_limits },
	{ "lfn_checksum", lfn_checksum },
	{ 0, 0 },
};
