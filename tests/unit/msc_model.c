/* The model BOT device (see msc_model.h). Its numbers are written out here from the specs, not
 * taken from the driver: BOT = USB Mass Storage Class Bulk-Only Transport 1.0; SPC-4 and SBC-3
 * for the SCSI commands, sense data and sense codes. */
#include "tests/unit/msc_model.h"

#include <string.h>

/* BOT 5.1: the CBW. */
#define CBW_BYTES 31
#define CBW_SIG 0x43425355u /* "USBC", little-endian */
#define CBW_FLAGS_IN 0x80
#define CBW_FLAGS_RESERVED 0x7F
#define CBW_LUN_RESERVED 0xF0
#define CBW_CBLEN_RESERVED 0xE0
#define CBW_CBLEN_MIN 1
#define CBW_CBLEN_MAX 16
/* BOT 5.2: the CSW. */
#define CSW_BYTES 13
#define CSW_SIG 0x53425355u /* "USBS" */
#define CSW_PASSED 0
#define CSW_FAILED 1
#define CSW_PHASE 2
/* BOT 3.1, 3.2: class requests, bmRequestType class + interface recipient. */
#define BOMS_RESET_TYPE 0x21
#define BOMS_RESET_REQ 0xFF
#define GET_MAX_LUN_TYPE 0xA1
#define GET_MAX_LUN_REQ 0xFE

/* SPC-4 / SBC-3 operation codes. */
#define SCSI_TEST_UNIT_READY 0x00
#define SCSI_REQUEST_SENSE 0x03
#define SCSI_INQUIRY 0x12
#define SCSI_READ_CAPACITY10 0x25
#define SCSI_READ10 0x28
#define SCSI_WRITE10 0x2A
#define SCSI_SYNC_CACHE10 0x35
#define SCSI_START_STOP_UNIT 0x1B
#define SSU_START 0x01                      /* byte 4 bit 0 (SBC-3 START STOP UNIT) */
#define SSU_POWER_CONDITION 0xF0            /* byte 4 bits 7:4: 0 means START decides */
#define SCSI_SERVICE_ACTION_IN16 0x9E
#define SCSI_SA_READ_CAPACITY16 0x10
/* SPC-4 sense keys and additional sense codes (ASC, ASCQ). */
#define KEY_NOT_READY 0x2
#define KEY_MEDIUM_ERROR 0x3
#define KEY_ILLEGAL_REQUEST 0x5
#define KEY_UNIT_ATTENTION 0x6
#define ASC_BECOMING_READY 0x04, 0x01       /* LOGICAL UNIT IS IN PROCESS OF BECOMING READY */
#define ASC_INIT_REQUIRED 0x04, 0x02        /* LOGICAL UNIT NOT READY, INITIALIZING COMMAND REQUIRED */
#define ASC_POWER_ON_RESET 0x29, 0x00       /* POWER ON, RESET, OR BUS DEVICE RESET OCCURRED */
#define ASC_MEDIUM_CHANGED 0x28, 0x00       /* NOT READY TO READY CHANGE, MEDIUM MAY HAVE CHANGED */
#define ASC_UNRECOVERED_READ 0x11, 0x00     /* UNRECOVERED READ ERROR */
#define ASC_WRITE_ERROR 0x0C, 0x00          /* WRITE ERROR */
#define ASC_INVALID_OPCODE 0x20, 0x00       /* INVALID COMMAND OPERATION CODE */
#define ASC_LBA_OUT_OF_RANGE 0x21, 0x00     /* LOGICAL BLOCK ADDRESS OUT OF RANGE */
#define ASC_INVALID_FIELD_IN_CDB 0x24, 0x00 /* INVALID FIELD IN CDB */
#define ASC_MEDIUM_NOT_PRESENT 0x3A, 0x00   /* MEDIUM NOT PRESENT */
#define SENSE_FIXED 0x70                    /* fixed format, current error */
#define SENSE_FIXED_BYTES 18
#define SENSE_ADDITIONAL_LEN 10             /* bytes after byte 7 */
#define INQUIRY_BYTES 36
#define INQUIRY_RMB 0x80                    /* removable medium */
#define INQUIRY_VERSION_SPC4 0x06
#define INQUIRY_FORMAT 0x02
#define RC10_BYTES 8
#define RC16_BYTES 32

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t be(const uint8_t *p, int n)
{
	uint32_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void put_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint32_t min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static struct msc_model_event *log_ev(struct msc_model *m, enum msc_model_ev kind, bool in)
{
	static struct msc_model_event dropped;
	struct msc_model_event *e;

	if (m->nev >= MSC_MODEL_EVENTS) {
		m->lost_events++;
		return &dropped;
	}
	e = &m->ev[m->nev++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->in = in;
	e->op = m->cdb[0];
	e->tag = m->tag;
	return e;
}

static void violation(struct msc_model *m, const char *note)
{
	m->violations++;
	log_ev(m, MODEL_EV_VIOLATION, false)->note = note;
}

static void set_sense(struct msc_model *m, uint8_t key, uint8_t asc, uint8_t ascq)
{
	m->status = CSW_FAILED;
	m->sense_key = key;
	m->asc = asc;
	m->ascq = ascq;
}

/* ---- SCSI: what the device wants to move (dev_in, dev_used bytes) and its status ---- */

static void scsi_inquiry(struct msc_model *m)
{
	static const char ident[] = "BMTEST  " "Model disk      " "1.00";

	if (m->cdb[1] & 1) { /* EVPD: no vital product data pages here */
		set_sense(m, KEY_ILLEGAL_REQUEST, ASC_INVALID_FIELD_IN_CDB);
		return;
	}
	m->resp[0] = m->peripheral;
	m->resp[1] = INQUIRY_RMB;
	m->resp[2] = INQUIRY_VERSION_SPC4;
	m->resp[3] = INQUIRY_FORMAT;
	m->resp[4] = INQUIRY_BYTES - 5;
	memcpy(m->resp + 8, ident, sizeof(ident) - 1);
	m->dev_in = true;
	m->dev_used = min32(INQUIRY_BYTES, be(m->cdb + 3, 2));
}

static void scsi_request_sense(struct msc_model *m)
{
	m->resp[0] = SENSE_FIXED;
	m->resp[2] = m->sense_key;
	m->resp[7] = SENSE_ADDITIONAL_LEN;
	m->resp[12] = m->asc;
	m->resp[13] = m->ascq;
	m->dev_in = true;
	m->dev_used = min32(SENSE_FIXED_BYTES, m->cdb[4]);
	m->sense_key = m->asc = m->ascq = 0; /* reported: cleared */
}

static void scsi_tur(struct msc_model *m)
{
	m->turs++;
	/* SPC-4 sense code 04h/02h: the unit waits for START UNIT (SBC-3 START STOP UNIT). */
	if (m->start_needed) {
		set_sense(m, KEY_NOT_READY, ASC_INIT_REQUIRED);
		return;
	}
	if (!m->not_ready)
		return;
	m->not_ready--;
	/* Power-on: the first command is told of the reset, then the unit becomes ready. */
	if (m->tur_fails++ == 0)
		set_sense(m, KEY_UNIT_ATTENTION, ASC_POWER_ON_RESET);
	else
		set_sense(m, KEY_NOT_READY, ASC_BECOMING_READY);
}

static void scsi_capacity(struct msc_model *m, bool sixteen)
{
	uint64_t last = m->capacity - 1;

	if (sixteen) {
		if ((m->cdb[1] & 0x1F) != SCSI_SA_READ_CAPACITY16) {
			set_sense(m, KEY_ILLEGAL_REQUEST, ASC_INVALID_FIELD_IN_CDB);
			return;
		}
		put_be(m->resp, last, 8);
		put_be(m->resp + 8, m->block_size, 4);
		m->dev_used = min32(RC16_BYTES, be(m->cdb + 10, 4));
	} else {
		/* SBC-3: a capacity READ CAPACITY(10) cannot express reads FFFFFFFFh. */
		put_be(m->resp, last > 0xFFFFFFFFull ? 0xFFFFFFFFull : last, 4);
		put_be(m->resp + 4, m->block_size, 4);
		m->dev_used = RC10_BYTES;
	}
	m->dev_in = true;
}

static void scsi_rw(struct msc_model *m, bool write)
{
	uint64_t lba = be(m->cdb + 2, 4);
	uint32_t blocks = be(m->cdb + 7, 2);

	if (m->host_len > m->max_rw_len)
		m->max_rw_len = m->host_len;
	if (lba + blocks > m->capacity) {
		set_sense(m, KEY_ILLEGAL_REQUEST, ASC_LBA_OUT_OF_RANGE);
		return;
	}
	m->dev_in = !write;
	m->dev_used = blocks * m->block_size;
	m->rw = true;
	m->rw_off = lba * m->block_size;
}

static void scsi_execute(struct msc_model *m)
{
	uint8_t op = m->cdb[0];

	m->status = CSW_PASSED;
	m->dev_used = 0;
	m->rw = false;
	memset(m->resp, 0, sizeof(m->resp));
	if (op != SCSI_REQUEST_SENSE) /* SPC-4: sense data lasts until the next command */
		m->sense_key = m->asc = m->ascq = 0;
	/* A LUN without a medium (a card reader's empty slot): SPC-4: NOT READY, MEDIUM NOT PRESENT
	 * for every medium access; INQUIRY and REQUEST SENSE still answer. */
	if (m->lun != m->medium_lun && op != SCSI_INQUIRY && op != SCSI_REQUEST_SENSE) {
		set_sense(m, KEY_NOT_READY, ASC_MEDIUM_NOT_PRESENT);
		return;
	}
	switch (op) {
	case SCSI_TEST_UNIT_READY: scsi_tur(m); break;
	case SCSI_REQUEST_SENSE: scsi_request_sense(m); break;
	case SCSI_INQUIRY: scsi_inquiry(m); break;
	case SCSI_READ_CAPACITY10: scsi_capacity(m, false); break;
	case SCSI_SERVICE_ACTION_IN16: scsi_capacity(m, true); break;
	case SCSI_READ10: scsi_rw(m, false); break;
	case SCSI_WRITE10: scsi_rw(m, true); break;
	case SCSI_START_STOP_UNIT:
		m->starts++;
		if ((m->cdb[4] & SSU_START) && !(m->cdb[4] & SSU_POWER_CONDITION))
			m->start_needed = false;
		break;
	case SCSI_SYNC_CACHE10:
		if (m->sync_unsupported)
			set_sense(m, KEY_ILLEGAL_REQUEST, ASC_INVALID_OPCODE);
		else
			m->syncs++;
		break;
	default: set_sense(m, KEY_ILLEGAL_REQUEST, ASC_INVALID_OPCODE); break;
	}
}

/* ---- BOT ---- */

/* Faults that act before the data stage. */
static void apply_fault(struct msc_model *m)
{
	bool write = m->cdb[0] == SCSI_WRITE10;

	switch (m->cmd_fault) {
	case MODEL_FAULT_MEDIUM_ERROR:
	case MODEL_FAULT_DATA_STALL: /* the medium fails before any data moved */
		m->dev_used = 0;
		if (write)
			set_sense(m, KEY_MEDIUM_ERROR, ASC_WRITE_ERROR);
		else
			set_sense(m, KEY_MEDIUM_ERROR, ASC_UNRECOVERED_READ);
		break;
	case MODEL_FAULT_SHORT:
		m->dev_used /= 2;
		break;
	case MODEL_FAULT_UNIT_ATTENTION: /* SPC-4: the command is not executed */
		m->dev_used = 0;
		set_sense(m, KEY_UNIT_ATTENTION, ASC_MEDIUM_CHANGED);
		break;
	case MODEL_FAULT_CSW_STALL:
		m->csw_stalls = m->fault.times ? m->fault.times : 1;
		break;
	default:
		break;
	}
}

/* BOT 6.7: the host's expectation (Hn, Hi, Ho) against the device's (Dn, Di, Do). */
static void thirteen_cases(struct msc_model *m)
{
	bool host_data = m->host_len != 0, dev_data = m->dev_used != 0;

	m->stall_data = false;
	m->xfer_len = 0;
	if (!host_data) {
		if (dev_data) /* cases 2, 3: Hn < Di, Hn < Do */
			m->status = CSW_PHASE;
		m->dev_used = 0;
		return;
	}
	if (dev_data && m->dev_in != m->host_in) { /* cases 8, 10: Hi <> Do, Ho <> Di */
		m->stall_data = true;
		m->status = CSW_PHASE;
		m->dev_used = 0;
		return;
	}
	if (m->host_in) { /* cases 4..7: send min(Hi, Di), short packet if fewer */
		if (m->dev_used > m->host_len) { /* case 7: Hi < Di */
			m->status = CSW_PHASE;
			m->dev_used = m->host_len;
		}
		m->xfer_len = m->dev_used;
	} else { /* cases 9, 11..13: take all Ho, use the first Do */
		if (m->dev_used > m->host_len) { /* case 13: Ho < Do */
			m->status = CSW_PHASE;
			m->dev_used = m->host_len;
		}
		m->xfer_len = m->host_len;
	}
}

static bool cbw_meaningful(const struct msc_model *m, const uint8_t *c)
{
	/* 6.2.2: bCBWLUN names a LUN the device has (GET MAX LUN's answer at most) */
	return !(c[12] & CBW_FLAGS_RESERVED) && !(c[13] & CBW_LUN_RESERVED) && (c[13] & 0x0F) <= m->max_lun &&
	       !(c[14] & CBW_CBLEN_RESERVED) && c[14] >= CBW_CBLEN_MIN && c[14] <= CBW_CBLEN_MAX;
}

static int receive_cbw(struct msc_model *m, const uint8_t *c, uint32_t len, uint32_t *actual)
{
	struct msc_model_event *e;

	*actual = len;
	/* 6.2.1 valid, 6.2.2 meaningful; 6.6.1: otherwise stall both until a reset recovery. */
	if (len != CBW_BYTES || le32(c) != CBW_SIG || !cbw_meaningful(m, c)) {
		violation(m, "invalid or not meaningful CBW");
		m->halt_in = m->halt_out = m->need_reset = true;
		return USB_XFER_OK;
	}
	memset(m->cdb, 0, sizeof(m->cdb));
	memcpy(m->cdb, c + 15, c[14]);
	m->tag = le32(c + 4);
	m->host_len = le32(c + 8);
	m->host_in = (c[12] & CBW_FLAGS_IN) != 0;
	m->lun = c[13] & 0x0F;
	m->cmd_fault = MODEL_FAULT_NONE;
	if (m->fault.kind != MODEL_FAULT_NONE && m->fault.op == m->cdb[0]) {
		unsigned k = m->fault_matches++;

		if (k >= m->fault.skip && k <= m->fault.skip + m->fault.repeat)
			m->cmd_fault = m->fault.kind;
	}
	if (m->cdb[0] == SCSI_SYNC_CACHE10)
		m->sync_timeout_us = m->timeout_us;
	e = log_ev(m, MODEL_EV_CBW, m->host_in);
	e->len = m->host_len;
	if (m->cdb[0] == SCSI_READ10 || m->cdb[0] == SCSI_WRITE10) {
		e->lba = be(m->cdb + 2, 4);
		e->blocks = be(m->cdb + 7, 2);
	}
	scsi_execute(m);
	apply_fault(m);
	thirteen_cases(m);
	m->pos = 0;
	m->stage = m->host_len ? MODEL_STAGE_DATA : MODEL_STAGE_CSW;
	if (m->cmd_fault == MODEL_FAULT_DATA_STALL) /* 6.7.2, 6.7.3: the device may end it so */
		m->stall_data = true;
	return USB_XFER_OK;
}

/* The disk's bytes [off, off + n): to buf (read) or from it (write), inside the store only. */
static void disk_io(struct msc_model *m, uint64_t off, uint8_t *buf, uint32_t n, bool write)
{
	uint64_t store = m->disk_blocks * m->block_size;

	for (uint32_t i = 0; i < n; i++, off++) {
		if (write && off < store)
			m->disk[off] = buf[i];
		else if (!write)
			buf[i] = off < store ? m->disk[off] : 0;
	}
}

static int data_stage(struct msc_model *m, bool in, uint8_t *buf, uint32_t len, uint32_t *actual)
{
	uint32_t n;

	if (in != m->host_in) {
		violation(m, "data stage in the direction the CBW did not give");
		return USB_XFER_ERROR;
	}
	if (m->stall_data) {
		/* 6.7.2/6.7.3: the device ends the data stage with a STALL; the CSW follows. */
		*(in ? &m->halt_in : &m->halt_out) = true;
		m->stage = MODEL_STAGE_CSW;
		log_ev(m, MODEL_EV_STALL, in);
		return USB_XFER_STALL;
	}
	if (m->cmd_fault == MODEL_FAULT_XFER_ERROR) {
		m->stage = MODEL_STAGE_CSW;
		log_ev(m, MODEL_EV_XFER_ERROR, in);
		return USB_XFER_ERROR;
	}
	if (!in && len > m->host_len - m->pos) {
		violation(m, "more data out than the CBW announced");
		len = m->host_len - m->pos;
	}
	n = min32(len, m->xfer_len - m->pos);
	if (m->rw && m->pos < m->dev_used)
		disk_io(m, m->rw_off + m->pos, buf, min32(n, m->dev_used - m->pos), !in);
	else if (in)
		memcpy(buf, m->resp + m->pos, n);
	m->pos += n;
	*actual = n;
	log_ev(m, MODEL_EV_DATA, in)->len = n;
	/* A short packet, or all the data: the data stage is over. */
	if (n < len || m->pos == m->xfer_len)
		m->stage = MODEL_STAGE_CSW;
	return USB_XFER_OK;
}

static int send_csw(struct msc_model *m, uint8_t *buf, uint32_t len, uint32_t *actual)
{
	uint32_t tag = m->tag;
	struct msc_model_event *e;
	uint8_t csw[CSW_BYTES];

	if (m->csw_stalls) {
		m->csw_stalls--;
		m->halt_in = true;
		log_ev(m, MODEL_EV_STALL, true);
		return USB_XFER_STALL;
	}
	if (len < CSW_BYTES) { /* the device's packet is longer than asked: babble */
		violation(m, "CSW read shorter than 13 bytes");
		return USB_XFER_ERROR;
	}
	if (m->cmd_fault == MODEL_FAULT_PHASE)
		m->status = CSW_PHASE;
	if (m->cmd_fault == MODEL_FAULT_CSW_TAG)
		tag++;
	put_le32(csw, m->cmd_fault == MODEL_FAULT_CSW_SIGNATURE ? CSW_SIG ^ 0xFF : CSW_SIG);
	put_le32(csw + 4, tag);
	/* 6.7: the residue; 6.3.2: never more than dCBWDataTransferLength */
	put_le32(csw + 8, m->cmd_fault == MODEL_FAULT_CSW_RESIDUE ? m->host_len + 1
								   : m->host_len - m->dev_used);
	csw[12] = m->status;
	memcpy(buf, csw, CSW_BYTES);
	*actual = CSW_BYTES;
	e = log_ev(m, MODEL_EV_CSW, true);
	e->status = m->status;
	e->len = m->host_len - m->dev_used;
	m->stage = MODEL_STAGE_CBW;
	return USB_XFER_OK;
}

static int model_bulk(void *ctx, bool in, void *buf, uint32_t len, uint32_t *actual)
{
	struct msc_model *m = ctx;

	*actual = 0;
	if (in ? m->halt_in : m->halt_out) {
		log_ev(m, MODEL_EV_STALL, in);
		return USB_XFER_STALL;
	}
	switch (m->stage) {
	case MODEL_STAGE_CBW:
		if (!in)
			return receive_cbw(m, buf, len, actual);
		break;
	case MODEL_STAGE_DATA:
		return data_stage(m, in, buf, len, actual);
	case MODEL_STAGE_CSW:
		if (in)
			return send_csw(m, buf, len, actual);
		break;
	}
	/* The device NAKs a transfer it does not expect; the host gives up after its timeout. */
	violation(m, in ? "bulk IN while the device waits for a CBW" : "bulk OUT while a CSW is due");
	log_ev(m, MODEL_EV_XFER_ERROR, in);
	return USB_XFER_ERROR;
}

static int model_control(void *ctx, uint8_t type, uint8_t req, uint16_t value, uint16_t index,
			 void *buf, uint16_t len)
{
	struct msc_model *m = ctx;

	if (type == BOMS_RESET_TYPE && req == BOMS_RESET_REQ) {
		log_ev(m, MODEL_EV_RESET, false);
		if (value || index != m->interface || len) {
			violation(m, "Bulk-Only Mass Storage Reset with wrong fields");
			return USB_XFER_STALL;
		}
		/* 3.1: ready for a CBW; the endpoints' halts stay (the host clears them). */
		m->resets++;
		m->stage = MODEL_STAGE_CBW;
		m->need_reset = false;
		m->csw_stalls = 0;
		return USB_XFER_OK;
	}
	if (type == GET_MAX_LUN_TYPE && req == GET_MAX_LUN_REQ) {
		log_ev(m, MODEL_EV_GET_MAX_LUN, true);
		if (value || index != m->interface || len != 1) {
			violation(m, "GET MAX LUN with wrong fields");
			return USB_XFER_STALL;
		}
		if (m->max_lun_stalls)
			return USB_XFER_STALL;
		((uint8_t *)buf)[0] = m->max_lun;
		return USB_XFER_OK;
	}
	violation(m, "unknown control request");
	return USB_XFER_STALL;
}

static int model_clear_halt(void *ctx, bool in)
{
	struct msc_model *m = ctx;

	log_ev(m, MODEL_EV_CLEAR_HALT, in);
	/* 6.6.1: after an invalid CBW only a reset recovery lifts the halts. */
	if (!m->need_reset)
		*(in ? &m->halt_in : &m->halt_out) = false;
	return USB_XFER_OK;
}

static void model_delay(void *ctx, uint32_t us)
{
	((struct msc_model *)ctx)->delay_us += us;
}

static void model_set_timeout(void *ctx, uint32_t us)
{
	((struct msc_model *)ctx)->timeout_us = us;
}

void msc_model_init(struct msc_model *m, uint32_t block_size, uint64_t capacity, uint8_t *disk,
		    uint64_t disk_blocks)
{
	memset(m, 0, sizeof(*m));
	m->block_size = block_size;
	m->capacity = capacity;
	m->disk = disk;
	m->disk_blocks = disk_blocks;
	m->stage = MODEL_STAGE_CBW;
}

void msc_model_dev(struct msc_model *m, struct usb_bulk_dev *d)
{
	d->ctx = m;
	d->interface = m->interface;
	d->bulk = model_bulk;
	d->control = model_control;
	d->clear_halt = model_clear_halt;
	d->delay_us = model_delay;
	d->set_timeout = model_set_timeout;
}

int msc_model_find(const struct msc_model *m, enum msc_model_ev kind, unsigned from)
{
	for (unsigned i = from; i < m->nev; i++)
		if (m->ev[i].kind == kind)
			return (int)i;
	return -1;
}

unsigned msc_model_count(const struct msc_model *m, enum msc_model_ev kind, int op)
{
	unsigned n = 0;

	for (unsigned i = 0; i < m->nev; i++)
		if (m->ev[i].kind == kind && (op < 0 || m->ev[i].op == op))
			n++;
	return n;
}

void msc_model_clear_log(struct msc_model *m)
{
	m->nev = m->lost_events = m->violations = 0;
	m->turs = m->syncs = m->resets = m->starts = 0;
	m->max_rw_len = 0;
	m->delay_us = 0;
}
