/* The boot stick's copy of the record stream (see save_log.h). */
#include "drivers/storage/save_log.h"

#include <string.h>

#include "lib/fmt.h"

#define VALID_DIGITS 20 /* the valid count is fixed width, so the header's layout never moves */

void save_log_init(struct save_log *l, uint32_t block, void *hdr, void *data, uint64_t capacity,
		   const char *nonce)
{
	memset(l, 0, sizeof(*l));
	l->block = block;
	l->hdr = hdr;
	l->data = data;
	l->capacity = capacity;
	str_copy(l->nonce, nonce, sizeof(l->nonce));
}

static void put_kv(struct sbuf *sb, const char *key, uint64_t v)
{
	sb_puts(sb, key);
	sb_putc(sb, '=');
	sb_u64(sb, v);
	sb_putc(sb, '\n');
}

void save_log_format_header(const struct save_log *l, uint64_t valid, bool closed, uint8_t *out)
{
	char digits[VALID_DIGITS + 1];
	struct sbuf sb, num;
	unsigned pad;

	memset(out, 0, l->block);
	sb_init(&sb, (char *)out, l->block);
	sb_puts(&sb, SAVE_LOG_MAGIC);
	sb_puts(&sb, "nonce=");
	sb_puts(&sb, l->nonce);
	sb_putc(&sb, '\n');
	put_kv(&sb, "block", l->block);
	put_kv(&sb, "data_offset", l->block);
	put_kv(&sb, "capacity", l->capacity);
	sb_init(&num, digits, sizeof(digits));
	sb_u64(&num, valid);
	sb_puts(&sb, "valid=");
	for (pad = (unsigned)num.len; pad < VALID_DIGITS; pad++)
		sb_putc(&sb, '0');
	sb_puts(&sb, digits);
	sb_putc(&sb, '\n');
	sb_puts(&sb, closed ? "state=closed\n" : "state=open\n");
	/* sbuf's terminating NUL is part of the padding */
}

bool save_log_set_extents(struct save_log *l, const struct save_extent *ext, unsigned n)
{
	uint64_t blocks = 0, need = 1 + (l->capacity + l->block - 1) / l->block;

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

bool save_log_attach(struct save_log *l, const struct save_dev *dev)
{
	uint8_t *back = l->hdr + l->block;
	uint8_t *want = l->hdr;
	size_t magic = str_len(SAVE_LOG_MAGIC);

	if (!l->n_ext) {
		l->error = "no extent list for the log file";
		return false;
	}
	memset(back, 0, l->block);
	if (dev->read(dev->ctx, l->ext[0].lba, 1, back)) {
		l->error = "reading the log file's header back from the stick failed";
		return false;
	}
	save_log_format_header(l, 0, false, want);
	/* The magic line and the nonce line identify this run's file. */
	for (size_t i = 0; i < magic + 6 + SAVE_LOG_NONCE_HEX; i++) {
		if (back[i] != want[i]) {
			l->error = "the stick's log file header is not this run's (nonce mismatch): nothing written";
			return false;
		}
	}
	l->dev = dev;
	return true;
}

bool save_log_flush(struct save_log *l, bool close)
{
	uint64_t first, end;

	if (!l->dev)
		return true;
	if (l->failed)
		return false;
	first = l->on_disk / l->block;
	end = (l->valid + l->block - 1) / l->block;
	/* Data first, header after: a header never claims bytes that are not on the stick. */
	if (end > first && !write_file_blocks(l, 1 + first, end - first, l->data + first * l->block))
		return false;
	l->on_disk = l->valid / l->block * l->block;
	save_log_format_header(l, l->valid, close, l->hdr);
	if (!write_file_blocks(l, 0, 1, l->hdr))
		return false;
	if (close) {
		if (l->dev->sync && l->dev->sync(l->dev->ctx))
			return fail(l, "the stick's cache could not be synchronised");
		l->closed = true;
	}
	return true;
}
