/* Freestanding text helpers (see fmt.h). */
#include "lib/fmt.h"

void sb_init(struct sbuf *sb, char *buf, size_t cap)
{
	sb->buf = buf;
	sb->cap = cap;
	sb->len = 0;
	sb->overflow = false;
	if (cap)
		buf[0] = '\0';
}

void sb_putc(struct sbuf *sb, char c)
{
	if (sb->len + 1 >= sb->cap) {
		sb->overflow = true;
		return;
	}
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

void sb_puts(struct sbuf *sb, const char *s)
{
	while (*s)
		sb_putc(sb, *s++);
}

void sb_u64(struct sbuf *sb, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		sb_putc(sb, tmp[--n]);
}

void sb_i64(struct sbuf *sb, int64_t v)
{
	if (v < 0) {
		sb_putc(sb, '-');
		sb_u64(sb, (uint64_t)0 - (uint64_t)v);
	} else {
		sb_u64(sb, (uint64_t)v);
	}
}

void sb_hex(struct sbuf *sb, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = digits[v & 0xF];
		v >>= 4;
	} while (v);
	sb_puts(sb, "0x");
	while (n)
		sb_putc(sb, tmp[--n]);
}

void sb_fixed(struct sbuf *sb, uint64_t v, unsigned decimals)
{
	uint64_t scale = 1;
	unsigned i;

	for (i = 0; i < decimals; i++)
		scale *= 10;
	sb_u64(sb, v / scale);
	if (!decimals)
		return;
	sb_putc(sb, '.');
	v %= scale;
	for (i = 0; i < decimals; i++) {
		scale /= 10;
		sb_putc(sb, (char)('0' + (v / scale) % 10));
	}
}

size_t str_len(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

bool str_starts(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return false;
	return true;
}

void str_copy(char *dst, const char *src, size_t cap)
{
	size_t i = 0;

	if (!cap)
		return;
	while (src[i] && i + 1 < cap) {
		dst[i] = src[i];
		i++;
	}
	dst[i] = '\0';
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;
	int d;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		d = hex_digit(*s);
		if (d < 0 || (unsigned)d >= base)
			return false;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return false; /* overflow */
		v = v * base + (uint64_t)d;
	}
	*out = v;
	return true;
}
