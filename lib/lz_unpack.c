/* LZ4 block decoding (lib/lz_unpack.h). A block is a run of sequences; each is a token byte
 * (high nibble: the literal count, low nibble: the match length less LZ4_MIN_MATCH), the literal
 * count's extension bytes when the nibble is 15, the literals, a 16-bit little-endian match offset
 * back into the output, and the match length's extension bytes when its nibble is 15. The last
 * sequence has literals only: the input ends right after them. */
#include "lib/lz_unpack.h"

#define LZ4_NIBBLE_MAX 15u   /* a nibble of 15: extension bytes follow */
#define LZ4_EXT_MORE 255u    /* an extension byte of 255: another follows */
#define LZ4_MIN_MATCH 4u     /* the shortest match, which a match nibble of 0 means */
#define LZ4_OFFSET_BYTES 2u

/* Adds the extension bytes of a length whose nibble was 15; 0 when the input ends first. */
static int read_length(const uint8_t **p, const uint8_t *end, size_t *len)
{
	unsigned b;

	do {
		if (*p >= end)
			return 0;
		b = *(*p)++;
		if (*len > SIZE_MAX - b)
			return 0; /* a length no buffer holds: treat as damaged input */
		*len += b;
	} while (b == LZ4_EXT_MORE);
	return 1;
}

/* Where a decode ends, well or not: how far the output got, and why. */
static enum lz_unpack_error stop(size_t *out_len, size_t o, enum lz_unpack_error err)
{
	*out_len = o;
	return err;
}

enum lz_unpack_error lz_unpack(uint8_t *dst, size_t dst_cap, const uint8_t *src, size_t src_len,
			       size_t *out_len)
{
	const uint8_t *p = src, *end = src + src_len;
	size_t o = 0;

	while (p < end) {
		unsigned token = *p++;
		size_t lit = token >> 4, match = token & LZ4_NIBBLE_MAX, off;

		if (lit == LZ4_NIBBLE_MAX && !read_length(&p, end, &lit))
			return stop(out_len, o, LZ_UNPACK_TRUNCATED);
		if (lit > (size_t)(end - p))
			return stop(out_len, o, LZ_UNPACK_TRUNCATED);
		if (lit > dst_cap - o)
			return stop(out_len, o, LZ_UNPACK_OVERFLOW);
		for (size_t i = 0; i < lit; i++)
			dst[o + i] = p[i];
		o += lit;
		p += lit;
		if (p == end)
			break; /* the last sequence: literals only */
		if ((size_t)(end - p) < LZ4_OFFSET_BYTES)
			return stop(out_len, o, LZ_UNPACK_TRUNCATED);
		off = (size_t)p[0] | (size_t)p[1] << 8;
		p += LZ4_OFFSET_BYTES;
		if (off == 0 || off > o)
			return stop(out_len, o, LZ_UNPACK_BAD_OFFSET);
		if (match == LZ4_NIBBLE_MAX && !read_length(&p, end, &match))
			return stop(out_len, o, LZ_UNPACK_TRUNCATED);
		match += LZ4_MIN_MATCH;
		if (match > dst_cap - o)
			return stop(out_len, o, LZ_UNPACK_OVERFLOW);
		/* byte by byte: a match may overlap its own output (offset < length repeats a pattern) */
		for (size_t i = 0; i < match; i++)
			dst[o + i] = dst[o - off + i];
		o += match;
	}
	return stop(out_len, o, LZ_UNPACK_OK);
}

const char *lz_unpack_error_name(enum lz_unpack_error err)
{
	switch (err) {
	case LZ_UNPACK_OK:
		return "ok";
	case LZ_UNPACK_TRUNCATED:
		return "truncated input";
	case LZ_UNPACK_OVERFLOW:
		return "output larger than its buffer";
	case LZ_UNPACK_BAD_OFFSET:
		return "match offset outside the output";
	}
	return "unknown error";
}
