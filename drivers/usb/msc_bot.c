/* Bulk-Only Transport (see msc_bot.h). Section numbers are those of the USB Mass Storage Class
 * Bulk-Only Transport specification, revision 1.0. The host side of the error handling: a STALL
 * on the data stage is cleared and the CSW read (6.7.2, 6.7.3); a STALL on the CSW is cleared and
 * the CSW read once more (5.3.3, figure 2); anything else the host cannot make sense of ends in a
 * reset recovery (5.3.4), after which the device takes CBWs again. */
#include "drivers/usb/msc_bot.h"

#include "lib/le.h"

#include <stddef.h>

/* CBW fields (5.1). */
#define CBW_SIGNATURE 0x43425355u /* "USBC" */
#define CBW_OFF_SIGNATURE 0
#define CBW_OFF_TAG 4
#define CBW_OFF_LENGTH 8          /* dCBWDataTransferLength */
#define CBW_OFF_FLAGS 12
#define CBW_FLAG_DATA_IN 0x80     /* bmCBWFlags bit 7: 1 = data from the device */
#define CBW_OFF_LUN 13
#define CBW_LUN_MASK 0x0F
#define CBW_OFF_CB_LENGTH 14
#define CBW_OFF_CB 15

/* CSW fields (5.2). */
#define CSW_SIGNATURE 0x53425355u /* "USBS" */
#define CSW_OFF_SIGNATURE 0
#define CSW_OFF_TAG 4
#define CSW_OFF_RESIDUE 8
#define CSW_OFF_STATUS 12
#define CSW_STATUS_PASSED 0
#define CSW_STATUS_FAILED 1
#define CSW_STATUS_PHASE_ERROR 2

/* Class requests (3.1, 3.2) to the interface: bmRequestType class, interface recipient. */
#define REQ_TYPE_CLASS_IFACE_OUT 0x21 /* 0010 0001b */
#define REQ_TYPE_CLASS_IFACE_IN 0xA1  /* 1010 0001b */
#define REQ_BOMS_RESET 0xFF           /* Bulk-Only Mass Storage Reset */
#define REQ_GET_MAX_LUN 0xFE

/* Reads of the CSW: the first, and one more after a STALL was cleared (5.3.3). */
#define CSW_READ_TRIES 2

static void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

void msc_bot_init(struct msc_bot *b, const struct usb_bulk_dev *dev, void *cbw, void *csw)
{
	b->dev = dev;
	b->cbw = cbw;
	b->csw = csw;
	b->tag = 0;
	b->lun = 0;
	b->why = NULL;
	b->recovery_failed = false;
	b->recoveries = 0;
}

int msc_bot_get_max_lun(struct msc_bot *b, uint8_t *buf, uint8_t *max_lun)
{
	const struct usb_bulk_dev *d = b->dev;
	int r;

	buf[0] = 0;
	r = d->control(d->ctx, REQ_TYPE_CLASS_IFACE_IN, REQ_GET_MAX_LUN, 0, d->interface, buf, 1);
	/* 3.2: a device with one LUN may STALL the request. */
	*max_lun = r == USB_XFER_OK ? (uint8_t)(buf[0] & CBW_LUN_MASK) : 0;
	return r == USB_XFER_OK || r == USB_XFER_STALL ? 0 : -1;
}

int msc_bot_reset_recovery(struct msc_bot *b)
{
	const struct usb_bulk_dev *d = b->dev;
	/* The device keeps its endpoints' STALL conditions across the class reset (3.1), hence the
	 * two clears after it; all three are tried even when one fails. */
	int r_reset = d->control(d->ctx, REQ_TYPE_CLASS_IFACE_OUT, REQ_BOMS_RESET, 0, d->interface,
				 NULL, 0);
	int r_in = d->clear_halt(d->ctx, true);
	int r_out = d->clear_halt(d->ctx, false);

	return r_reset == USB_XFER_OK && r_in == USB_XFER_OK && r_out == USB_XFER_OK ? 0 : -1;
}

/* The transport failed for `why`: reset recovery, and the command fails. */
static int bot_fail(struct msc_bot *b, const char *why)
{
	b->why = why;
	b->recoveries++;
	b->recovery_failed = msc_bot_reset_recovery(b) != 0;
	return MSC_BOT_ERROR;
}

static void build_cbw(struct msc_bot *b, const uint8_t *cdb, uint8_t cdb_len, bool in, uint32_t len)
{
	uint8_t *c = b->cbw;
	uint8_t i;

	for (i = 0; i < MSC_BOT_CBW_LEN; i++)
		c[i] = 0;
	wr32(c + CBW_OFF_SIGNATURE, CBW_SIGNATURE);
	wr32(c + CBW_OFF_TAG, b->tag);
	wr32(c + CBW_OFF_LENGTH, len);
	/* 5.1: the direction bit is ignored without data; keep it 0 then. */
	c[CBW_OFF_FLAGS] = in && len ? CBW_FLAG_DATA_IN : 0;
	c[CBW_OFF_LUN] = b->lun & CBW_LUN_MASK;
	c[CBW_OFF_CB_LENGTH] = cdb_len;
	for (i = 0; i < cdb_len; i++)
		c[CBW_OFF_CB + i] = cdb[i];
}

/* The data stage. 0, or MSC_BOT_ERROR. A STALL is cleared and the CSW still read (6.7.2). */
static int data_stage(struct msc_bot *b, bool in, void *data, uint32_t len, uint32_t *moved)
{
	const struct usb_bulk_dev *d = b->dev;
	int r;

	*moved = 0;
	r = d->bulk(d->ctx, in, data, len, moved);
	if (*moved > len)
		*moved = len;
	if (r == USB_XFER_STALL && d->clear_halt(d->ctx, in) != USB_XFER_OK)
		return bot_fail(b, "the data stage stalled and the halt could not be cleared");
	if (r != USB_XFER_OK && r != USB_XFER_STALL)
		return bot_fail(b, in ? "data-in transfer failed" : "data-out transfer failed");
	return 0;
}

/* Reads the CSW into b->csw: 0, or MSC_BOT_ERROR. */
static int read_csw(struct msc_bot *b)
{
	const struct usb_bulk_dev *d = b->dev;
	uint32_t got = 0;
	int r = USB_XFER_ERROR;
	int i;

	for (i = 0; i < CSW_READ_TRIES; i++) {
		for (got = 0; got < MSC_BOT_CSW_LEN; got++)
			b->csw[got] = 0; /* a stale CSW must not pass for this one */
		got = 0;
		r = d->bulk(d->ctx, true, b->csw, MSC_BOT_CSW_LEN, &got);
		if (r != USB_XFER_STALL)
			break;
		if (i + 1 < CSW_READ_TRIES && d->clear_halt(d->ctx, true) != USB_XFER_OK)
			return bot_fail(b, "the CSW stalled and the halt could not be cleared");
	}
	if (r == USB_XFER_STALL)
		return bot_fail(b, "the CSW stalled twice");
	if (r != USB_XFER_OK)
		return bot_fail(b, "CSW transfer failed");
	/* 6.3.1: a valid CSW is 13 bytes with the signature and the CBW's tag. */
	if (got != MSC_BOT_CSW_LEN)
		return bot_fail(b, "invalid CSW (not 13 bytes)");
	if (rd32(b->csw + CSW_OFF_SIGNATURE) != CSW_SIGNATURE)
		return bot_fail(b, "invalid CSW (signature)");
	if (rd32(b->csw + CSW_OFF_TAG) != b->tag)
		return bot_fail(b, "invalid CSW (tag is not the CBW's)");
	return 0;
}

int msc_bot_command(struct msc_bot *b, const uint8_t *cdb, uint8_t cdb_len, bool in, void *data,
		    uint32_t len, uint32_t *done)
{
	const struct usb_bulk_dev *d = b->dev;
	uint32_t moved = 0, got = 0, residue;
	uint8_t status;
	int r;

	*done = 0;
	b->why = NULL;
	b->recovery_failed = false;
	if (cdb_len == 0 || cdb_len > MSC_BOT_CDB_MAX) {
		b->why = "CDB length out of range";
		return MSC_BOT_ERROR;
	}
	b->tag++;
	build_cbw(b, cdb, cdb_len, in, len);
	r = d->bulk(d->ctx, false, b->cbw, MSC_BOT_CBW_LEN, &got);
	/* 6.6.1: a device that refuses a CBW stalls both pipes until a reset recovery. */
	if (r == USB_XFER_STALL)
		return bot_fail(b, "the CBW stalled");
	if (r != USB_XFER_OK || got != MSC_BOT_CBW_LEN)
		return bot_fail(b, "CBW transfer failed");
	if (len && data_stage(b, in, data, len, &moved) != 0)
		return MSC_BOT_ERROR;
	if (read_csw(b) != 0)
		return MSC_BOT_ERROR;
	status = b->csw[CSW_OFF_STATUS];
	residue = rd32(b->csw + CSW_OFF_RESIDUE);
	/* 6.5: a phase error is recovered by a reset recovery. */
	if (status == CSW_STATUS_PHASE_ERROR)
		return bot_fail(b, "phase error (CSW status 2)");
	/* 6.3.2: meaningful only with status 0 or 1 and a residue within the transfer length. */
	if (status != CSW_STATUS_PASSED && status != CSW_STATUS_FAILED)
		return bot_fail(b, "CSW not meaningful (reserved status)");
	if (residue > len)
		return bot_fail(b, "CSW not meaningful (residue beyond the transfer length)");
	*done = moved < len - residue ? moved : len - residue;
	return status == CSW_STATUS_PASSED ? MSC_BOT_PASSED : MSC_BOT_FAILED;
}
