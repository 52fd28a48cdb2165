/* USB Mass Storage Class Bulk-Only Transport (BOT 1.0): one SCSI command as a Command Block
 * Wrapper on the bulk OUT endpoint, its data stage, and the Command Status Wrapper on the bulk IN
 * endpoint, with the spec's error recovery: a stalled data stage or CSW is cleared (BOT 6.7,
 * 5.3.3), and an invalid CSW, a phase error or a failed transfer ends in a reset recovery (BOT
 * 5.3.4). The SCSI side is drivers/usb/msc.h. */
#ifndef DRIVERS_USB_MSC_BOT_H
#define DRIVERS_USB_MSC_BOT_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/usb/usb_bulk.h"

#define MSC_BOT_CBW_LEN 31   /* BOT 5.1: Command Block Wrapper */
#define MSC_BOT_CSW_LEN 13   /* BOT 5.2: Command Status Wrapper */
#define MSC_BOT_CDB_MAX 16   /* BOT 5.1: CBWCB holds 1..16 bytes */

/* msc_bot_command's results. */
#define MSC_BOT_PASSED 0    /* CSW status 0: the command passed */
#define MSC_BOT_FAILED 1    /* CSW status 1: the command failed, REQUEST SENSE tells why */
#define MSC_BOT_ERROR (-1)  /* transport failure (b->why); a reset recovery was run */

struct msc_bot {
	const struct usb_bulk_dev *dev;
	uint8_t *cbw;        /* MSC_BOT_CBW_LEN bytes of DMA memory */
	uint8_t *csw;        /* MSC_BOT_CSW_LEN bytes of DMA memory */
	uint32_t tag;        /* dCBWTag of the last CBW sent */
	uint8_t lun;
	const char *why;     /* the last MSC_BOT_ERROR's reason, one phrase */
	bool recovery_failed; /* the reset recovery after it failed too: the device is lost */
	unsigned recoveries;  /* reset recoveries run (after transport failures), ever */
};

void msc_bot_init(struct msc_bot *b, const struct usb_bulk_dev *dev, void *cbw, void *csw);

/* GET MAX LUN (BOT 3.2) into *max_lun; buf: 1 byte of DMA memory. The request is optional for a
 * device: a STALL means a single LUN (*max_lun = 0, returns 0). -1 on another failure. */
int msc_bot_get_max_lun(struct msc_bot *b, uint8_t *buf, uint8_t *max_lun);

/* One command: cdb (1..16 bytes), then len bytes of data in or out of `data` (DMA memory; none
 * when len is 0). *done: the data bytes the device moved (the bytes transferred, less what the
 * CSW's residue says it did not use). Returns MSC_BOT_PASSED, MSC_BOT_FAILED, or MSC_BOT_ERROR
 * with b->why after a stall that could not be cleared, a failed transfer, an invalid or not
 * meaningful CSW or a phase error, each followed by a reset recovery. */
int msc_bot_command(struct msc_bot *b, const uint8_t *cdb, uint8_t cdb_len, bool in, void *data,
		    uint32_t len, uint32_t *done);

/* Reset recovery (BOT 5.3.4): Bulk-Only Mass Storage Reset to the interface, then clear halt on
 * bulk IN and on bulk OUT. 0, or -1 when one of the three failed (all three are tried). */
int msc_bot_reset_recovery(struct msc_bot *b);

#endif
