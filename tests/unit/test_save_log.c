/* The boot stick's log writer (drivers/storage/save_log.c) against a memory disk that logs every
 * write: the header format of docs/saving.md, data before header, writes only inside the file's
 * extents, the nonce check before the first write, and what a failed write or a full file does. */
#include <stdlib.h>

#include "drivers/storage/save_log.h"
#include "tests/unit/test.h"

#define DISK_BLOCKS 256
#define MAX_WRITES 256

struct mem_disk {
	uint32_t block;
	uint8_t *bytes;
	unsigned nwrites;
	struct { uint64_t lba, blocks; } log[MAX_WRITES];
	unsigned syncs;
	int fail_write_at; /* the n-th write (1-based) fails; 0: none */
};

static int disk_read(void *ctx, uint64_t lba, uint32_t blocks, void *buf)
{
	struct mem_disk *d = ctx;

	if (lba + blocks > DISK_BLOCKS)
		return -1;
	memcpy(buf, d->bytes + lba * d->block, (size_t)blocks * d->block);
	return 0;
}

static int disk_write(void *ctx, uint64_t lba, uint32_t blocks, const void *buf)
{
	struct mem_disk *d = ctx;

	if (d->nwrites < MAX_WRITES) {
		d->log[d->nwrites].lba = lba;
		d->log[d->nwrites].blocks = blocks;
	}
	d->nwrites++;
	if (d->fail_write_at && (int)d->nwrites == d->fail_write_at)
		return -1;
	if (lba + blocks > DISK_BLOCKS)
		return -1;
	memcpy(d->bytes + lba * d->block, buf, (size_t)blocks * d->block);
	return 0;
}

static int disk_sync(void *ctx)
{
	((struct mem_disk *)ctx)->syncs++;
	return 0;
}

static const char NONCE[] = "00112233445566778899aabbccddeeff";

struct fixture {
	struct mem_disk disk;
	struct save_dev dev;
	struct save_log log;
	uint8_t *hdr, *data;
};

/* A log of `capacity` bytes on a disk of `block`-byte blocks, file blocks at `ext`; the header as
 * the firmware writes it before ExitBootServices is put in the file's first block. */
static void setup(struct fixture *f, uint32_t block, uint64_t capacity, const struct save_extent *ext, unsigned n)
{
	memset(f, 0, sizeof(*f));
	f->disk.block = block;
	f->disk.bytes = calloc(DISK_BLOCKS, block);
	f->hdr = calloc(2, block);
	f->data = calloc(1, capacity);
	f->dev = (struct save_dev){ .ctx = &f->disk, .max_blocks = 4, .read = disk_read, .write = disk_write, .sync = disk_sync };
	save_log_init(&f->log, block, f->hdr, f->data, capacity, NONCE);
	CHECK(save_log_set_extents(&f->log, ext, n));
	save_log_format_header(&f->log, 0, false, f->disk.bytes + ext[0].lba * block);
}

static void teardown(struct fixture *f)
{
	free(f->disk.bytes);
	free(f->hdr);
	free(f->data);
}

static void header_format(void)
{
	static const struct save_extent ext[] = { { 10, 20 } };
	static const char want[] = "baremetric-log 1\nnonce=00112233445566778899aabbccddeeff\nblock=512\n"
				   "data_offset=512\ncapacity=4096\nvalid=00000000000000001234\nstate=closed\n";
	struct fixture f;
	uint8_t out[512];

	setup(&f, 512, 4096, ext, 1);
	save_log_format_header(&f.log, 1234, true, out);
	CHECK(memcmp(out, want, sizeof(want) - 1) == 0);
	for (size_t i = sizeof(want) - 1; i < sizeof(out); i++)
		if (out[i]) {
			test_fail(__FILE__, __LINE__, "header byte %zu is %u, not NUL padding", i, out[i]);
			break;
		}
	teardown(&f);
}

/* Stream bytes land after the header in file order across fragments; the header comes last and
 * counts them. */
static void data_then_header_across_fragments(void)
{
	static const struct save_extent ext[] = { { 40, 3 }, { 100, 2 }, { 7, 5 } };
	struct fixture f;
	char text[3000];

	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (char)('a' + i % 26);
	setup(&f, 512, 4000, ext, 3);
	CHECK(save_log_attach(&f.log, &f.dev));
	CHECK_EQ_U64(f.disk.nwrites, 0);
	save_log_append(&f.log, text, sizeof(text));
	CHECK(save_log_flush(&f.log, false));
	/* 3000 bytes = 6 blocks from file block 1: 41-42, 100-101, 7-8; then the header at 40. */
	CHECK_EQ_U64(f.disk.nwrites, 4);
	CHECK_EQ_U64(f.disk.log[0].lba, 41);
	CHECK_EQ_U64(f.disk.log[0].blocks, 2);
	CHECK_EQ_U64(f.disk.log[1].lba, 100);
	CHECK_EQ_U64(f.disk.log[2].lba, 7);
	CHECK_EQ_U64(f.disk.log[2].blocks, 2);
	CHECK_EQ_U64(f.disk.log[3].lba, 40);
	CHECK(memcmp(f.disk.bytes + 41 * 512, text, 1024) == 0);
	CHECK(memcmp(f.disk.bytes + 100 * 512, text + 1024, 1024) == 0);
	CHECK(memcmp(f.disk.bytes + 7 * 512, text + 2048, 952) == 0);
	CHECK(strstr((char *)f.disk.bytes + 40 * 512, "valid=00000000000000003000\nstate=open\n") != NULL);
	teardown(&f);
}

/* A second flush rewrites only the partial last block onwards, and close syncs and says closed. */
static void incremental_flush_and_close(void)
{
	static const struct save_extent ext[] = { { 0, 16 } };
	struct fixture f;
	char text[600];

	memset(text, 'y', sizeof(text));
	setup(&f, 512, 4096, ext, 1);
	CHECK(save_log_attach(&f.log, &f.dev));
	save_log_append(&f.log, text, sizeof(text));
	CHECK(save_log_flush(&f.log, false));
	f.disk.nwrites = 0;
	save_log_append(&f.log, "zz", 2);
	CHECK(save_log_flush(&f.log, true));
	/* block 1 of the data (file block 2) again, then the header */
	CHECK_EQ_U64(f.disk.nwrites, 2);
	CHECK_EQ_U64(f.disk.log[0].lba, 2);
	CHECK_EQ_U64(f.disk.log[0].blocks, 1);
	CHECK_EQ_U64(f.disk.log[1].lba, 0);
	CHECK_EQ_U64(f.disk.syncs, 1);
	CHECK(f.log.closed);
	CHECK(strstr((char *)f.disk.bytes, "valid=00000000000000000602\nstate=closed\n") != NULL);
	CHECK(f.disk.bytes[2 * 512 + 600 - 512] == 'z');
	teardown(&f);
}

/* No write is larger than the device's transfer limit. */
static void writes_split_at_transfer_limit(void)
{
	static const struct save_extent ext[] = { { 20, 40 } };
	struct fixture f;
	static char text[512 * 11];

	memset(text, 'q', sizeof(text));
	setup(&f, 512, sizeof(text), ext, 1);
	CHECK(save_log_attach(&f.log, &f.dev));
	save_log_append(&f.log, text, sizeof(text));
	CHECK(save_log_flush(&f.log, false));
	for (unsigned i = 0; i < f.disk.nwrites; i++)
		CHECK(f.disk.log[i].blocks <= 4);
	CHECK_EQ_U64(f.disk.nwrites, 4); /* 4 + 4 + 3 data blocks, the header */
	teardown(&f);
}

/* A stick whose file does not carry this run's nonce is never written. */
static void nonce_mismatch_writes_nothing(void)
{
	static const struct save_extent ext[] = { { 5, 10 } };
	struct fixture f;

	setup(&f, 512, 2048, ext, 1);
	f.disk.bytes[5 * 512 + 30] ^= 1; /* a nonce digit */
	CHECK(!save_log_attach(&f.log, &f.dev));
	CHECK(strstr(f.log.error, "nonce") != NULL);
	save_log_append(&f.log, "abc", 3);
	CHECK(save_log_flush(&f.log, true));
	CHECK_EQ_U64(f.disk.nwrites, 0);
	teardown(&f);
}

/* Bytes beyond the capacity are counted, not written past the file. */
static void full_file_counts_lost_bytes(void)
{
	static const struct save_extent ext[] = { { 0, 3 } };
	struct fixture f;
	char text[1500];

	memset(text, 'w', sizeof(text));
	setup(&f, 512, 1024, ext, 1);
	CHECK(save_log_attach(&f.log, &f.dev));
	save_log_append(&f.log, text, sizeof(text));
	CHECK_EQ_U64(f.log.valid, 1024);
	CHECK_EQ_U64(f.log.lost, 476);
	CHECK(save_log_flush(&f.log, true));
	for (unsigned i = 0; i < f.disk.nwrites; i++)
		CHECK(f.disk.log[i].lba + f.disk.log[i].blocks <= 3);
	CHECK(f.disk.bytes[3 * 512] == 0);
	teardown(&f);
}

/* After a failed write nothing more is written, and the error says so. */
static void failed_write_stops_writing(void)
{
	static const struct save_extent ext[] = { { 0, 20 } };
	struct fixture f;

	setup(&f, 512, 8192, ext, 1);
	CHECK(save_log_attach(&f.log, &f.dev));
	f.disk.fail_write_at = 1;
	save_log_append(&f.log, "abc", 3);
	CHECK(!save_log_flush(&f.log, false));
	CHECK(f.log.failed);
	CHECK(strstr(f.log.error, "failed") != NULL);
	save_log_append(&f.log, "def", 3);
	CHECK(!save_log_flush(&f.log, true));
	CHECK_EQ_U64(f.disk.nwrites, 1);
	teardown(&f);
}

static void extents_checked(void)
{
	static const struct save_extent few[] = { { 0, 2 } };
	static const struct save_extent ext[] = { { 10, 4 }, { 30, 4 } };
	struct save_log l;
	uint8_t hdr[1024], data[4096];

	save_log_init(&l, 512, hdr, data, sizeof(data), NONCE);
	CHECK(!save_log_set_extents(&l, few, 1)); /* header + 8 data blocks do not fit in 2 */
	CHECK(!save_log_set_extents(&l, ext, 0));
	save_log_init(&l, 512, hdr, data, 3 * 512, NONCE);
	CHECK(save_log_set_extents(&l, ext, 2));
	CHECK(save_log_inside(&l, 10, 4));
	CHECK(save_log_inside(&l, 33, 1));
	CHECK(!save_log_inside(&l, 13, 2)); /* runs past the first extent */
	CHECK(!save_log_inside(&l, 9, 1));
	CHECK(!save_log_inside(&l, 34, 1));
	CHECK(!save_log_inside(&l, 10, 0xFFFFFFFFFFFFFFFFull));
}

/* A 4096-byte-block device: header and data offset are one block. */
static void large_blocks(void)
{
	static const struct save_extent ext[] = { { 3, 4 } };
	struct fixture f;

	setup(&f, 4096, 8192, ext, 1);
	CHECK(save_log_attach(&f.log, &f.dev));
	save_log_append(&f.log, "hello\r\n", 7);
	CHECK(save_log_flush(&f.log, true));
	CHECK(memcmp(f.disk.bytes + 4 * 4096, "hello\r\n", 7) == 0);
	CHECK(strstr((char *)f.disk.bytes + 3 * 4096, "block=4096\ndata_offset=4096\n") != NULL);
	teardown(&f);
}

TEST_SUITE(save_log) = {
	{ "header_format", header_format },
	{ "data_then_header_across_fragments", data_then_header_across_fragments },
	{ "incremental_flush_and_close", incremental_flush_and_close },
	{ "writes_split_at_transfer_limit", writes_split_at_transfer_limit },
	{ "nonce_mismatch_writes_nothing", nonce_mismatch_writes_nothing },
	{ "full_file_counts_lost_bytes", full_file_counts_lost_bytes },
	{ "failed_write_stops_writing", failed_write_stops_writing },
	{ "extents_checked", extents_checked },
	{ "large_blocks", large_blocks },
	{ 0, 0 },
};
