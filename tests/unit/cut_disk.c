/* A block device with a volatile write cache and a power cut (see cut_disk.h). */
#include "tests/unit/cut_disk.h"

#include <stdlib.h>
#include <string.h>

void cut_disk_init(struct cut_disk *d, uint32_t block, uint64_t blocks)
{
	memset(d, 0, sizeof(*d));
	d->block = block;
	d->blocks = blocks;
	d->tear_bytes = block / 2;
	d->durable = calloc(blocks, block);
	d->view = calloc(blocks, block);
}

void cut_disk_free(struct cut_disk *d)
{
	for (unsigned i = 0; i < d->npend; i++)
		free(d->pend[i].bytes);
	free(d->durable);
	free(d->view);
}

/* The operation is logged; false when the power is (or just went) off. */
static bool issue(struct cut_disk *d, enum cut_op_kind kind, uint64_t lba, uint32_t blocks)
{
	if (d->nops < CUT_DISK_OPS_MAX)
		d->ops[d->nops] = (struct cut_op){ .kind = kind, .lba = lba, .blocks = blocks };
	d->nops++;
	return !d->cut_at || d->nops < d->cut_at;
}

int cut_disk_read(void *ctx, uint64_t lba, uint32_t blocks, void *buf)
{
	struct cut_disk *d = ctx;

	if (lba + blocks > d->blocks || (d->cut_at && d->nops >= d->cut_at))
		return -1;
	memcpy(buf, d->view + lba * d->block, (size_t)blocks * d->block);
	return 0;
}

int cut_disk_write(void *ctx, uint64_t lba, uint32_t blocks, const void *buf)
{
	struct cut_disk *d = ctx;
	bool powered = issue(d, CUT_OP_WRITE, lba, blocks);
	bool torn = d->cut_at && d->nops == d->cut_at;
	size_t bytes = (size_t)blocks * d->block;

	if (lba + blocks > d->blocks)
		return -1;
	if (!powered && !torn)
		return -1;
	if (d->npend == CUT_DISK_PENDING_MAX) {
		d->overflow = true;
		return -1;
	}
	d->pend[d->npend].lba = lba;
	d->pend[d->npend].blocks = blocks;
	d->pend[d->npend].torn = torn;
	d->pend[d->npend].bytes = malloc(bytes);
	memcpy(d->pend[d->npend].bytes, buf, bytes);
	d->npend++;
	if (torn)
		return -1; /* the host sees the command fail (or never sees it end) */
	memcpy(d->view + lba * d->block, buf, bytes);
	return 0;
}

int cut_disk_sync(void *ctx)
{
	struct cut_disk *d = ctx;

	if (!issue(d, CUT_OP_SYNC, 0, 0))
		return -1;
	/* the medium becomes what reads see; the cache is empty */
	memcpy(d->durable, d->view, (size_t)d->blocks * d->block);
	for (unsigned i = 0; i < d->npend; i++)
		free(d->pend[i].bytes);
	d->npend = 0;
	return 0;
}

void cut_disk_medium(const struct cut_disk *d, uint32_t survive, uint8_t *out)
{
	memcpy(out, d->durable, (size_t)d->blocks * d->block);
	for (unsigned i = 0; i < d->npend; i++) {
		size_t n = (size_t)d->pend[i].blocks * d->block;

		if (!(survive >> i & 1))
			continue;
		if (d->pend[i].torn)
			n = d->tear_bytes; /* the cut came inside the first block */
		memcpy(out + d->pend[i].lba * d->block, d->pend[i].bytes, n);
	}
}
