/* Freestanding text helpers: a bounded string builder, number formatting and parsing. Used by the
 * record encoder, the config parser and the on-screen summary; no libc needed. */
#ifndef LIB_FMT_H
#define LIB_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A string builder over a caller-owned buffer; never writes past cap and always NUL-terminates.
 * `overflow` records that something did not fit, so callers can report instead of truncating silently. */
struct sbuf {
	char *buf;
	size_t cap;
	size_t len;
	bool overflow;
};

void sb_init(struct sbuf *sb, char *buf, size_t cap);
void sb_putc(struct sbuf *sb, char c);
void sb_puts(struct sbuf *sb, const char *s);
void sb_u64(struct sbuf *sb, uint64_t v);
void sb_i64(struct sbuf *sb, int64_t v);
void sb_hex(struct sbuf *sb, uint64_t v); /* "0x" + lower-case hex, no leading zeros */
/* v / 10^decimals with exactly `decimals` digits after the point: sb_fixed(sb, 2445123, 3) = "2445.123" */
void sb_fixed(struct sbuf *sb, uint64_t v, unsigned decimals);

size_t str_len(const char *s);
bool str_eq(const char *a, const char *b);
bool str_starts(const char *s, const char *prefix);
void str_copy(char *dst, const char *src, size_t cap); /* bounded, always NUL-terminated */

/* Decimal or 0x-hex, optional K/M/G suffix not accepted: the whole string must be a number. */
bool parse_u64(const char *s, uint64_t *out);

#endif
