/* The boot stick's copy of the record stream (see save_log.h). */
#include "drivers/storage/save_log.h"

#include <string.h>

#include "lib/crc32.h"
#include "lib/fmt.h"

#define COUNT_DIGITS 20 /* seq and valid are fixed width, so the header's layout never moves */
#define CRC_KEY "crc32="
#define HEX_DIGITS "0123456789abcdef"

void save_log_init(struct save_log *l, uint32_t block, void *hdr, void *data, uint64_t capacity,
		   const char *nonce)
{
	memset(l, 0, sizeof(*l));
	l->block = block;
	l->hdr = hdr;
	l->data = data;
	l->capacity = capacity;
	l->seq = SAVE_LOG_HDR_BLOCKS - 1; /* the newest of the headers written before boot services */
	str_copy(l->nonce, nonce, sizeof(l->nonce));
}

static void put_kv(struct sbuf *sb, const char *key, uint64_t v)
{
	sb_puts(sb, key);
	sb_putc(sb, '=');
	sb_u64(sb, v);
	sb_putc(sb, '\n');
}

/* key=<v as COUNT_DIGITS zero-padded decimal digits> */
static void put_fixed(struct sbuf *sb, const char *key, uint64_t v)
{
	char digits[COUNT_DIGITS + 1];
	struct sbuf num;

	sb_init(&num, digits, sizeof(digits));
	sb_u64(&num, v);
	sb_puts(sb, key);
	sb_putc(sb, '=');
	for (unsigned pad = (unsigned)num.len; pad < COUNT_DIGITS; pad++)
		sb_putc(sb, '0');
	sb_puts(sb, digits);
	sb_putc(sb, '\n');
}

void save_log_format_header(const struct save_log *l, uint64_t seq, uint64_t valid, bool closed, uint8_t *out)
{
	struct sbuf sb;
	uint32_t crc;

	memset(out, 0, l->block);
	sb_init(&sb, (char *)out, l->block);
	sb_puts(&sb, SAVE_LOG_MAGIC);
	sb_puts(&sb, "nonce=");
	sb_puts(&sb, l->nonce);
	sb_putc(&sb, '\n');
	put_kv(&sb, "block", l->block);
	put_kv(&sb, "data_offset", (uint64_t)SAVE_LOG_HDR_BLOCKS * l->block);
	put_kv(&sb, "capacity", l->capacity);
	put_fixed(&sb, "seq", seq);
	put_fixed(&sb, "valid", valid);
	sb_puts(&sb, closed ? "state=closed\n" : "state=open\n");
	/* The CRC covers every line above it: a header torn by a power cut does not check. */
	crc = crc32_update(0, out, sb.len);
	sb_puts(&sb, CRC_KEY);
	for (int shift = 28; shift >= 0; shift -= 4)
		sb_putc(&sb, HEX_DIGITS[(crc >> shift) & 0xF]);
	sb_putc(&sb, '\n');
	/* sbuf's terminating NUL is part of the padding */
}

void save_log_format_initial(const struct save_log *l, uint8_t *out)
{
	for (unsigned i = 0; i < SAVE_LOG_HDR_BLOCKS; i++)
		save_log_format_header(l, i, 0, false, out + (size_t)i * l->block);
}

bool save_log_set_extents(struct save_log *l, const struct save_extent *ext, unsigned n)
{
	uint64_t blocks = 0, need = SAVE_LOG_HDR_BLOCKS + (l->capacity + l->block - 1) / l->block;

	if (n == 0 || n > SAVE_LOG_EXTENTS_MAX) {
		l->error = n ? "the log file is in more fragments than the firmware keeps" : "the log file has no blocks";
		return false;
	}
	for (unsigned i = 0; i < n; i++) {
		if (!ext[i].blocks) {
			l->error = "the log file's extent list has an empty extent";
			return false;
		}
		l->ext[i] = ext[i];
		blocks += ext[i].blocks;
	}
	if (blocks < need) {
		l->error = "the log file's blocks on the stick are fewer than its size needs";
		return false;
	}
	l->n_ext = n;
	return true;
}

void save_log_append(struct save_log *l, const void *p, size_t n)
{
	size_t room = l->valid < l->capacity ? (size_t)(l->capacity - l->valid) : 0;
	size_t take = n < room ? n : room;

	memcpy(l->data + l->valid, p, take);
	l->valid += take;
	l->lost += n - take;
}

bool save_log_inside(const struct save_log *l, uint64_t lba, uint64_t blocks)
{
	for (unsigned i = 0; i < l->n_ext; i++)
		if (lba >= l->ext[i].lba && blocks <= l->ext[i].blocks && lba - l->ext[i].lba <= l->ext[i].blocks - blocks)
			return true;
	return false;
}

/* Device block of file block `fb`, and how many file blocks from there are contiguous on the
 * device (within its extent). False when fb is past the file's blocks. */
static bool map_block(const struct save_log *l, uint64_t fb, uint64_t *lba, uint64_t *run)
{
	for (unsigned i = 0; i < l->n_ext; i++) {
		if (fb < l->ext[i].blocks) {
			*lba = l->ext[i].lba + fb;
			*run = l->ext[i].blocks - fb;
			return true;
		}
		fb -= l->ext[i].blocks;
	}
	return false;
}

static bool fail(struct save_log *l, const char *why)
{
	l->failed = true;
	l->error = why;
	return false;
}

/* Write `count` file blocks from file block `fb`, split at extent ends and at the transfer limit. */
static bool write_file_blocks(struct save_log *l, uint64_t fb, uint64_t count, const uint8_t *buf)
{
	while (count) {
		uint64_t lba, run, n;

		if (!map_block(l, fb, &lba, &run))
			return fail(l, "a write past the end of the log file's blocks was refused");
		n = count < run ? count : run;
		if (l->dev->max_blocks && n > l->dev->max_blocks)
			n = l->dev->max_blocks;
		if (!save_log_inside(l, lba, n))
			return fail(l, "a write outside the log file's blocks was refused");
		l->writes++;
		if (l->dev->write(l->dev->ctx, lba, (uint32_t)n, buf))
			return fail(l, "a write to the stick failed");
		fb += n;
		count -= n;
		buf += n * l->block;
	}
	return true;
}

/* Whether the device block just read into `back` is, byte for byte, header `seq` as written
 * before boot services; l->hdr's first block is used to format it. Sets l->error when not. */
static bool initial_header_matches(struct save_log *l, const uint8_t *back, uint64_t seq)
{
	uint8_t *want = l->hdr;
	size_t id = str_len(SAVE_LOG_MAGIC) + str_len("nonce=") + SAVE_LOG_NONCE_HEX;

	save_log_format_header(l, seq, 0, false, want);
	/* The magic line and the nonce line identify this run's file. */
	if (memcmp(back, want, id)) {
		l->error = "the stick's log file header is not this run's (nonce mismatch): nothing written";
		return false;
	}
	/* The rest of the block must be as written too: both header blocks are ours and unchanged. */
	if (memcmp(back, want, l->block)) {
		l->error = "the stick's log file header carries this run's nonce but not the header written before boot services: nothing written";
		return false;
	}
	return true;
}

bool save_log_attach(struct save_log *l, const struct save_dev *dev)
{
	uint8_t *back = l->hdr + l->block;

	if (!l->n_ext) {
		l->error = "no extent list for the log file";
		return false;
	}
	/* Every header block is checked before any write: the flushes write both. */
	for (unsigned fb = 0; fb < SAVE_LOG_HDR_BLOCKS; fb++) {
		uint64_t lba, run;

		memset(back, 0, l->block);
		if (!map_block(l, fb, &lba, &run) || dev->read(dev->ctx, lba, 1, back)) {
			l->error = "reading the log file's header back from the stick failed";
			return false;
		}
		if (!initial_header_matches(l, back, fb))
			return false;
	}
	l->dev = dev;
	return true;
}

bool save_log_flush(struct save_log *l, bool close)
{
	uint64_t first, end, seq;
	bool fresh;

	if (!l->dev)
		return true;
	if (l->failed)
		return false;
	if (l->valid == l->counted && !close)
		return true; /* nothing new: the header on the stick already says it */
	first = l->on_disk / l->block;
	end = (l->valid + l->block - 1) / l->block;
	fresh = l->valid != l->counted && end > first;
	/* Data first, made durable, header after: a header never counts bytes that a power cut can
	 * still take away (a device may otherwise reorder what sits in its cache). */
	if (fresh && !write_file_blocks(l, SAVE_LOG_HDR_BLOCKS + first, end - first, l->data + first * l->block))
		return false;
	l->on_disk = l->valid / l->block * l->block;
	if (fresh && l->dev->sync && l->dev->sync(l->dev->ctx))
		return fail(l, "the stick's cache could not be synchronised before the header");
	/* The other header block: the previous header stays intact while this one is written. */
	seq = l->seq + 1;
	save_log_format_header(l, seq, l->valid, close, l->hdr);
	if (!write_file_blocks(l, seq % SAVE_LOG_HDR_BLOCKS, 1, l->hdr))
		return false;
	/* The header durable too: a flush that returned survives a cut in the next one. */
	if (l->dev->sync && l->dev->sync(l->dev->ctx))
		return fail(l, "the stick's cache could not be synchronised");
	l->seq = seq;
	l->counted = l->valid;
	l->closed = close;
	return true;
}
