/* Power cuts against the boot stick's log writer (drivers/storage/save_log.c) on a device with a
 * volatile write cache (tests/unit/cut_disk.c). A scripted run (appends, a flush after each, a
 * closing flush) is repeated with the power failing at every write and sync in turn; for every
 * choice of which cached writes survived the cut, the medium is read back the way the harness
 * does (docs/saving.md: the newer of the two header blocks whose CRC checks) and must give a
 * prefix of the stream at least as long as the last flush that completed: a torn write loses at
 * most the flush in progress, and both header blocks still carry this run's nonce. */
#include <stdlib.h>

#include "drivers/storage/save_log.h"
#include "lib/crc32.h"
#include "tests/unit/cut_disk.h"
#include "tests/unit/test.h"

#define BLOCK 512
#define DISK_BLOCKS 64
#define CAPACITY (16 * BLOCK)
#define MAX_SUBSET_BITS 12 /* more cached writes than this at a cut: the subsets are sampled */
/* Where a cut write stops: inside a header's seq line, inside its valid line, after its text
 * (the header text is about 175 bytes), inside a data block. */
static const uint32_t TEARS[] = { 110, 140, 300, 511 };

static const char NONCE[] = "0123456789abcdef0123456789abcdef";
/* Fragments as a FAT file on a used stick may have: a header split from its data, short runs. */
static const struct save_extent EXT[] = { { 4, 1 }, { 20, 3 }, { 9, 10 }, { 40, 8 } };
static const unsigned APPENDS[] = { 100, 700, 1, 1500, 3, 2000, 512, 37, 1024 };

struct header {
	bool ok;
	uint64_t seq, valid;
	bool closed;
};

/* One header block as the harness reads it: magic, NUL-terminated text, the CRC line last and
 * matching the text before it (CRC-32 of docs/saving.md, as zlib.crc32), seq and valid. */
static struct header read_header(const uint8_t *blk)
{
	static const char magic[] = SAVE_LOG_MAGIC;
	struct header h = { 0 };
	char text[BLOCK];
	const char *crc_line, *p;
	size_t n = 0;
	uint32_t crc;
	unsigned long long want;

	while (n < BLOCK && blk[n])
		n++;
	if (n == BLOCK || memcmp(blk, magic, sizeof(magic) - 1))
		return h;
	memcpy(text, blk, n);
	text[n] = 0;
	crc_line = strstr(text, "\ncrc32=");
	if (!crc_line || sscanf(crc_line + 7, "%8llx", &want) != 1 || crc_line + 7 + 8 + 1 != text + n)
		return h;
	crc = crc32_update(0, text, (size_t)(crc_line + 1 - text));
	if (crc != want)
		return h;
	p = strstr(text, "\nseq=");
	if (!p || sscanf(p + 5, "%llu", (unsigned long long *)&h.seq) != 1)
		return h;
	p = strstr(text, "\nvalid=");
	if (!p || sscanf(p + 7, "%llu", (unsigned long long *)&h.valid) != 1)
		return h;
	h.closed = strstr(text, "\nstate=closed\n") != NULL;
	h.ok = true;
	return h;
}

/* The device block of file block fb. */
static uint64_t file_lba(uint64_t fb)
{
	for (unsigned i = 0; i < sizeof(EXT) / sizeof(EXT[0]); i++) {
		if (fb < EXT[i].blocks)
			return EXT[i].lba + fb;
		fb -= EXT[i].blocks;
	}
	return UINT64_MAX;
}

static uint8_t stream_byte(uint64_t i)
{
	return (uint8_t)('!' + (i * 7 + i / 91) % 90); /* printable, never NUL, not periodic in a block */
}

struct script_result {
	uint64_t appended;  /* bytes appended before the cut */
	uint64_t completed; /* the valid count of the last flush that returned true */
	unsigned ops;
};

/* The scripted run on d (power failing at d->cut_at): attach, then append and flush per step. */
static struct script_result run_script(struct cut_disk *d)
{
	static uint8_t hdr[2 * BLOCK], data[CAPACITY];
	struct save_dev dev = { .ctx = d, .max_blocks = 4, .read = cut_disk_read, .write = cut_disk_write, .sync = cut_disk_sync };
	struct script_result r = { 0 };
	struct save_log l;
	uint64_t pos = 0;
	unsigned steps = sizeof(APPENDS) / sizeof(APPENDS[0]);

	memset(data, 0, sizeof(data));
	save_log_init(&l, BLOCK, hdr, data, CAPACITY, NONCE);
	CHECK(save_log_set_extents(&l, EXT, sizeof(EXT) / sizeof(EXT[0])));
	/* the headers as written before ExitBootServices: on the medium for good */
	for (unsigned fb = 0; fb < SAVE_LOG_HDR_BLOCKS; fb++) {
		save_log_format_header(&l, fb, 0, false, d->durable + file_lba(fb) * BLOCK);
		save_log_format_header(&l, fb, 0, false, d->view + file_lba(fb) * BLOCK);
	}
	CHECK(save_log_attach(&l, &dev));
	for (unsigned s = 0; s < steps; s++) {
		uint8_t chunk[2048];

		for (unsigned i = 0; i < APPENDS[s]; i++)
			chunk[i] = stream_byte(pos + i);
		save_log_append(&l, chunk, APPENDS[s]);
		pos += APPENDS[s];
		r.appended = pos;
		if (!save_log_flush(&l, s + 1 == steps))
			break;
		r.completed = l.counted;
	}
	r.ops = d->nops;
	return r;
}

static unsigned torn_headers; /* header blocks seen that did not check: the tears reached them */

/* The medium after one cut and one choice of surviving writes, read as the harness does. */
static void check_medium(const uint8_t *m, const struct script_result *r, unsigned cut, uint32_t survive)
{
	struct header h[SAVE_LOG_HDR_BLOCKS], *newest = NULL;
	size_t id = strlen(SAVE_LOG_MAGIC "nonce=") + SAVE_LOG_NONCE_HEX;

	for (unsigned fb = 0; fb < SAVE_LOG_HDR_BLOCKS; fb++) {
		const uint8_t *blk = m + file_lba(fb) * BLOCK;

		h[fb] = read_header(blk);
		/* whatever was cut, each header block still names this run (magic and nonce) */
		if (memcmp(blk, SAVE_LOG_MAGIC "nonce=", id - SAVE_LOG_NONCE_HEX) ||
		    memcmp(blk + id - SAVE_LOG_NONCE_HEX, NONCE, SAVE_LOG_NONCE_HEX))
			test_fail(__FILE__, __LINE__, "cut at op %u, survivors %#x: header block %u lost the nonce", cut, survive, fb);
		torn_headers += !h[fb].ok;
		if (h[fb].ok && h[fb].seq % SAVE_LOG_HDR_BLOCKS == fb && (!newest || h[fb].seq > newest->seq))
			newest = &h[fb];
	}
	if (!newest) {
		test_fail(__FILE__, __LINE__, "cut at op %u, survivors %#x: no header checks", cut, survive);
		return;
	}
	if (newest->valid < r->completed || newest->valid > r->appended)
		test_fail(__FILE__, __LINE__, "cut at op %u, survivors %#x: header counts %llu bytes, flushed %llu, appended %llu",
			  cut, survive, (unsigned long long)newest->valid, (unsigned long long)r->completed,
			  (unsigned long long)r->appended);
	for (uint64_t i = 0; i < newest->valid && i < CAPACITY; i++) {
		uint64_t fb = SAVE_LOG_HDR_BLOCKS + i / BLOCK;

		if (m[file_lba(fb) * BLOCK + i % BLOCK] != stream_byte(i)) {
			test_fail(__FILE__, __LINE__, "cut at op %u, survivors %#x: counted byte %llu is not the stream's",
				  cut, survive, (unsigned long long)i);
			break;
		}
	}
	if (newest->closed && newest->valid != r->appended)
		test_fail(__FILE__, __LINE__, "cut at op %u: closed with %llu of %llu bytes", cut,
			  (unsigned long long)newest->valid, (unsigned long long)r->appended);
}

/* Which cached writes survive: every subset when there are few, else none, all, each alone and
 * all but each. */
static void check_every_survival(struct cut_disk *d, const struct script_result *r, unsigned cut, uint8_t *m)
{
	uint32_t all = d->npend >= 32 ? UINT32_MAX : (1u << d->npend) - 1;

	if (d->npend <= MAX_SUBSET_BITS) {
		for (uint32_t s = 0; s <= all; s++) {
			cut_disk_medium(d, s, m);
			check_medium(m, r, cut, s);
		}
		return;
	}
	for (unsigned i = 0; i < d->npend + 1; i++) {
		uint32_t one = i < d->npend ? 1u << i : 0;

		cut_disk_medium(d, one, m);
		check_medium(m, r, cut, one);
		cut_disk_medium(d, all & ~one, m);
		check_medium(m, r, cut, all & ~one);
	}
}

/* The power fails at each write and sync of the run in turn (and not at all), the cut write
 * torn at each of TEARS. */
static void every_cut_keeps_the_completed_flushes(void)
{
	struct cut_disk d;
	struct script_result full;
	uint8_t *m = calloc(DISK_BLOCKS, BLOCK);
	unsigned checked = 0;

	cut_disk_init(&d, BLOCK, DISK_BLOCKS);
	full = run_script(&d);
	cut_disk_free(&d);
	CHECK(full.ops > 20); /* the script writes and syncs many times: the loop below means something */
	torn_headers = 0;
	for (unsigned k = 0; k < (full.ops + 1) * (sizeof(TEARS) / sizeof(TEARS[0])); k++) {
		unsigned cut = 1 + k / (sizeof(TEARS) / sizeof(TEARS[0]));
		struct script_result r;

		cut_disk_init(&d, BLOCK, DISK_BLOCKS);
		d.tear_bytes = TEARS[k % (sizeof(TEARS) / sizeof(TEARS[0]))];
		d.cut_at = cut;
		r = run_script(&d);
		CHECK(!d.overflow);
		check_every_survival(&d, &r, cut, m);
		if (cut == full.ops + 1) { /* no cut: every byte, closed, nothing left in the cache */
			CHECK_EQ_U64(r.completed, r.appended);
			CHECK_EQ_U64(d.npend, 0);
		}
		checked++;
		cut_disk_free(&d);
	}
	CHECK(torn_headers > 0); /* some cut left a header that does not check: the other was read */
	test_note("%u cuts (cut point x tear), %u operations in the uncut run, %u torn headers read past",
		  checked, full.ops, torn_headers);
	free(m);
}

/* Every flush: its data writes, a sync, the header into the other header block, a sync. */
static void flush_is_data_sync_header_sync(void)
{
	struct cut_disk d;
	uint64_t hdr_lba[SAVE_LOG_HDR_BLOCKS];
	unsigned i = 0, flushes = 0, expect_fb = 0;

	for (unsigned fb = 0; fb < SAVE_LOG_HDR_BLOCKS; fb++)
		hdr_lba[fb] = file_lba(fb);
	cut_disk_init(&d, BLOCK, DISK_BLOCKS);
	run_script(&d);
	while (i < d.nops && i < CUT_DISK_OPS_MAX) {
		unsigned data = 0;

		while (i < d.nops && d.ops[i].kind == CUT_OP_WRITE && d.ops[i].lba != hdr_lba[0] && d.ops[i].lba != hdr_lba[1]) {
			data++;
			i++;
		}
		CHECK(data > 0); /* every step of the script appends something */
		CHECK(i + 2 < d.nops + 1 && d.ops[i].kind == CUT_OP_SYNC);
		CHECK(d.ops[i + 1].kind == CUT_OP_WRITE && d.ops[i + 1].lba == hdr_lba[expect_fb] && d.ops[i + 1].blocks == 1);
		CHECK(d.ops[i + 2].kind == CUT_OP_SYNC);
		expect_fb ^= 1;
		i += 3;
		flushes++;
	}
	CHECK_EQ_U64(flushes, sizeof(APPENDS) / sizeof(APPENDS[0]));
	cut_disk_free(&d);
}

TEST_SUITE(save_log_cut) = {
	{ "every_cut_keeps_the_completed_flushes", every_cut_keeps_the_completed_flushes },
	{ "flush_is_data_sync_header_sync", flush_is_data_sync_header_sync },
	{ 0, 0 },
};
