/* The boot stick's copy of the record stream (`save=`, docs/saving.md): a RAM mirror of the data
 * area of \BAREMETRIC\RUN_NNN.LOG that every record line is appended to as it is emitted, and the
 * block writes that bring the file on the stick up to date at set boundaries and at the end.
 *
 * The file was created and pre-allocated through the firmware's file protocol before
 * ExitBootServices; its blocks on the device are the extent list the FAT reader found. Every write
 * goes through that list and is checked against it again just before it is issued, so nothing
 * outside the file is ever written. The first two blocks hold the header (the format is in
 * docs/saving.md; harness/bmharness/stream/stick/runlog.py reads it): a nonce that identifies the
 * file, a sequence number, how many bytes of stream are valid and a CRC. Each flush writes the
 * data, makes it durable (the device's sync), only then writes the next header into the block
 * the previous header is not in, and makes that durable: a power cut, even inside a header
 * write, leaves the previous header intact and every byte it counts on the medium, so at most
 * the flush in progress is lost. The device below is an ops table (the USB mass-storage driver in the firmware, a memory
 * disk in the unit tests). */
#ifndef DRIVERS_STORAGE_SAVE_LOG_H
#define DRIVERS_STORAGE_SAVE_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SAVE_LOG_MAGIC "baremetric-log 2\n"
#define SAVE_LOG_NONCE_HEX 32   /* 128 bits as lowercase hex */
#define SAVE_LOG_HDR_MIN 512    /* a header is one device block, at least this */
#define SAVE_LOG_HDR_BLOCKS 2   /* header seq n lives in file block n % 2; the data follows */
#define SAVE_LOG_EXTENTS_MAX 64 /* more fragments than this: the file is refused */

struct save_extent {
	uint64_t lba;    /* first device block */
	uint64_t blocks; /* device blocks, in file order */
};

/* The device the file lives on. Each returns 0 on success. max_blocks: the most blocks one read or
 * write may move (the transport's transfer limit). */
struct save_dev {
	void *ctx;
	uint32_t max_blocks;
	int (*read)(void *ctx, uint64_t lba, uint32_t blocks, void *buf);
	int (*write)(void *ctx, uint64_t lba, uint32_t blocks, const void *buf);
	int (*sync)(void *ctx);
};

struct save_log {
	uint32_t block;    /* device block size = one header's size; the data starts 2 blocks in */
	uint8_t *hdr;      /* 2 blocks: the header written, and the one read back at attach */
	uint8_t *data;     /* RAM mirror of the data area, zeroed */
	uint64_t capacity; /* bytes of data the file holds after its header */
	uint64_t valid;    /* bytes appended so far */
	uint64_t lost;     /* bytes that did not fit in capacity (the serial copy still has them) */
	uint64_t on_disk;  /* data bytes written for good (a multiple of block) */
	uint64_t seq;      /* sequence number of the newest header on the stick */
	uint64_t counted;  /* the valid count that header carries */
	char nonce[SAVE_LOG_NONCE_HEX + 1];
	struct save_extent ext[SAVE_LOG_EXTENTS_MAX];
	unsigned n_ext;
	const struct save_dev *dev; /* NULL until attached */
	bool failed;                /* a write failed: no more writes */
	bool closed;                /* the final flush completed */
	const char *error;          /* why attach or a flush failed */
	uint64_t writes;            /* device write calls made */
};

/* Set up the mirror. hdr: 2 * block bytes; data: capacity bytes (both DMA-able memory when the
 * device does DMA); block >= SAVE_LOG_HDR_MIN; nonce: SAVE_LOG_NONCE_HEX lowercase hex digits. */
void save_log_init(struct save_log *l, uint32_t block, void *hdr, void *data, uint64_t capacity,
		   const char *nonce);
/* Header number `seq` for `valid` bytes in state open or closed, into out (block bytes, NUL
 * padded, its CRC line last). */
void save_log_format_header(const struct save_log *l, uint64_t seq, uint64_t valid, bool closed, uint8_t *out);
/* The file's first SAVE_LOG_HDR_BLOCKS blocks as written before ExitBootServices, into out
 * (SAVE_LOG_HDR_BLOCKS * block bytes): headers 0 and 1, both for 0 valid bytes, both with the nonce. */
void save_log_format_initial(const struct save_log *l, uint8_t *out);
/* The file's blocks on the device, in file order. False (with l->error) when there are too many
 * extents, one is empty, or together they hold less than the header plus capacity. */
bool save_log_set_extents(struct save_log *l, const struct save_extent *ext, unsigned n);
/* Append stream bytes to the mirror (no device access). Bytes past capacity are counted in lost. */
void save_log_append(struct save_log *l, const void *p, size_t n);
/* Take the device: read both header blocks back and require each to be, byte for byte, what
 * save_log_format_initial wrote (so both carry this run's nonce), so a different stick or file
 * is never written, not even the second header block. Nothing is written and, on failure, nothing
 * of l changes but l->error: a caller may try it on several devices. False with l->error. */
bool save_log_attach(struct save_log *l, const struct save_dev *dev);
/* Write what was appended since the last flush, synchronise the device's cache, then write the
 * next header (seq + 1, in the other header block; `close`: state closed) and synchronise again:
 * when it returns true, a power cut can no longer take what it wrote. Nothing new and not
 * closing: no write. False with l->error after a failed
 * write or sync; no write is issued after one failed. Without an attached device it does nothing
 * (true). */
bool save_log_flush(struct save_log *l, bool close);
/* Whether device blocks [lba, lba + blocks) lie inside one extent of the file (every write's
 * last check, exposed for tests). */
bool save_log_inside(const struct save_log *l, uint64_t lba, uint64_t blocks);

#endif
