/* Record line encoder (see record.h and docs/protocol.md). */
#include "lib/record.h"

#include "lib/crc32.h"

#define PRINTABLE_FIRST 0x21
#define PRINTABLE_LAST 0x7E

void rec_start(struct record *r, uint32_t seq, const char *type)
{
	/* Keep the trailer's room out of the builder so fields can never crowd it out. */
	sb_init(&r->sb, r->buf, REC_MAX_LINE - REC_TRAILER_LEN);
	sb_puts(&r->sb, REC_TAG " ");
	sb_u64(&r->sb, REC_PROTO_VERSION);
	sb_putc(&r->sb, ' ');
	sb_u64(&r->sb, seq);
	sb_putc(&r->sb, ' ');
	sb_puts(&r->sb, type);
}

bool rec_char_plain(char c)
{
	unsigned char u = (unsigned char)c;

	return u >= PRINTABLE_FIRST && u <= PRINTABLE_LAST && c != '%' && c != '|';
}

void rec_key(struct record *r, const char *key)
{
	sb_putc(&r->sb, ' ');
	sb_puts(&r->sb, key);
	sb_putc(&r->sb, '=');
}

void rec_append_raw(struct record *r, const char *text)
{
	sb_puts(&r->sb, text);
}

void rec_str(struct record *r, const char *key, const char *val)
{
	static const char hex[] = "0123456789ABCDEF";

	rec_key(r, key);
	for (; *val; val++) {
		if (rec_char_plain(*val)) {
			sb_putc(&r->sb, *val);
		} else {
			unsigned char u = (unsigned char)*val;

			sb_putc(&r->sb, '%');
			sb_putc(&r->sb, hex[u >> 4]);
			sb_putc(&r->sb, hex[u & 0xF]);
		}
	}
}

void rec_u64(struct record *r, const char *key, uint64_t v)
{
	rec_key(r, key);
	sb_u64(&r->sb, v);
}

void rec_i64(struct record *r, const char *key, int64_t v)
{
	rec_key(r, key);
	sb_i64(&r->sb, v);
}

void rec_hex(struct record *r, const char *key, uint64_t v)
{
	rec_key(r, key);
	sb_hex(&r->sb, v);
}

void rec_bool(struct record *r, const char *key, bool v)
{
	rec_u64(r, key, v ? 1 : 0);
}

unsigned rec_room(const struct record *r)
{
	return (unsigned)(r->sb.cap - 1 - r->sb.len);
}

bool rec_overflowed(const struct record *r)
{
	return r->sb.overflow;
}

unsigned rec_finish(struct record *r)
{
	static const char hex[] = "0123456789abcdef";
	uint32_t crc = crc32_update(0, r->buf, r->sb.len);
	unsigned len = (unsigned)r->sb.len;
	int i;

	r->buf[len++] = ' ';
	r->buf[len++] = '|';
	for (i = 7; i >= 0; i--)
		r->buf[len++] = hex[(crc >> (i * 4)) & 0xF];
	r->buf[len] = '\0';
	return len;
}
