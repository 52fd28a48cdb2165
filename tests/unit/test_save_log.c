/* The boot stick's log writer (drivers/storage/save_log.c) against a memory disk that logs every
 * write and sync: the header format of docs/saving.md (two header blocks, a sequence number, a
 * CRC), data then sync then header then sync, headers alternating between the two blocks, writes
 * only inside the file's extents, the nonce check of both header blocks before the first write,
 * and what a failed write or sync or a full file does. Power cuts: test_save_log_cut.c. */
#include <stdlib.h>

#include "drivers/storage/save_log.h"
#include "tests/unit/test.h"

#define DISK_BLOCKS 256
#define MAX_WRITES 256

#define SYNC_MARK UINT64_MAX /* a log entry for a sync: lba = SYNC_MARK, blocks = 0 */

struct mem_disk {
	uint32_t block;
	uint8_t *bytes;
	unsigned nwrites; /* writes and syncs, in log[] in issue order */
	struct { uint64_t lba, blocks; } log[MAX_WRITES];
	unsigned syncs;
	int fail_write_at; /* the n-th write (1-based) fails; 0: none */
	int fail_sync_at;  /* the n-th sync (1-based) fails; 0: none */
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
	struct mem_disk *d = ctx;

	if (d->nwrites < MAX_WRITES) {
		d->log[d->nwrites].lba = SYNC_MARK;
		d->log[d->nwrites].blocks = 0;
	}
	d->nwrites++;
	d->syncs++;
	return d->fail_sync_at && (int)d->syncs == d->fail_sync_at ? -1 : 0;
}

/* Log entry i is a write of `blocks` at `lba` / a sync. */
#define CHECK_WRITE(d, i, at, n)                                                            \
	do {                                                                                 \
		CHECK_EQ_U64((d).log[i].lba, at);                                            \
		CHECK_EQ_U64((d).log[i].blocks, n);                                          \
	} while (0)
#define CHECK_SYNC(d, i) CHECK_EQ_U64((d).log[i].lba, SYNC_MARK)

static const char NONCE[] = "00112233445566778899aabbccddeeff";

struct fixture {
	struct mem_disk disk;
	struct save_dev dev;
	struct save_log log;
	uint8_t *hdr, *data;
};

/* A log of `capacity` bytes on a disk of `block`-byte blocks, file blocks at `ext` (the two header
 * blocks inside the first extent); the headers as the firmware writes them before
 * ExitBootServices are put in the file's first two blocks. */
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
	save_log_format_initial(&f->log, f->disk.bytes + ext[0].lba * block);
}

static void teardown(struct fixture *f)
{
	free(f->disk.bytes);
	free(f->hdr);
	free(f->data);
}

/* The text of docs/saving.md; the CRC line's value is zlib.crc32 of the lines above it, computed
 * with Python's zlib (an implementation independent of lib/crc32.c). */
static void header_format(void)
{
	static const struct save_extent ext[] = { { 10, 20 } };
	static const char want[] = "baremetric-log 2\nnonce=00112233445566778899aabbccddeeff\nblock=512\n"
				   "data_offset=1024\ncapacity=4096\nseq=00000000000000000005\n"
				   "valid=00000000000000001234\nstate=closed\ncrc32=ca17fe69\n";
	struct fixture f;
	uint8_t out[512];

	setup(&f, 512, 4096, ext, 1);
	save_log_format_header(&f.log, 5, 1234, true, out);
	CHECK(memcmp(out, want, sizeof(want) - 1) == 0);
	for (size_t i = sizeof(want) - 1; i < sizeof(out); i++)
		if (out[i]) {
			test_fail(__FILE__, __LINE__, "header byte %zu is %u, not NUL padding", i, out[i]);
			break;
		}
	teardown(&f);
}

/* Before boot services both header blocks are written: seq 0 and seq 1, nothing valid, both with
 * the nonce. A header's CRC changes with every field. */
static void initial_headers(void)
{
	static const struct save_extent ext[] = { { 10, 20 } };
	struct fixture f;
	uint8_t two[1024], other[512];

	setup(&f, 512, 4096, ext, 1);
	save_log_format_initial(&f.log, two);
	CHECK(strstr((char *)two, "seq=00000000000000000000\nvalid=00000000000000000000\nstate=open\ncrc32=") != NULL);
	CHECK(strstr((char *)two + 512, "seq=00000000000000000001\nvalid=00000000000000000000\nstate=open\ncrc32=") != NULL);
	CHECK(strstr((char *)two + 512, "nonce=00112233445566778899aabbccddeeff\n") != NULL);
	save_log_format_header(&f.log, 0, 0, true, other);
	CHECK(memcmp(strstr((char *)two, "crc32="), strstr((char *)other, "crc32="), 14) != 0);
	CHECK(memcmp(strstr((char *)two, "crc32="), strstr((char *)two + 512, "crc32="), 14) != 0);
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
	/* 3000 bytes = 6 blocks from file block 2: 42, 100-101, 7-9; a sync; the header seq 2 in
	 * file block 0 (40); a sync. */
	CHECK_EQ_U64(f.disk.nwrites, 6);
	CHECK_WRITE(f.disk, 0, 42, 1);
	CHECK_WRITE(f.disk, 1, 100, 2);
	CHECK_WRITE(f.disk, 2, 7, 3);
	CHECK_SYNC(f.disk, 3);
	CHECK_WRITE(f.disk, 4, 40, 1);
	CHECK_SYNC(f.disk, 5);
	CHECK(memcmp(f.disk.bytes + 42 * 512, text, 512) == 0);
	CHECK(memcmp(f.disk.bytes + 100 * 512, text + 512, 1024) == 0);
	CHECK(memcmp(f.disk.bytes + 7 * 512, text + 1536, 1464) == 0);
	CHECK(strstr((char *)f.disk.bytes + 40 * 512, "seq=00000000000000000002\nvalid=00000000000000003000\nstate=open\n") != NULL);
	/* the other header block still holds header 1 */
	CHECK(strstr((char *)f.disk.bytes + 41 * 512, "seq=00000000000000000001\nvalid=00000000000000000000\n") != NULL);
	teardown(&f);
}

/* A second flush rewrites only the partial last block onwards, into the other header block, and
 * close says closed; the headers alternate between the two blocks. A flush with nothing new
 * writes nothing. */
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
	CHECK(strstr((char *)f.disk.bytes, "seq=00000000000000000002\nvalid=00000000000000000600\n") != NULL);
	f.disk.nwrites = 0;
	CHECK(save_log_flush(&f.log, false));
	CHECK_EQ_U64(f.disk.nwrites, 0);
	save_log_append(&f.log, "zz", 2);
	CHECK(save_log_flush(&f.log, true));
	/* data block 1 (file block 3) again, a sync, header seq 3 in file block 1, a sync */
	CHECK_EQ_U64(f.disk.nwrites, 4);
	CHECK_WRITE(f.disk, 0, 3, 1);
	CHECK_SYNC(f.disk, 1);
	CHECK_WRITE(f.disk, 2, 1, 1);
	CHECK_SYNC(f.disk, 3);
	CHECK(f.log.closed);
	CHECK(strstr((char *)f.disk.bytes + 512, "seq=00000000000000000003\nvalid=00000000000000000602\nstate=closed\n") != NULL);
	CHECK(strstr((char *)f.disk.bytes, "seq=00000000000000000002\nvalid=00000000000000000600\nstate=open\n") != NULL);
	CHECK(f.disk.bytes[3 * 512 + 600 - 512] == 'z');
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
		CHECK(f.disk.log[i].blocks <= 4 && (f.disk.log[i].blocks || f.disk.log[i].lba == SYNC_MARK));
	CHECK_EQ_U64(f.disk.nwrites, 6); /* 4 + 4 + 3 data blocks, a sync, the header, a sync */
	teardown(&f);
}

/* A stick whose file does not carry this run's nonce in its first block is never written. */
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

/* The second header block is written too, so it is checked as strictly as the first: another
 * nonce there, or this nonce in a block that is not the header written before boot services
 * (another capacity, a sequence number not 1), and nothing is written. */
static void second_header_block_checked(void)
{
	static const struct save_extent ext[] = { { 5, 10 } };
	static const size_t nonce_at = sizeof(SAVE_LOG_MAGIC) - 1 + 6;
	static const char *const what[] = { "nonce", "capacity=2048", "seq=00000000000000000001" };
	struct fixture f;

	for (unsigned i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		char *blk1;

		setup(&f, 512, 2048, ext, 1);
		blk1 = (char *)f.disk.bytes + 6 * 512;
		if (i == 0)
			blk1[nonce_at] ^= 1;
		else
			strstr(blk1, what[i])[strlen(what[i]) - 1] ^= 1; /* the field's last digit */
		CHECK(!save_log_attach(&f.log, &f.dev));
		CHECK(strstr(f.log.error, i == 0 ? "nonce mismatch" : "not the header written before boot services") != NULL);
		CHECK(save_log_flush(&f.log, true));
		CHECK_EQ_U64(f.disk.nwrites, 0);
		teardown(&f);
	}
}

/* A device whose first block is this run's header but whose second is the one of the file
 * written before (a stale copy: block 0 right, block 1 from another run) is refused, and an
 * attach that failed leaves the log as it was: it can be tried on the right device next. */
static void failed_attach_then_right_device(void)
{
	static const struct save_extent ext[] = { { 5, 10 } };
	struct fixture f;
	struct mem_disk right;
	struct save_dev right_dev;

	setup(&f, 512, 2048, ext, 1);
	right = f.disk;
	right.bytes = calloc(DISK_BLOCKS, 512);
	memcpy(right.bytes, f.disk.bytes, (size_t)DISK_BLOCKS * 512);
	memset(f.disk.bytes + 6 * 512, 0, 512); /* the wrong stick: its second header block blank */
	CHECK(!save_log_attach(&f.log, &f.dev));
	right_dev = f.dev;
	right_dev.ctx = &right;
	CHECK(save_log_attach(&f.log, &right_dev));
	save_log_append(&f.log, "abc", 3);
	CHECK(save_log_flush(&f.log, true));
	CHECK_EQ_U64(f.disk.nwrites, 0);
	CHECK(strstr((char *)right.bytes + 5 * 512, "valid=00000000000000000003\nstate=closed\n") != NULL);
	free(right.bytes);
	teardown(&f);
}

/* Bytes beyond the capacity are counted, not written past the file. */
static void full_file_counts_lost_bytes(void)
{
	static const struct save_extent ext[] = { { 0, 4 } };
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
		CHECK(f.disk.log[i].lba == SYNC_MARK || f.disk.log[i].lba + f.disk.log[i].blocks <= 4);
	CHECK(f.disk.bytes[4 * 512] == 0);
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

/* A sync that fails before the header: the header is not written (it would count bytes the
 * device may not keep), and nothing is written after. */
static void failed_sync_keeps_the_old_header(void)
{
	static const struct save_extent ext[] = { { 0, 20 } };
	struct fixture f;

	setup(&f, 512, 8192, ext, 1);
	CHECK(save_log_attach(&f.log, &f.dev));
	f.disk.fail_sync_at = 1;
	save_log_append(&f.log, "abc", 3);
	CHECK(!save_log_flush(&f.log, false));
	CHECK(strstr(f.log.error, "synchronised before the header") != NULL);
	CHECK_EQ_U64(f.disk.nwrites, 2); /* the data block, the sync */
	CHECK(strstr((char *)f.disk.bytes, "seq=00000000000000000000\nvalid=00000000000000000000\n") != NULL);
	save_log_append(&f.log, "def", 3);
	CHECK(!save_log_flush(&f.log, true));
	CHECK_EQ_U64(f.disk.nwrites, 2);
	teardown(&f);
}

static void extents_checked(void)
{
	static const struct save_extent few[] = { { 0, 9 } };
	static const struct save_extent ext[] = { { 10, 4 }, { 30, 4 } };
	struct save_log l;
	uint8_t hdr[1024], data[4096];

	save_log_init(&l, 512, hdr, data, sizeof(data), NONCE);
	CHECK(!save_log_set_extents(&l, few, 1)); /* 2 header + 8 data blocks do not fit in 9 */
	CHECK(!save_log_set_extents(&l, ext, 0));
	save_log_init(&l, 512, hdr, data, 6 * 512, NONCE);
	CHECK(save_log_set_extents(&l, ext, 2));
	CHECK(save_log_inside(&l, 10, 4));
	CHECK(save_log_inside(&l, 33, 1));
	CHECK(!save_log_inside(&l, 13, 2)); /* runs past the first extent */
	CHECK(!save_log_inside(&l, 9, 1));
	CHECK(!save_log_inside(&l, 34, 1));
	CHECK(!save_log_inside(&l, 10, 0xFFFFFFFFFFFFFFFFull));
}

/* A 4096-byte-block device: each header is one block, the data starts two blocks in. */
static void large_blocks(void)
{
	static const struct save_extent ext[] = { { 3, 4 } };
	struct fixture f;

	setup(&f, 4096, 8192, ext, 1);
	CHECK(save_log_attach(&f.log, &f.dev));
	save_log_append(&f.log, "hello\r\n", 7);
	CHECK(save_log_flush(&f.log, true));
	CHECK(memcmp(f.disk.bytes + 5 * 4096, "hello\r\n", 7) == 0);
	CHECK(strstr((char *)f.disk.bytes + 3 * 4096, "block=4096\ndata_offset=8192\n") != NULL);
	teardown(&f);
}

TEST_SUITE(save_log) = {
	{ "header_format", header_format },
	{ "initial_headers", initial_headers },
	{ "data_then_header_across_fragments", data_then_header_across_fragments },
	{ "incremental_flush_and_close", incremental_flush_and_close },
	{ "writes_split_at_transfer_limit", writes_split_at_transfer_limit },
	{ "nonce_mismatch_writes_nothing", nonce_mismatch_writes_nothing },
	{ "second_header_block_checked", second_header_block_checked },
	{ "failed_attach_then_right_device", failed_attach_then_right_device },
	{ "full_file_counts_lost_bytes", full_file_counts_lost_bytes },
	{ "failed_write_stops_writing", failed_write_stops_writing },
	{ "failed_sync_keeps_the_old_header", failed_sync_keeps_the_old_header },
	{ "extents_checked", extents_checked },
	{ "large_blocks", large_blocks },
	{ 0, 0 },
};
