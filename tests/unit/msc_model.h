/* A model USB mass-storage device for the driver unit tests (tests/unit/test_msc.c): a Bulk-Only
 * Transport device (BOT 1.0) with one LUN or more (the medium on one of them), behind the struct
 * usb_bulk_dev ops a host controller driver would give, over an in-memory disk. It takes the host's side only as the spec lets it:
 * CBWs are checked (signature, length, flags, LUN, CB length; 6.2), the host's and the device's
 * idea of the data stage are reconciled as in the thirteen cases (6.7), a halted endpoint stalls
 * until the host clears it, an invalid CBW halts both until a reset recovery (6.6.1), and the
 * class reset keeps the halts (3.1). Anything the host does that the spec does not allow is a
 * violation, logged. Every transfer, clear-halt and class request is logged in order, so a test
 * can assert the exact recovery sequence. Faults are injected per command. */
#ifndef TESTS_UNIT_MSC_MODEL_H
#define TESTS_UNIT_MSC_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/usb/usb_bulk.h"

#define MSC_MODEL_EVENTS 2048

enum msc_model_ev {
	MODEL_EV_CBW,         /* a valid CBW: op, tag, len, in (and lba, blocks of READ/WRITE) */
	MODEL_EV_DATA,        /* a data-stage transfer: in, len = bytes moved */
	MODEL_EV_CSW,         /* a CSW sent: status, tag */
	MODEL_EV_STALL,       /* a transfer answered STALL: in */
	MODEL_EV_XFER_ERROR,  /* a transfer failed (injected, or a NAK the host waited out) */
	MODEL_EV_CLEAR_HALT,  /* CLEAR_FEATURE(ENDPOINT_HALT): in */
	MODEL_EV_RESET,       /* Bulk-Only Mass Storage Reset */
	MODEL_EV_GET_MAX_LUN,
	MODEL_EV_VIOLATION,   /* the host broke the protocol: note */
};

struct msc_model_event {
	enum msc_model_ev kind;
	bool in;
	uint8_t op;     /* the command's operation code (CBW, DATA, CSW) */
	uint32_t tag;
	uint32_t len;
	uint8_t status;
	uint64_t lba;
	uint32_t blocks;
	const char *note;
};

enum msc_model_fault_kind {
	MODEL_FAULT_NONE,
	MODEL_FAULT_DATA_STALL,    /* the data stage STALLs at once; CSW status 1, MEDIUM ERROR */
	MODEL_FAULT_CSW_STALL,     /* `times` reads of the CSW STALL (each halts bulk IN) */
	MODEL_FAULT_CSW_SIGNATURE, /* the CSW's signature is wrong */
	MODEL_FAULT_CSW_TAG,       /* the CSW carries the tag plus one */
	MODEL_FAULT_PHASE,         /* the CSW says phase error (status 2) */
	MODEL_FAULT_MEDIUM_ERROR,  /* the command fails without data: status 1, MEDIUM ERROR */
	MODEL_FAULT_XFER_ERROR,    /* the data-stage transfer fails (not a STALL) */
	MODEL_FAULT_SHORT,         /* data-in: half the data, status 0, the residue says so */
	MODEL_FAULT_CSW_RESIDUE,   /* the CSW's residue exceeds the transfer length */
	MODEL_FAULT_UNIT_ATTENTION, /* the command fails: UNIT ATTENTION, medium may have changed */
};

struct msc_model_fault {
	enum msc_model_fault_kind kind;
	uint8_t op;     /* on a command with this operation code ... */
	unsigned skip;  /* ... after this many such commands passed */
	unsigned times; /* MODEL_FAULT_CSW_STALL: how many CSW reads stall */
	unsigned repeat; /* so many further such commands fault too (a persistent fault) */
};

enum msc_model_stage { MODEL_STAGE_CBW, MODEL_STAGE_DATA, MODEL_STAGE_CSW };

struct msc_model {
	/* Configuration: msc_model_init's defaults, changed by a test before msc_open. */
	uint16_t interface;
	uint32_t block_size;
	uint64_t capacity;    /* blocks, as READ CAPACITY reports them */
	uint8_t *disk;        /* the first disk_blocks blocks' store; beyond: reads 0, writes dropped */
	uint64_t disk_blocks;
	uint8_t peripheral;   /* INQUIRY byte 0 */
	unsigned not_ready;   /* TEST UNIT READYs that fail first: UNIT ATTENTION, then NOT READY */
	bool max_lun_stalls;  /* GET MAX LUN answered with STALL (a one-LUN device may) */
	uint8_t max_lun;      /* GET MAX LUN's answer: LUNs 0..max_lun exist */
	uint8_t medium_lun;   /* the LUN with the medium; the others answer MEDIUM NOT PRESENT */
	bool sync_unsupported; /* SYNCHRONIZE CACHE(10) is ILLEGAL REQUEST */
	bool start_needed;    /* TEST UNIT READY is NOT READY, 04h/02h, until START UNIT (SBC-3) */
	struct msc_model_fault fault;

	/* Device state. */
	enum msc_model_stage stage;
	bool halt_in, halt_out, need_reset;
	uint8_t lun;           /* the current CBW's bCBWLUN */
	uint8_t cdb[16];
	uint32_t tag;
	uint32_t host_len;     /* dCBWDataTransferLength */
	bool host_in;
	bool dev_in;           /* the device's data direction */
	uint32_t xfer_len;     /* data bytes the device moves */
	uint32_t dev_used;     /* of them, the bytes the command uses (host_len - residue) */
	uint32_t pos;
	bool stall_data;       /* the data stage answers STALL (a case 8/10 mismatch or a fault) */
	uint8_t status;
	bool rw;               /* READ/WRITE: data from/to the disk at rw_off */
	uint64_t rw_off;
	uint8_t resp[64];
	uint8_t sense_key, asc, ascq;
	enum msc_model_fault_kind cmd_fault; /* the fault of the current command */
	unsigned csw_stalls, fault_matches, tur_fails;

	/* Records. */
	struct msc_model_event ev[MSC_MODEL_EVENTS];
	unsigned nev, lost_events;
	unsigned violations;
	unsigned turs, syncs, resets, starts;
	uint32_t timeout_us;      /* the bound set_timeout last asked for (0: never) */
	uint32_t sync_timeout_us; /* ... when the last SYNCHRONIZE CACHE's CBW came */
	uint32_t max_rw_len;   /* largest dCBWDataTransferLength of a READ(10)/WRITE(10) */
	uint64_t delay_us;     /* delays asked for */
};

/* A ready device of `capacity` blocks of block_size bytes (interface 0, direct access),
 * disk: disk_blocks blocks of store. */
void msc_model_init(struct msc_model *m, uint32_t block_size, uint64_t capacity, uint8_t *disk,
		    uint64_t disk_blocks);
/* The ops table that reaches the model. */
void msc_model_dev(struct msc_model *m, struct usb_bulk_dev *d);
/* Index of the first event of `kind` at or after `from`, or -1. */
int msc_model_find(const struct msc_model *m, enum msc_model_ev kind, unsigned from);
/* Events of `kind` (for CBW, DATA and CSW: of operation code op; -1 any). */
unsigned msc_model_count(const struct msc_model *m, enum msc_model_ev kind, int op);
/* Forgets the events and counters (not the state). */
void msc_model_clear_log(struct msc_model *m);

#endif
