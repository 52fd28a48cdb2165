/* Tests for the USB mass-storage driver (drivers/usb/msc.c, msc_bot.c) against the model BOT
 * device of tests/unit/msc_model.c: bring-up (INQUIRY, TEST UNIT READY retries, READ CAPACITY
 * (10) and (16)), transfers split into commands of at most 64 KiB that land byte-exact, the
 * 32-bit LBA limit, and the Bulk-Only Transport's error recovery, checked against the model's
 * log of what reached the device, in order. */
#include <stdlib.h>
#include <string.h>

#include "drivers/usb/msc.h"
#include "tests/unit/msc_model.h"
#include "tests/unit/test.h"

#define OP_READ10 0x28 /* SBC-3 */
#define OP_WRITE10 0x2A
#define OP_REQUEST_SENSE 0x03 /* SPC-4 */
#define OP_TUR 0x00
#define OP_RC10 0x25
#define OP_SAI16 0x9E
#define OP_SYNC10 0x35
#define KIB 1024u

static struct msc_model model;
static struct usb_bulk_dev dev;
static struct msc msc;
static uint8_t scratch[MSC_SCRATCH_MIN] __attribute__((aligned(64)));
static uint8_t *disk;

/* A model of `capacity` blocks with a zeroed store of min(capacity, 4096) blocks. */
static void setup(uint32_t block_size, uint64_t capacity)
{
	uint64_t store = capacity < 4096 ? capacity : 4096;

	free(disk);
	disk = calloc(store, block_size);
	msc_model_init(&model, block_size, capacity, disk, store);
	msc_model_dev(&model, &dev);
}

static int open_ok(uint32_t block_size, uint64_t capacity)
{
	int r;

	setup(block_size, capacity);
	r = msc_open(&msc, &dev, scratch);
	if (r)
		test_note("msc_open: %d, %s", r, msc_error(&msc));
	return r;
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed | 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

static bool contains(const char *s, const char *part)
{
	if (!strstr(s, part)) {
		test_note("\"%s\" lacks \"%s\"", s, part);
		return false;
	}
	return true;
}

/* A step of an expected event sequence; in: 0 OUT, 1 IN, -1 either. */
struct step {
	enum msc_model_ev kind;
	int in;
};

/* The index of the first place at or after `from` where the log has exactly these events in a
 * row, or -1. */
static int find_seq(unsigned from, const struct step *s, unsigned n)
{
	for (unsigned i = from; i + n <= model.nev; i++) {
		unsigned k;

		for (k = 0; k < n; k++) {
			const struct msc_model_event *e = &model.ev[i + k];

			if (e->kind != s[k].kind || (s[k].in >= 0 && e->in != (s[k].in == 1)))
				break;
		}
		if (k == n)
			return (int)i;
	}
	return -1;
}

#define FIND_SEQ(from, ...)                                                                \
	find_seq(from, (const struct step[]){ __VA_ARGS__ },                               \
		 sizeof((const struct step[]){ __VA_ARGS__ }) / sizeof(struct step))

/* Every CBW's tag is the one before plus one (the driver's rule; BOT 5.1 asks only that the
 * CSW echo it). */
static bool tags_increment(void)
{
	bool first = true;
	uint32_t prev = 0;

	for (unsigned i = 0; i < model.nev; i++) {
		if (model.ev[i].kind != MODEL_EV_CBW)
			continue;
		if (!first && model.ev[i].tag != prev + 1)
			return false;
		prev = model.ev[i].tag;
		first = false;
	}
	return true;
}

static void reset_recovery_follows(int at)
{
	/* BOT 5.3.4: class reset, then clear halt IN, then clear halt OUT. */
	int r = FIND_SEQ((unsigned)(at < 0 ? 0 : at), { MODEL_EV_RESET, -1 },
			 { MODEL_EV_CLEAR_HALT, 1 }, { MODEL_EV_CLEAR_HALT, 0 });

	CHECK(at >= 0);
	CHECK(r >= 0);
	CHECK_EQ_U64(model.resets, 1);
}

/* ---- bring-up ---- */

static void open_512(void)
{
	CHECK_EQ_U64(open_ok(512, 2048), 0);
	CHECK_EQ_U64(msc.block_size, 512);
	CHECK_EQ_U64(msc.blocks, 2048);
	CHECK_EQ_U64(msc.max_blocks, 64 * KIB / 512);
	CHECK_STR(msc.vendor, "BMTEST");
	CHECK_STR(msc.product, "Model disk");
	CHECK_STR(msc.revision, "1.00");
	CHECK_STR(msc_error(&msc), "no error");
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_GET_MAX_LUN, -1), 1);
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CBW, OP_SAI16), 0);
	CHECK_EQ_U64(model.violations, 0);
	CHECK_EQ_U64(model.resets, 0);
	CHECK(tags_increment());
}

static void open_4096(void)
{
	CHECK_EQ_U64(open_ok(4096, 1000), 0);
	CHECK_EQ_U64(msc.block_size, 4096);
	CHECK_EQ_U64(msc.blocks, 1000);
	CHECK_EQ_U64(msc.max_blocks, 16);
	CHECK_EQ_U64(model.violations, 0);
}

static void open_max_lun_stall(void)
{
	setup(512, 2048);
	model.max_lun_stalls = true;
	CHECK_EQ_U64(msc_open(&msc, &dev, scratch), 0);
	CHECK_EQ_U64(msc.max_lun, 0);
	CHECK_EQ_U64(model.violations, 0);
}

static void open_not_a_disk(void)
{
	setup(512, 2048);
	model.peripheral = 0x05; /* SPC-4: CD/DVD device */
	CHECK_EQ_U64(msc_open(&msc, &dev, scratch), (uint64_t)MSC_ERR_DEVICE);
	CHECK_EQ_U64(msc.block_size, 0);
	CHECK(contains(msc_error(&msc), "INQUIRY: not a direct-access block device (peripheral 0x05)"));
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CBW, OP_TUR), 0);
	CHECK_EQ_U64(msc_read(&msc, 0, 1, disk), (uint64_t)MSC_ERR_INVALID);
}

static void open_capacity_16(void)
{
	uint8_t buf[512];
	int at;

	CHECK_EQ_U64(open_ok(512, 1ull << 33), 0);
	CHECK_EQ_U64(msc.blocks, 1ull << 33);
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CBW, OP_RC10), 1);
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CBW, OP_SAI16), 1);
	/* (16) right after (10) said FFFFFFFFh. */
	at = msc_model_find(&model, MODEL_EV_CBW, 0);
	while (at >= 0 && model.ev[at].op != OP_RC10)
		at = msc_model_find(&model, MODEL_EV_CBW, (unsigned)at + 1);
	CHECK(at >= 0);
	at = at < 0 ? -1 : msc_model_find(&model, MODEL_EV_CBW, (unsigned)at + 1);
	CHECK(at >= 0 && model.ev[at].op == OP_SAI16);
	/* The last block READ(10) reaches is fine, ... */
	memset(buf, 0xAA, sizeof(buf));
	CHECK_EQ_U64(msc_read(&msc, 0xFFFFFFFFull, 1, buf), 0);
	CHECK_EQ_U64(buf[0], 0);
	CHECK_EQ_U64(model.violations, 0);
}

/* ... one past it is refused before anything is sent. */
static void lba_beyond_32_bits(void)
{
	static uint8_t buf[2 * 512];
	unsigned nev;

	CHECK_EQ_U64(open_ok(512, 1ull << 33), 0);
	nev = model.nev;
	CHECK_EQ_U64(msc_write(&msc, 0xFFFFFFFFull, 2, buf), (uint64_t)MSC_ERR_INVALID);
	CHECK(contains(msc_error(&msc), "32 bits"));
	CHECK_EQ_U64(msc_write(&msc, 1ull << 32, 1, buf), (uint64_t)MSC_ERR_INVALID);
	CHECK_EQ_U64(msc_read(&msc, (1ull << 33) - 1, 1, buf), (uint64_t)MSC_ERR_INVALID);
	CHECK_EQ_U64(model.nev, nev);
}

static void beyond_capacity(void)
{
	static uint8_t buf[2 * 512];
	unsigned nev;

	CHECK_EQ_U64(open_ok(512, 2048), 0);
	nev = model.nev;
	CHECK_EQ_U64(msc_write(&msc, 2047, 2, buf), (uint64_t)MSC_ERR_INVALID);
	CHECK(contains(msc_error(&msc), "WRITE(10) lba 2047 x2: beyond the capacity"));
	CHECK_EQ_U64(msc_read(&msc, UINT64_MAX, 1, buf), (uint64_t)MSC_ERR_INVALID);
	CHECK_EQ_U64(model.nev, nev);
	CHECK_EQ_U64(msc_write(&msc, 2047, 1, buf), 0);
}

static void tur_until_ready(void)
{
	setup(512, 2048);
	model.not_ready = 5;
	CHECK_EQ_U64(msc_open(&msc, &dev, scratch), 0);
	CHECK_EQ_U64(model.turs, 6);
	/* Each failed TUR is followed at once by REQUEST SENSE (the sense lasts one command). */
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CBW, OP_REQUEST_SENSE), 5);
	for (unsigned i = 0; i < model.nev; i++) {
		const struct msc_model_event *e = &model.ev[i];
		int next;

		if (e->kind != MODEL_EV_CSW || e->op != OP_TUR || e->status != 1)
			continue;
		next = msc_model_find(&model, MODEL_EV_CBW, i);
		CHECK(next >= 0 && model.ev[next].op == OP_REQUEST_SENSE);
	}
	/* The settle time before the first command; the UNIT ATTENTION is retried at once, the four
	 * NOT READY wait. */
	CHECK_EQ_U64(model.delay_us, MSC_SETTLE_US + 4ull * MSC_TUR_DELAY_US);
	/* NOT READY with ASC 04h: START UNIT, once (Linux sd_spinup_disk does the same). */
	CHECK(msc.start_sent);
	CHECK_EQ_U64(model.starts, 1);
	CHECK_EQ_U64(model.violations, 0);
}

static void tur_gives_up(void)
{
	setup(512, 2048);
	model.not_ready = 1000;
	CHECK_EQ_U64(msc_open(&msc, &dev, scratch), (uint64_t)MSC_ERR_DEVICE);
	CHECK_EQ_U64(model.turs, MSC_TUR_TRIES);
	CHECK_EQ_U64(msc.block_size, 0);
	CHECK(model.delay_us <= MSC_SETTLE_US + (uint64_t)MSC_TUR_TRIES * MSC_TUR_DELAY_US);
	CHECK(contains(msc_error(&msc), "TEST UNIT READY: not ready after 50 tries"));
	CHECK(contains(msc_error(&msc), "NOT READY (0x02) ASC 0x04 ASCQ 0x01"));
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CBW, OP_RC10), 0);
}

/* ---- transfers ---- */

/* 200 KiB written at lba 7 in commands of at most 64 KiB, byte-exact, then read back. */
static void split_write_read(uint32_t block_size)
{
	const uint32_t bytes = 200 * KIB, blocks = bytes / block_size;
	const uint32_t per = 64 * KIB / block_size, lba = 7;
	uint8_t *out = malloc(bytes), *in = malloc(bytes);
	unsigned cmds = 0, i;
	uint64_t next = lba;

	CHECK_EQ_U64(open_ok(block_size, 2048), 0);
	fill(out, bytes, block_size);
	msc_model_clear_log(&model);
	CHECK_EQ_U64(msc_write(&msc, lba, blocks, out), 0);
	CHECK(model.max_rw_len <= 64 * KIB);
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CBW, OP_WRITE10), (blocks + per - 1) / per);
	for (i = 0; i < model.nev; i++) {
		const struct msc_model_event *e = &model.ev[i];

		if (e->kind != MODEL_EV_CBW)
			continue;
		CHECK_EQ_U64(e->lba, next);
		CHECK_EQ_U64(e->len, e->blocks * block_size);
		CHECK(!e->in);
		next += e->blocks;
		cmds++;
	}
	CHECK_EQ_U64(next, lba + blocks);
	CHECK(memcmp(disk + (size_t)lba * block_size, out, bytes) == 0);
	CHECK_EQ_U64(disk[lba * block_size - 1], 0); /* nothing around it */
	CHECK_EQ_U64(disk[(size_t)(lba + blocks) * block_size], 0);

	memset(in, 0, bytes);
	CHECK_EQ_U64(msc_read(&msc, lba, blocks, in), 0);
	CHECK(memcmp(in, out, bytes) == 0);
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CBW, OP_READ10), cmds);
	CHECK(model.max_rw_len <= 64 * KIB);
	CHECK_EQ_U64(model.violations, 0);
	CHECK(tags_increment());
	free(out);
	free(in);
}

static void split_512(void)
{
	split_write_read(512);
}

static void split_4096(void)
{
	split_write_read(4096);
}

static void sync_cache(void)
{
	CHECK_EQ_U64(open_ok(512, 2048), 0);
	CHECK_EQ_U64(msc_sync(&msc), 0);
	CHECK_EQ_U64(model.syncs, 1);
	/* Linux sd: a cache flush gets twice SD_TIMEOUT, the other commands SD_TIMEOUT. */
	CHECK_EQ_U64(model.sync_timeout_us, MSC_SYNC_TIMEOUT_US);
	CHECK_EQ_U64(model.timeout_us, MSC_CMD_TIMEOUT_US);
	/* ILLEGAL REQUEST (SPC-4 sense key 5h): the device did not confirm a flush, so it is not a
	 * success: the data may still sit in its cache, and the caller is told. */
	model.sync_unsupported = true;
	CHECK_EQ_U64(msc_sync(&msc), MSC_SYNC_UNSUPPORTED);
	CHECK(msc.sync_unsupported);
	CHECK(contains(msc_error(&msc), "SYNCHRONIZE CACHE(10): refused (sense ILLEGAL REQUEST (0x05)"));
	CHECK(contains(msc_error(&msc), "the data may still be in the device's cache"));
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CBW, OP_REQUEST_SENSE), 1);
	model.sync_unsupported = false;
	model.fault = (struct msc_model_fault){ .kind = MODEL_FAULT_MEDIUM_ERROR, .op = OP_SYNC10 };
	CHECK_EQ_U64(msc_sync(&msc), (uint64_t)MSC_ERR_COMMAND);
	CHECK(contains(msc_error(&msc), "SYNCHRONIZE CACHE(10): sense MEDIUM ERROR (0x03)"));
	CHECK_EQ_U64(model.violations, 0);
}

/* ---- errors and recovery ---- */

/* After a recovery the device works again: a read of the written pattern. */
static void still_works(void)
{
	static uint8_t out[4 * 512], in[4 * 512];

	fill(out, sizeof(out), 99);
	model.fault.kind = MODEL_FAULT_NONE;
	CHECK_EQ_U64(msc_write(&msc, 100, 4, out), 0);
	CHECK_EQ_U64(msc_read(&msc, 100, 4, in), 0);
	CHECK(memcmp(in, out, sizeof(in)) == 0);
	CHECK_EQ_U64(model.violations, 0);
}

static void open_with_fault(enum msc_model_fault_kind kind, uint8_t op, unsigned times)
{
	CHECK_EQ_U64(open_ok(512, 2048), 0);
	msc_model_clear_log(&model);
	model.fault = (struct msc_model_fault){ .kind = kind, .op = op, .times = times };
}

static void data_in_stall(void)
{
	static uint8_t buf[8 * 512];
	int at;

	open_with_fault(MODEL_FAULT_DATA_STALL, OP_READ10, 0);
	CHECK_EQ_U64(msc_read(&msc, 0, 8, buf), (uint64_t)MSC_ERR_COMMAND);
	/* BOT 6.7.2: STALL on bulk IN -> clear it -> the CSW (failed) -> REQUEST SENSE. */
	at = FIND_SEQ(0, { MODEL_EV_CBW, 1 }, { MODEL_EV_STALL, 1 }, { MODEL_EV_CLEAR_HALT, 1 },
		      { MODEL_EV_CSW, 1 }, { MODEL_EV_CBW, 1 });
	CHECK(at >= 0);
	CHECK(at >= 0 && model.ev[at + 3].status == 1 && model.ev[at + 4].op == OP_REQUEST_SENSE);
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CLEAR_HALT, -1), 1);
	CHECK_EQ_U64(model.resets, 0);
	CHECK(contains(msc_error(&msc), "READ(10) lba 0 x8: sense MEDIUM ERROR (0x03) ASC 0x11 ASCQ 0x00"));
	still_works();
}

static void data_out_stall(void)
{
	static uint8_t buf[8 * 512];
	int at;

	open_with_fault(MODEL_FAULT_DATA_STALL, OP_WRITE10, 0);
	CHECK_EQ_U64(msc_write(&msc, 16, 8, buf), (uint64_t)MSC_ERR_COMMAND);
	/* BOT 6.7.3: STALL on bulk OUT -> clear bulk OUT (not IN) -> the CSW. */
	at = FIND_SEQ(0, { MODEL_EV_CBW, 0 }, { MODEL_EV_STALL, 0 }, { MODEL_EV_CLEAR_HALT, 0 },
		      { MODEL_EV_CSW, 1 });
	CHECK(at >= 0);
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CLEAR_HALT, -1), 1);
	CHECK_EQ_U64(model.resets, 0);
	CHECK(contains(msc_error(&msc), "WRITE(10) lba 16 x8: sense MEDIUM ERROR (0x03) ASC 0x0c"));
	still_works();
}

static void csw_stall_once(void)
{
	static uint8_t buf[8 * 512];

	open_with_fault(MODEL_FAULT_CSW_STALL, OP_READ10, 1);
	fill(disk, 8 * 512, 5);
	CHECK_EQ_U64(msc_read(&msc, 0, 8, buf), 0);
	CHECK(memcmp(buf, disk, sizeof(buf)) == 0);
	/* BOT 5.3.3: STALL on the CSW -> clear bulk IN -> read the CSW again. */
	CHECK(FIND_SEQ(0, { MODEL_EV_DATA, 1 }, { MODEL_EV_STALL, 1 }, { MODEL_EV_CLEAR_HALT, 1 },
		       { MODEL_EV_CSW, 1 }) >= 0);
	CHECK_EQ_U64(model.resets, 0);
	CHECK_STR(msc_error(&msc), "no error");
	still_works();
}

static void csw_stall_twice(void)
{
	static uint8_t buf[8 * 512];
	int at;

	/* A bulk IN endpoint that stalls the CSW again after its halt was cleared (BOT 5.3.3,
	 * figure 2): the reset recovery of BOT 5.3.4 (class reset, clear IN, clear OUT) brings it
	 * back, and the command is sent once more and lands. */
	open_with_fault(MODEL_FAULT_CSW_STALL, OP_READ10, 2);
	fill(disk, 8 * 512, 6);
	CHECK_EQ_U64(msc_read(&msc, 0, 8, buf), 0);
	CHECK(memcmp(buf, disk, sizeof(buf)) == 0);
	at = FIND_SEQ(0, { MODEL_EV_STALL, 1 }, { MODEL_EV_CLEAR_HALT, 1 }, { MODEL_EV_STALL, 1 },
		      { MODEL_EV_RESET, -1 }, { MODEL_EV_CLEAR_HALT, 1 }, { MODEL_EV_CLEAR_HALT, 0 },
		      { MODEL_EV_CBW, 1 }, { MODEL_EV_DATA, 1 }, { MODEL_EV_CSW, 1 });
	reset_recovery_follows(at);
	CHECK(at >= 0 && model.ev[at + 6].op == OP_READ10 && model.ev[at + 8].status == 0);
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CLEAR_HALT, -1), 3);
	CHECK_EQ_U64(msc.retries, 1);
	CHECK_STR(msc.retry_cmd, "READ(10)");
	CHECK_STR(msc.retry_why, "the CSW stalled twice");
	CHECK_STR(msc_error(&msc), "no error");
	still_works();
}

/* A CSW the host cannot trust: reset recovery right after it (BOT 6.3, 5.3.4), then the command
 * once more, which lands; the same fault again on the retry fails the command, saying both. */
static void bad_csw(enum msc_model_fault_kind kind, const char *why)
{
	static uint8_t buf[8 * 512];

	open_with_fault(kind, OP_READ10, 0);
	CHECK_EQ_U64(msc_read(&msc, 0, 8, buf), 0);
	reset_recovery_follows(FIND_SEQ(0, { MODEL_EV_CSW, 1 }, { MODEL_EV_RESET, -1 }));
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CLEAR_HALT, -1), 2);
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CBW, OP_READ10), 2);
	CHECK_EQ_U64(msc.retries, 1);
	CHECK(contains(msc.retry_why, why));
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CBW, OP_REQUEST_SENSE), 0);

	open_with_fault(kind, OP_READ10, 0);
	model.fault.repeat = 1;
	CHECK_EQ_U64(msc_read(&msc, 0, 8, buf), (uint64_t)MSC_ERR_TRANSPORT);
	CHECK_EQ_U64(model.resets, 2);
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CBW, OP_READ10), 2);
	CHECK(contains(msc_error(&msc), why));
	CHECK(contains(msc_error(&msc), "reset recovery done; retried once: failed again"));
	still_works();
}

static void csw_bad_signature(void)
{
	bad_csw(MODEL_FAULT_CSW_SIGNATURE, "invalid CSW (signature)");
}

static void csw_wrong_tag(void)
{
	bad_csw(MODEL_FAULT_CSW_TAG, "invalid CSW (tag");
}

static void csw_residue_too_large(void)
{
	bad_csw(MODEL_FAULT_CSW_RESIDUE, "CSW not meaningful (residue");
}

static void phase_error(void)
{
	bad_csw(MODEL_FAULT_PHASE, "phase error (CSW status 2)");
}

static void medium_error(void)
{
	static uint8_t buf[8 * 512];

	open_with_fault(MODEL_FAULT_MEDIUM_ERROR, OP_READ10, 0);
	CHECK_EQ_U64(msc_read(&msc, 3, 8, buf), (uint64_t)MSC_ERR_COMMAND);
	CHECK(FIND_SEQ(0, { MODEL_EV_CSW, 1 }, { MODEL_EV_CBW, 1 }) >= 0);
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CBW, OP_REQUEST_SENSE), 1);
	CHECK_EQ_U64(model.resets, 0);
	CHECK_STR(msc_error(&msc), "READ(10) lba 3 x8: sense MEDIUM ERROR (0x03) ASC 0x11 ASCQ 0x00");
	still_works();
}

static void transfer_error(void)
{
	static uint8_t buf[8 * 512];

	/* Once: reset recovery, the retry lands. */
	open_with_fault(MODEL_FAULT_XFER_ERROR, OP_READ10, 0);
	fill(disk, sizeof(buf), 8);
	CHECK_EQ_U64(msc_read(&msc, 0, 8, buf), 0);
	CHECK(memcmp(buf, disk, sizeof(buf)) == 0);
	reset_recovery_follows(FIND_SEQ(0, { MODEL_EV_XFER_ERROR, 1 }, { MODEL_EV_RESET, -1 }));
	CHECK_EQ_U64(msc.retries, 1);
	/* Twice: one retry only, and the error says both failed. */
	open_with_fault(MODEL_FAULT_XFER_ERROR, OP_READ10, 0);
	model.fault.repeat = 5;
	CHECK_EQ_U64(msc_read(&msc, 0, 8, buf), (uint64_t)MSC_ERR_TRANSPORT);
	CHECK_EQ_U64(model.resets, 2);
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CBW, OP_READ10), 2);
	CHECK(contains(msc_error(&msc), "data-in transfer failed; reset recovery done; retried once: failed again"));
	still_works();
}

static void short_read(void)
{
	static uint8_t buf[8 * 512];

	open_with_fault(MODEL_FAULT_SHORT, OP_READ10, 0);
	CHECK_EQ_U64(msc_read(&msc, 0, 8, buf), (uint64_t)MSC_ERR_DEVICE);
	CHECK(contains(msc_error(&msc), "READ(10) lba 0 x8: short read"));
	CHECK_EQ_U64(model.resets, 0);
	still_works();
}

/* UNIT ATTENTION: the command was not executed, so it is sent again. */
static void unit_attention_retried(void)
{
	static uint8_t buf[8 * 512];

	open_with_fault(MODEL_FAULT_UNIT_ATTENTION, OP_READ10, 0);
	fill(disk, sizeof(buf), 11);
	CHECK_EQ_U64(msc_read(&msc, 0, 8, buf), 0);
	CHECK(memcmp(buf, disk, sizeof(buf)) == 0);
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CBW, OP_READ10), 2);
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CBW, OP_REQUEST_SENSE), 1);
	CHECK_STR(msc_error(&msc), "no error");
	CHECK_EQ_U64(model.violations, 0);
}

/* A failure in the second command of a split write: the first landed, the error names the
 * second's blocks, no third is sent. */
static void fault_mid_split(void)
{
	static uint8_t buf[300 * 512];

	open_with_fault(MODEL_FAULT_MEDIUM_ERROR, OP_WRITE10, 0);
	model.fault.skip = 1;
	fill(buf, sizeof(buf), 7);
	CHECK_EQ_U64(msc_write(&msc, 0, 300, buf), (uint64_t)MSC_ERR_COMMAND);
	CHECK(contains(msc_error(&msc), "WRITE(10) lba 128 x128: sense MEDIUM ERROR"));
	CHECK(memcmp(disk, buf, 128 * 512) == 0);
	CHECK_EQ_U64(msc_model_count(&model, MODEL_EV_CBW, OP_WRITE10), 2);
	still_works();
}

/* An invalid CBW halts both endpoints until a reset (BOT 6.6.1): clear-halt alone does not
 * help, the reset recovery in the spec's order does. */
static void reset_recovery_after_invalid_cbw(void)
{
	static uint8_t junk[31];
	uint32_t got;

	CHECK_EQ_U64(open_ok(512, 2048), 0);
	CHECK_EQ_U64(dev.bulk(dev.ctx, false, junk, sizeof(junk), &got), USB_XFER_OK);
	CHECK_EQ_U64(model.violations, 1);
	dev.clear_halt(dev.ctx, true);
	CHECK(model.halt_in);
	CHECK_EQ_U64(msc_bot_reset_recovery(&msc.bot), 0);
	CHECK(!model.halt_in && !model.halt_out);
	model.violations = 0;
	still_works();
}

TEST_SUITE(msc) = {
	{ "open_512", open_512 },
	{ "open_4096", open_4096 },
	{ "open_max_lun_stall", open_max_lun_stall },
	{ "open_not_a_disk", open_not_a_disk },
	{ "open_capacity_16", open_capacity_16 },
	{ "lba_beyond_32_bits", lba_beyond_32_bits },
	{ "beyond_capacity", beyond_capacity },
	{ "tur_until_ready", tur_until_ready },
	{ "tur_gives_up", tur_gives_up },
	{ "split_512", split_512 },
	{ "split_4096", split_4096 },
	{ "sync_cache", sync_cache },
	{ "data_in_stall", data_in_stall },
	{ "data_out_stall", data_out_stall },
	{ "csw_stall_once", csw_stall_once },
	{ "csw_stall_twice", csw_stall_twice },
	{ "csw_bad_signature", csw_bad_signature },
	{ "csw_wrong_tag", csw_wrong_tag },
	{ "csw_residue_too_large", csw_residue_too_large },
	{ "phase_error", phase_error },
	{ "medium_error", medium_error },
	{ "transfer_error", transfer_error },
	{ "short_read", short_read },
	{ "unit_attention_retried", unit_attention_retried },
	{ "fault_mid_split", fault_mid_split },
	{ "reset_recovery_after_invalid_cbw", reset_recovery_after_invalid_cbw },
	{ 0, 0 },
};
