/* The FAT reader tests' images (see fat_image.h): a block device over an image in memory, the
 * fixture table, the `mshowfat` cluster runs, a directory listing collector. */
#include "tests/unit/fat_image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

#define FIXTURE_DIR_DEFAULT "build/host/fat"

/* ---- a block device over an image in memory ---- */

static int disk_read(void *ctx, uint64_t lba, uint32_t count, void *buf, uint32_t bs)
{
	struct fat_disk *d = ctx;

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
uint8_t *fat_fx_load(const char *name, size_t *size)
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

const struct fat_fixture fat_fixtures[FAT_N_FIXTURES] = {
	{ "fat12.img", "fat12.chains", 512, 0, 512, 512, 12 },
	{ "fat16.img", "fat16.chains", 512, 2048, 4096, 512, 16 },
	{ "fat16.img", "fat16.chains", 4096, 256, 4096, 512, 16 }, /* 512-byte sectors, 4 KiB blocks */
	{ "fat16_4k.img", "fat16_4k.chains", 4096, 0, 4096, 4096, 16 },
	{ "fat16_4k.img", "fat16_4k.chains", 512, 0, 4096, 4096, 16 }, /* 4 KiB sectors, 512 blocks */
	{ "fat32.img", "fat32.chains", 512, 0, 512, 512, 32 },
};

/* Load the fixture's image; 0 when loaded (not yet mounted). */
int fat_img_load(struct fat_img *im, const struct fat_fixture *fx)
{
	memset(im, 0, sizeof(*im));
	im->fx = fx;
	im->d.data = fat_fx_load(fx->img, &im->d.size);
	im->r.ctx = &im->d;
	im->r.block_size = fx->block_size;
	im->r.read = fx->block_size == 4096 ? disk_read4096 : disk_read512;
	return im->d.data ? 0 : -1;
}

int fat_img_mount(struct fat_img *im)
{
	return fat_mount(&im->v, &im->r, im->fx->part_lba, im->scratch, sizeof(im->scratch));
}

/* Load and mount; a failure is a failed check. */
int fat_img_open(struct fat_img *im, const struct fat_fixture *fx)
{
	int rc;

	if (fat_img_load(im, fx))
		return -1;
	rc = fat_img_mount(im);
	if (rc) {
		test_fail(__FILE__, __LINE__, "%s (block %u): mount %d: %s", fx->img, fx->block_size, rc,
			  fat_error(&im->v));
		free(im->d.data);
		im->d.data = NULL;
	}
	return rc;
}

void fat_img_close(struct fat_img *im)
{
	free(im->d.data);
	im->d.data = NULL;
}

/* ---- mshowfat's cluster runs: "::/PATH <a-b> <c> ..." ---- */

unsigned fat_fx_runs(const char *chains, const char *path, struct fat_run *runs, unsigned max)
{
	size_t size, plen = strlen(path);
	char *text = (char *)fat_fx_load(chains, &size), *line, *save = NULL;
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

/* ---- listing ---- */

void fat_fx_list_fn(const char *name, const struct fat_file *f, void *ctx)
{
	struct fat_listing *l = ctx;
	struct fat_extent e[FAT_MAX_EXTENTS];
	unsigned n;

	if (l->n < FAT_LISTING_MAX)
		snprintf(l->names[l->n], FAT_NAME_MAX, "%s", name);
	l->n++;
	l->dirs += !!(f->attr & FAT_ATTR_DIRECTORY);
	if (l->reenter && !(f->attr & FAT_ATTR_DIRECTORY) && fat_extents(l->reenter, f, e, FAT_MAX_EXTENTS, &n) == 0)
		l->reentered++;
}

int fat_fx_listed(const struct fat_listing *l, const char *name)
{
	int times = 0;

	for (unsigned i = 0; i < l->n && i < FAT_LISTING_MAX; i++)
		times += strcmp(l->names[i], name) == 0;
	return times;
}

uint32_t fat_fx_le(const uint8_t *p, unsigned bytes)
{
	uint32_t v = 0;

	while (bytes--)
		v = v << 8 | p[bytes];
	return v;
}

void fat_fx_put(uint8_t *p, uint32_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
