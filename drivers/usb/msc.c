/* USB mass storage: the SCSI side (see msc.h). Commands and fields after SPC-4 (INQUIRY, TEST UNIT
 * READY, REQUEST SENSE, sense data) and SBC-3 (READ CAPACITY(10)/(16), READ(10), WRITE(10),
 * SYNCHRONIZE CACHE(10)); multi-byte CDB and parameter fields are big-endian (SPC-4 3.5). A
 * command that ends in CHECK CONDITION (CSW status 1) is followed by REQUEST SENSE, the way the
 * Bulk-Only Transport reports the reason (it has no autosense). The command helpers below return
 * 0 or a negative MSC_ERR_*, and on failure leave the error line (msc_error) naming the command. */
#include "drivers/usb/msc.h"

#include "lib/fmt.h"

#include <stddef.h>

/* Operation codes. */
#define OP_TEST_UNIT_READY 0x00 /* SPC-4 */
#define OP_REQUEST_SENSE 0x03   /* SPC-4 */
#define OP_INQUIRY 0x12         /* SPC-4 */
#define OP_READ_CAPACITY_10 0x25
#define OP_READ_10 0x28
#define OP_WRITE_10 0x2A
#define OP_SYNCHRONIZE_CACHE_10 0x35
#define OP_START_STOP_UNIT 0x1B  /* SBC-3 */
#define OP_SERVICE_ACTION_IN_16 0x9E
#define SA_READ_CAPACITY_16 0x10 /* SERVICE ACTION IN(16)'s service action, byte 1 bits 4..0 */
#define CDB6_LEN 6
#define CDB10_LEN 10
#define CDB16_LEN 16

/* INQUIRY (SPC-4): allocation length in bytes 3..4; the standard data's first 36 bytes. */
#define INQ_OFF_ALLOC 3
#define INQ_LEN 36
#define INQ_OFF_TYPE 0          /* peripheral qualifier (7..5) and device type (4..0) */
#define INQ_TYPE_DIRECT_ACCESS 0x00 /* qualifier 0 (connected) and type 0 (SBC block device) */
#define INQ_HEADER_LEN 5        /* through the additional length byte */
#define INQ_OFF_VENDOR 8
#define INQ_VENDOR_LEN 8
#define INQ_OFF_PRODUCT 16
#define INQ_PRODUCT_LEN 16
#define INQ_OFF_REVISION 32
#define INQ_REVISION_LEN 4

/* REQUEST SENSE (SPC-4): allocation length in byte 4, fixed-format data (DESC bit 0). */
#define RS_OFF_ALLOC 4
#define SENSE_LEN 18
#define SENSE_RESPONSE_MASK 0x7F
#define SENSE_FIXED_CURRENT 0x70
#define SENSE_FIXED_DEFERRED 0x71
#define SENSE_DESC_CURRENT 0x72
#define SENSE_DESC_DEFERRED 0x73
#define SENSE_FIXED_OFF_KEY 2 /* fixed format: key in bits 3..0, ASC byte 12, ASCQ byte 13 */
#define SENSE_FIXED_OFF_ASC 12
#define SENSE_FIXED_OFF_ASCQ 13
#define SENSE_DESC_OFF_KEY 1  /* descriptor format: key byte 1, ASC 2, ASCQ 3 */
#define SENSE_DESC_OFF_ASC 2
#define SENSE_DESC_OFF_ASCQ 3
#define SENSE_KEY_MASK 0x0F
#define SENSE_KEY_NOT_READY 0x2
#define SENSE_KEY_ILLEGAL_REQUEST 0x5
#define SENSE_KEY_UNIT_ATTENTION 0x6
#define ASC_MEDIUM_NOT_PRESENT 0x3A
#define ASC_LUN_NOT_READY 0x04         /* LOGICAL UNIT NOT READY, <cause in ASCQ> */
#define ASCQ_MANUAL_INTERVENTION 0x03  /* ... MANUAL INTERVENTION REQUIRED: START UNIT cannot help */

/* START STOP UNIT (SBC-3): IMMED (byte 1 bit 0): status at once, readiness by TEST UNIT READY;
 * START (byte 4 bit 0) with power condition 0 and LOEJ 0: make the medium ready. */
#define SSU_OFF_IMMED 1
#define SSU_IMMED 0x01
#define SSU_OFF_START 4
#define SSU_START 0x01

/* READ CAPACITY (SBC-3). */
#define RC10_LEN 8             /* returned LBA (4), block length (4) */
#define RC10_LBA_MAX 0xFFFFFFFFu /* "use READ CAPACITY(16)" */
#define RC16_OFF_ALLOC 10      /* allocation length, bytes 10..13 */
#define RC16_ALLOC 32
#define RC16_LEN 12            /* returned LBA (8), block length (4): what is used */
#define BLOCK_SIZE_MIN 512u
#define BLOCK_SIZE_MAX MSC_XFER_MAX /* one block must fit in one command */

/* READ(10)/WRITE(10) (SBC-3): LBA in bytes 2..5, transfer length (blocks) in bytes 7..8. */
#define RW10_OFF_LBA 2
#define RW10_OFF_BLOCKS 7
#define RW10_LBA_LIMIT 0x100000000ull

/* The scratch memory: one MSC_SCRATCH_SLOT per buffer, so the CBW the CPU writes and the CSW,
 * sense and data the device writes never share a cache-writeback granule (usb_io.h). */
#define SCRATCH_CBW 0
#define SCRATCH_CSW (1 * MSC_SCRATCH_SLOT)
#define SCRATCH_SENSE (2 * MSC_SCRATCH_SLOT)
#define SCRATCH_DATA (3 * MSC_SCRATCH_SLOT)

/* A command that reports UNIT ATTENTION was not executed (SPC-4: the condition is reported
 * once): it is sent again, this many times in all. */
#define UA_TRIES 3
/* A command whose transport failed is sent again this many times after the reset recovery (BOT
 * 5.3.4 leaves the device ready for the next CBW; Linux usb-storage retries through the SCSI
 * midlayer too). One: a device failing twice in a row is not going to get better. */
#define TRANSPORT_RETRIES 1

struct scsi_cmd {
	const char *name;
	uint8_t cdb[MSC_BOT_CDB_MAX];
	uint8_t cdb_len;
	bool in;
	void *buf;
	uint32_t len;
	bool has_range; /* a READ/WRITE: name the blocks in the error */
	uint64_t lba;
	uint32_t blocks;
};

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, (uint16_t)(v >> 16));
	put_be16(p + 2, (uint16_t)v);
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

/* ---- the error line ---- */

static const char *const sense_key_names[16] = {
	"NO SENSE", "RECOVERED ERROR", "NOT READY", "MEDIUM ERROR", "HARDWARE ERROR",
	"ILLEGAL REQUEST", "UNIT ATTENTION", "DATA PROTECT", "BLANK CHECK", "VENDOR SPECIFIC",
	"COPY ABORTED", "ABORTED COMMAND", "RESERVED", "VOLUME OVERFLOW", "MISCOMPARE", "COMPLETED",
};

static void sb_hex2(struct sbuf *sb, uint8_t v)
{
	static const char digits[] = "0123456789abcdef";

	sb_puts(sb, "0x");
	sb_putc(sb, digits[v >> 4]);
	sb_putc(sb, digits[v & 0xF]);
}

/* Starts the error line with the command's name (and blocks): "READ(10) lba 8 x128: ". */
static void err_begin(struct msc *m, struct sbuf *sb, const struct scsi_cmd *c)
{
	sb_init(sb, m->error_buf, sizeof(m->error_buf));
	m->error = m->error_buf;
	sb_puts(sb, c->name);
	if (c->has_range) {
		sb_puts(sb, " lba ");
		sb_u64(sb, c->lba);
		sb_puts(sb, " x");
		sb_u64(sb, c->blocks);
	}
	sb_puts(sb, ": ");
}

static void err_sense(struct msc *m, struct sbuf *sb)
{
	sb_puts(sb, "sense ");
	sb_puts(sb, sense_key_names[m->sense_key & SENSE_KEY_MASK]);
	sb_puts(sb, " (");
	sb_hex2(sb, m->sense_key);
	sb_puts(sb, ") ASC ");
	sb_hex2(sb, m->asc);
	sb_puts(sb, " ASCQ ");
	sb_hex2(sb, m->ascq);
}

static void err_transport(struct msc *m, struct sbuf *sb, bool retried)
{
	sb_puts(sb, "transport: ");
	sb_puts(sb, m->bot.why ? m->bot.why : "failed");
	sb_puts(sb, m->bot.recovery_failed ? "; reset recovery failed" : "; reset recovery done");
	if (retried)
		sb_puts(sb, "; retried once: failed again");
}

static void set_timeout(struct msc *m, uint32_t us)
{
	const struct usb_bulk_dev *d = m->bot.dev;

	if (d->set_timeout)
		d->set_timeout(d->ctx, us);
}

static void err_text(struct msc *m, const struct scsi_cmd *c, const char *text)
{
	struct sbuf sb;

	err_begin(m, &sb, c);
	sb_puts(&sb, text);
}

/* ---- commands ---- */

/* REQUEST SENSE into m->sense_key/asc/ascq. False when it failed or gave no sense data. */
static bool request_sense(struct msc *m)
{
	uint8_t cdb[CDB6_LEN] = { OP_REQUEST_SENSE };
	const uint8_t *s = m->sense;
	uint32_t done = 0;
	uint8_t code;

	m->sense_key = m->asc = m->ascq = 0;
	cdb[RS_OFF_ALLOC] = SENSE_LEN;
	if (msc_bot_command(&m->bot, cdb, sizeof(cdb), true, m->sense, SENSE_LEN, &done) !=
	    MSC_BOT_PASSED)
		return false;
	code = s[0] & SENSE_RESPONSE_MASK;
	if ((code == SENSE_FIXED_CURRENT || code == SENSE_FIXED_DEFERRED) &&
	    done > SENSE_FIXED_OFF_ASCQ) {
		m->sense_key = s[SENSE_FIXED_OFF_KEY] & SENSE_KEY_MASK;
		m->asc = s[SENSE_FIXED_OFF_ASC];
		m->ascq = s[SENSE_FIXED_OFF_ASCQ];
		return true;
	}
	if ((code == SENSE_DESC_CURRENT || code == SENSE_DESC_DEFERRED) &&
	    done > SENSE_DESC_OFF_ASCQ) {
		m->sense_key = s[SENSE_DESC_OFF_KEY] & SENSE_KEY_MASK;
		m->asc = s[SENSE_DESC_OFF_ASC];
		m->ascq = s[SENSE_DESC_OFF_ASCQ];
		return true;
	}
	return false;
}

/* Runs c, sending it again (up to `tries` times in all) while it fails with UNIT ATTENTION.
 * *done: the data bytes moved. 0; MSC_ERR_TRANSPORT; or MSC_ERR_COMMAND with the sense in m
 * (sense key 0 when REQUEST SENSE gave none). Either failure leaves the error line. */
static int scsi_run(struct msc *m, const struct scsi_cmd *c, unsigned tries, uint32_t *done)
{
	struct sbuf sb;
	unsigned i, retries = 0;
	int r = MSC_BOT_ERROR;

	for (i = 0; i < tries; i++) {
		unsigned recoveries = m->bot.recoveries;

		r = msc_bot_command(&m->bot, c->cdb, c->cdb_len, c->in, c->buf, c->len, done);
		/* A transport failure the reset recovery cleaned up: the command once more. */
		if (r == MSC_BOT_ERROR && m->bot.recoveries != recoveries && !m->bot.recovery_failed &&
		    retries < TRANSPORT_RETRIES) {
			retries++;
			m->retries++;
			m->retry_cmd = c->name;
			m->retry_why = m->bot.why;
			i--; /* the retry is not one of the UNIT ATTENTION tries (unsigned: wraps back) */
			continue;
		}
		if (r != MSC_BOT_FAILED)
			break;
		if (!request_sense(m)) {
			err_begin(m, &sb, c);
			sb_puts(&sb, "command failed, REQUEST SENSE gave no sense");
			if (m->bot.why) {
				sb_puts(&sb, "; ");
				err_transport(m, &sb, retries != 0);
			}
			return MSC_ERR_COMMAND;
		}
		if (m->sense_key != SENSE_KEY_UNIT_ATTENTION)
			break;
	}
	if (r == MSC_BOT_PASSED)
		return 0;
	err_begin(m, &sb, c);
	if (r == MSC_BOT_ERROR) {
		err_transport(m, &sb, retries != 0);
		return MSC_ERR_TRANSPORT;
	}
	err_sense(m, &sb);
	return MSC_ERR_COMMAND;
}

/* scsi_run for a command that reads data: fewer than `need` bytes back is MSC_ERR_DEVICE ("short
 * data"), the device answering but not with what the command promises. */
static int scsi_run_data(struct msc *m, const struct scsi_cmd *c, uint32_t need, uint32_t *done)
{
	int r = scsi_run(m, c, UA_TRIES, done);

	if (r)
		return r;
	if (*done < need) {
		err_text(m, c, "short data");
		return MSC_ERR_DEVICE;
	}
	return 0;
}

/* INQUIRY's text fields: printable ASCII, trailing spaces removed. */
static void copy_ident(char *dst, const uint8_t *src, uint32_t n, uint32_t avail)
{
	uint32_t i;

	for (i = 0; i < n && i < avail; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7F ? (char)src[i] : '?';
	while (i && dst[i - 1] == ' ')
		i--;
	dst[i] = '\0';
}

/* INQUIRY: a direct-access device (else MSC_ERR_DEVICE); its vendor, product and revision. */
static int inquiry(struct msc *m)
{
	struct scsi_cmd c = { .name = "INQUIRY", .cdb = { OP_INQUIRY }, .cdb_len = CDB6_LEN,
			      .in = true, .buf = m->data, .len = INQ_LEN };
	uint32_t done = 0;
	int r;

	put_be16(c.cdb + INQ_OFF_ALLOC, INQ_LEN);
	r = scsi_run_data(m, &c, INQ_HEADER_LEN, &done);
	if (r)
		return r;
	if (m->data[INQ_OFF_TYPE] != INQ_TYPE_DIRECT_ACCESS) {
		struct sbuf sb;

		err_begin(m, &sb, &c);
		sb_puts(&sb, "not a direct-access block device (peripheral ");
		sb_hex2(&sb, m->data[INQ_OFF_TYPE]);
		sb_putc(&sb, ')');
		return MSC_ERR_DEVICE;
	}
	copy_ident(m->vendor, m->data + INQ_OFF_VENDOR, INQ_VENDOR_LEN,
		   done > INQ_OFF_VENDOR ? done - INQ_OFF_VENDOR : 0);
	copy_ident(m->product, m->data + INQ_OFF_PRODUCT, INQ_PRODUCT_LEN,
		   done > INQ_OFF_PRODUCT ? done - INQ_OFF_PRODUCT : 0);
	copy_ident(m->revision, m->data + INQ_OFF_REVISION, INQ_REVISION_LEN,
		   done > INQ_OFF_REVISION ? done - INQ_OFF_REVISION : 0);
	return 0;
}

/* START UNIT (START STOP UNIT with START = 1, IMMED = 1), once, for a unit that says it is not
 * ready (ASC 04h: an initializing command may be required; Linux sd_spinup_disk sends it for
 * these too). Its outcome is not judged: the TEST UNIT READYs that follow are. The sense of the
 * TEST UNIT READY that asked for it is kept for the error line. */
static void start_unit(struct msc *m)
{
	struct scsi_cmd c = { .name = "START STOP UNIT", .cdb = { OP_START_STOP_UNIT }, .cdb_len = CDB6_LEN };
	uint8_t key = m->sense_key, asc = m->asc, ascq = m->ascq;
	uint32_t done;

	c.cdb[SSU_OFF_IMMED] = SSU_IMMED;
	c.cdb[SSU_OFF_START] = SSU_START;
	m->start_sent = true;
	(void)scsi_run(m, &c, UA_TRIES, &done);
	m->sense_key = key;
	m->asc = asc;
	m->ascq = ascq;
}

/* TEST UNIT READY until it passes, at most MSC_TUR_TRIES times. NOT READY waits
 * MSC_TUR_DELAY_US before the next try, UNIT ATTENTION (reported once) none; a medium that is
 * not present, another sense or a transport failure ends it at once. MSC_ERR_DEVICE when it
 * never became ready. */
static int wait_ready(struct msc *m)
{
	const struct scsi_cmd c = { .name = "TEST UNIT READY", .cdb = { OP_TEST_UNIT_READY },
				    .cdb_len = CDB6_LEN };
	const struct usb_bulk_dev *d = m->bot.dev;
	uint32_t done;
	unsigned i;
	int r = MSC_ERR_DEVICE;
	struct sbuf sb;

	for (i = 0; i < MSC_TUR_TRIES; i++) {
		r = scsi_run(m, &c, 1, &done);
		if (r != MSC_ERR_COMMAND)
			return r;
		if (m->sense_key == SENSE_KEY_UNIT_ATTENTION)
			continue;
		if (m->sense_key != SENSE_KEY_NOT_READY || m->asc == ASC_MEDIUM_NOT_PRESENT)
			return MSC_ERR_DEVICE;
		if (m->asc == ASC_LUN_NOT_READY && m->ascq == ASCQ_MANUAL_INTERVENTION) {
			err_begin(m, &sb, &c);
			sb_puts(&sb, "not ready, manual intervention required: ");
			err_sense(m, &sb);
			return MSC_ERR_DEVICE;
		}
		if (m->asc == ASC_LUN_NOT_READY && !m->start_sent)
			start_unit(m);
		if (i + 1 < MSC_TUR_TRIES)
			d->delay_us(d->ctx, MSC_TUR_DELAY_US);
	}
	err_begin(m, &sb, &c);
	sb_puts(&sb, "not ready after ");
	sb_u64(&sb, MSC_TUR_TRIES);
	sb_puts(&sb, " tries, last ");
	err_sense(m, &sb);
	return MSC_ERR_DEVICE;
}

/* READ CAPACITY(16): *last_lba and *block_size; short data is MSC_ERR_DEVICE. */
static int read_capacity_16(struct msc *m, uint64_t *last_lba, uint32_t *block_size)
{
	struct scsi_cmd c = { .name = "READ CAPACITY(16)",
			      .cdb = { OP_SERVICE_ACTION_IN_16, SA_READ_CAPACITY_16 },
			      .cdb_len = CDB16_LEN, .in = true, .buf = m->data, .len = RC16_ALLOC };
	uint32_t done = 0;
	int r;

	put_be32(c.cdb + RC16_OFF_ALLOC, RC16_ALLOC);
	r = scsi_run_data(m, &c, RC16_LEN, &done);
	if (r)
		return r;
	*last_lba = get_be64(m->data);
	*block_size = get_be32(m->data + 8);
	return 0;
}

/* READ CAPACITY(10), and (16) when the capacity does not fit (SBC-3: last LBA FFFFFFFFh), into
 * m->blocks and m->block_size. MSC_ERR_DEVICE for short data, a block size that is not a power of
 * two from 512 bytes to MSC_XFER_MAX, or a capacity that overflows. */
static int read_capacity(struct msc *m)
{
	struct scsi_cmd c = { .name = "READ CAPACITY(10)", .cdb = { OP_READ_CAPACITY_10 },
			      .cdb_len = CDB10_LEN, .in = true, .buf = m->data, .len = RC10_LEN };
	uint32_t done = 0, block_size;
	uint64_t last_lba;
	int r = scsi_run_data(m, &c, RC10_LEN, &done);

	if (r)
		return r;
	last_lba = get_be32(m->data);
	block_size = get_be32(m->data + 4);
	if (last_lba == RC10_LBA_MAX) {
		c.name = "READ CAPACITY(16)";
		r = read_capacity_16(m, &last_lba, &block_size);
		if (r)
			return r;
	}
	if (block_size < BLOCK_SIZE_MIN || block_size > BLOCK_SIZE_MAX ||
	    (block_size & (block_size - 1))) {
		err_text(m, &c, "block size not a power of two from 512 to 64 KiB");
		return MSC_ERR_DEVICE;
	}
	if (last_lba == UINT64_MAX) {
		err_text(m, &c, "capacity overflows");
		return MSC_ERR_DEVICE;
	}
	m->blocks = last_lba + 1;
	m->block_size = block_size;
	m->max_blocks = MSC_XFER_MAX / block_size;
	return 0;
}

int msc_open(struct msc *m, const struct usb_bulk_dev *d, void *scratch)
{
	return msc_open_lun(m, d, scratch, 0);
}

int msc_open_lun(struct msc *m, const struct usb_bulk_dev *d, void *scratch, uint8_t lun)
{
	uint8_t *s = scratch;
	int r;

	if (!m)
		return MSC_ERR_INVALID;
	*m = (struct msc){ 0 };
	if (!d || !s || !d->bulk || !d->control || !d->clear_halt || !d->delay_us) {
		m->error = "msc_open: missing device, ops or scratch memory";
		return MSC_ERR_INVALID;
	}
	msc_bot_init(&m->bot, d, s + SCRATCH_CBW, s + SCRATCH_CSW);
	m->bot.lun = lun; /* every CBW from here on (BOT 5.1 bCBWLUN) */
	m->sense = s + SCRATCH_SENSE;
	m->data = s + SCRATCH_DATA;
	set_timeout(m, MSC_CMD_TIMEOUT_US);
	/* The settle time before the first class request (Linux usb-storage: delay_use). */
	d->delay_us(d->ctx, MSC_SETTLE_US);
	/* Optional (BOT 3.2): the LUNs msc_open_lun's caller may try. */
	(void)msc_bot_get_max_lun(&m->bot, m->data, &m->max_lun);
	r = inquiry(m);
	if (!r)
		r = wait_ready(m);
	if (!r)
		r = read_capacity(m);
	if (r) {
		m->block_size = 0;
		return r;
	}
	m->error = NULL;
	return 0;
}

/* READ(10)/WRITE(10) of [lba, lba + blocks) in commands of at most m->max_blocks blocks; see
 * msc_read for the failures. */
static int transfer(struct msc *m, bool write, uint64_t lba, uint32_t blocks, uint8_t *buf)
{
	struct scsi_cmd c = { .name = write ? "WRITE(10)" : "READ(10)", .cdb_len = CDB10_LEN,
			      .in = !write, .has_range = true, .lba = lba, .blocks = blocks };
	uint32_t done;
	int r;

	if (!m || !m->block_size) {
		if (m)
			m->error = "msc: device not open";
		return MSC_ERR_INVALID;
	}
	if (lba > m->blocks || blocks > m->blocks - lba) {
		err_text(m, &c, "beyond the capacity");
		return MSC_ERR_INVALID;
	}
	if (blocks && lba + blocks > RW10_LBA_LIMIT) {
		err_text(m, &c, "LBA beyond 32 bits (READ(16)/WRITE(16) not supported)");
		return MSC_ERR_INVALID;
	}
	while (blocks) {
		uint32_t n = blocks < m->max_blocks ? blocks : m->max_blocks;

		c.cdb[0] = write ? OP_WRITE_10 : OP_READ_10;
		put_be32(c.cdb + RW10_OFF_LBA, (uint32_t)lba);
		put_be16(c.cdb + RW10_OFF_BLOCKS, (uint16_t)n);
		c.buf = buf;
		c.len = n * m->block_size;
		c.lba = lba;
		c.blocks = n;
		done = 0;
		r = scsi_run(m, &c, UA_TRIES, &done);
		if (r)
			return r;
		if (done != c.len) {
			err_text(m, &c, write ? "the device took fewer bytes than sent"
					      : "short read (fewer bytes than asked)");
			return MSC_ERR_DEVICE;
		}
		lba += n;
		blocks -= n;
		buf += c.len;
	}
	m->error = NULL;
	return 0;
}

int msc_read(struct msc *m, uint64_t lba, uint32_t blocks, void *buf)
{
	return transfer(m, false, lba, blocks, buf);
}

int msc_write(struct msc *m, uint64_t lba, uint32_t blocks, const void *buf)
{
	/* The buffer is only read (bulk OUT); the ops table has one pointer type for both. */
	return transfer(m, true, lba, blocks, (uint8_t *)(uintptr_t)buf);
}

int msc_sync(struct msc *m)
{
	/* LBA 0 and 0 blocks: the whole medium (SBC-3). */
	const struct scsi_cmd c = { .name = "SYNCHRONIZE CACHE(10)",
				    .cdb = { OP_SYNCHRONIZE_CACHE_10 }, .cdb_len = CDB10_LEN };
	uint32_t done;
	int r;

	if (!m || !m->block_size) {
		if (m)
			m->error = "msc: device not open";
		return MSC_ERR_INVALID;
	}
	set_timeout(m, MSC_SYNC_TIMEOUT_US);
	r = scsi_run(m, &c, UA_TRIES, &done);
	set_timeout(m, MSC_CMD_TIMEOUT_US);
	/* ILLEGAL REQUEST: the device does not have the command, or will not say. Its data may still
	 * be in a write cache it has: not a success, and the caller must say so. */
	if (r == MSC_ERR_COMMAND && m->sense_key == SENSE_KEY_ILLEGAL_REQUEST) {
		struct sbuf sb;

		m->sync_unsupported = true;
		err_begin(m, &sb, &c);
		sb_puts(&sb, "refused (");
		err_sense(m, &sb);
		sb_puts(&sb, "): the data may still be in the device's cache");
		return MSC_SYNC_UNSUPPORTED;
	}
	if (!r)
		m->error = NULL;
	return r;
}

const char *msc_error(const struct msc *m)
{
	return m && m->error ? m->error : "no error";
}
