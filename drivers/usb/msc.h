/* A USB mass-storage device (a boot stick) as a block device: SCSI commands (SPC-4, SBC-3) over
 * the Bulk-Only Transport (drivers/usb/msc_bot.h), on the bulk endpoints the host controller
 * driver hands in as a struct usb_bulk_dev. One LUN, 0 unless msc_open_lun names another (card
 * readers and U3 sticks keep the medium on LUN 1 or later); READ(10)/WRITE(10), so the blocks
 * reachable are those below 2^32. Freestanding: no allocation (the caller gives the DMA scratch
 * memory), every wait and retry bounded. Each call that fails leaves a one-line reason in
 * msc_error(): the command, and the SCSI sense key/ASC/ASCQ or the transport's failure. */
#ifndef DRIVERS_USB_MSC_H
#define DRIVERS_USB_MSC_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/usb/msc_bot.h"
#include "drivers/usb/usb_bulk.h"

#define MSC_SCRATCH_SLOT 256      /* each scratch buffer's share: granules up to 256 bytes apart */
#define MSC_SCRATCH_MIN (4 * MSC_SCRATCH_SLOT) /* bytes of DMA memory msc_open needs */
#define MSC_XFER_MAX (64u * 1024) /* bytes one READ(10)/WRITE(10) moves at most */
#define MSC_ERROR_LEN 192         /* msc_error()'s text, NUL included */
/* msc_open waits for the medium at most MSC_TUR_TRIES TEST UNIT READYs, MSC_TUR_DELAY_US apart
 * while the device says NOT READY (5 s: a stick or card reader spinning up after power-on). */
#define MSC_TUR_TRIES 50
#define MSC_TUR_DELAY_US 100000u
/* Timeouts as mature drivers use them: a device just configured is left alone this long before
 * its first command (Linux usb-storage's delay_use, 1 s: some sticks answer nothing sooner); a
 * command's transfers complete within SD_TIMEOUT (Linux drivers/scsi/sd.h, 30 s), a cache flush
 * within twice that (SD_FLUSH_TIMEOUT_MULTIPLIER). */
#define MSC_SETTLE_US 1000000u
#define MSC_CMD_TIMEOUT_US 30000000u
#define MSC_SYNC_TIMEOUT_US (2u * MSC_CMD_TIMEOUT_US)

/* Negative returns. */
#define MSC_ERR_INVALID (-1)   /* the request was refused before anything was sent */
#define MSC_ERR_TRANSPORT (-2) /* USB or BOT failure; a reset recovery was run */
#define MSC_ERR_COMMAND (-3)   /* the device failed the command (sense in msc_error) */
#define MSC_ERR_DEVICE (-4)    /* unusable: not a disk, never ready, bad capacity, short data */
/* msc_sync's positive answer: the device refused SYNCHRONIZE CACHE (ILLEGAL REQUEST). Not a
 * success: nothing confirms its write cache reached the medium (msc_error says so). */
#define MSC_SYNC_UNSUPPORTED 1

struct msc {
	struct msc_bot bot;
	uint8_t *sense;        /* scratch: REQUEST SENSE data */
	uint8_t *data;         /* scratch: small data-in (INQUIRY, READ CAPACITY) */
	uint8_t max_lun;       /* GET MAX LUN's answer: the highest LUN msc_open_lun may name */
	uint8_t sense_key, asc, ascq; /* the last REQUEST SENSE's (0 when none) */
	uint32_t block_size;   /* bytes; 0 until msc_open succeeded */
	uint64_t blocks;       /* capacity in blocks */
	uint32_t max_blocks;   /* blocks one command moves (MSC_XFER_MAX / block_size) */
	char vendor[9], product[17], revision[5]; /* INQUIRY's, trailing spaces removed */
	bool start_sent;       /* START UNIT was sent to a unit that needed it (msc_open) */
	bool sync_unsupported; /* SYNCHRONIZE CACHE was answered ILLEGAL REQUEST */
	unsigned retries;      /* commands sent again after a transport failure and reset recovery */
	const char *retry_cmd, *retry_why; /* the last such command and its transport failure */
	const char *error;     /* NULL, or error_buf: why the last call failed */
	char error_buf[MSC_ERROR_LEN];
};

/* Bring the device up on LUN 0: MSC_SETTLE_US of quiet, GET MAX LUN, INQUIRY (must be a
 * direct-access block device), TEST UNIT READY until ready (bounded; UNIT ATTENTION and NOT READY
 * at power-on are waited out, and a unit NOT READY with ASC 04h is sent START UNIT once, as Linux
 * sd_spinup_disk does), READ CAPACITY(10), and (16) when (10) says the capacity does not fit.
 * Every command whose transport fails is sent once more after the reset recovery (m->retries). scratch: at least
 * MSC_SCRATCH_MIN bytes of DMA memory, kept for the life of m. 0, or a negative MSC_ERR_* with
 * the reason in msc_error(m) and m->block_size 0. */
int msc_open(struct msc *m, const struct usb_bulk_dev *d, void *scratch);
/* msc_open on LUN `lun` (BOT 5.1: 0..15). m->max_lun is GET MAX LUN's answer even when it fails,
 * so a caller tries LUN 0 and then each one up to it. */
int msc_open_lun(struct msc *m, const struct usb_bulk_dev *d, void *scratch, uint8_t lun);
/* Read/write `blocks` blocks at lba, in commands of at most MSC_XFER_MAX bytes. buf: DMA memory
 * of blocks * block_size bytes. 0, or a negative MSC_ERR_* (MSC_ERR_INVALID, nothing sent, for a
 * range beyond the capacity or past the 32-bit LBA of READ(10)/WRITE(10)); a failure part way
 * leaves the blocks before it transferred. A read the device answers short is an error. */
int msc_read(struct msc *m, uint64_t lba, uint32_t blocks, void *buf);
int msc_write(struct msc *m, uint64_t lba, uint32_t blocks, const void *buf);
/* SYNCHRONIZE CACHE(10) over the whole medium, bounded by MSC_SYNC_TIMEOUT_US. 0; or
 * MSC_SYNC_UNSUPPORTED when the device answers ILLEGAL REQUEST (m->sync_unsupported, and
 * msc_error says the data may still be in the device's cache); or a negative MSC_ERR_*. */
int msc_sync(struct msc *m);
/* Why the last failed call failed, one line ("no error" when none did). */
const char *msc_error(const struct msc *m);

#endif
