/* Decompression of an LZ4 block (the LZ4 Block Format, lz4/doc/lz4_Block_format.md): the packed
 * firmware image's payload (efi/unpack/, scripts/lz_pack.py makes it). LZ4 because its decoder is
 * a few dozen lines with no tables and no state, and the payload is read once, at start-up.
 * The input is not trusted: every read stays inside it and every write inside the output buffer,
 * and anything malformed is refused with a reason, never a partial success. */
#ifndef LIB_LZ_UNPACK_H
#define LIB_LZ_UNPACK_H

#include <stddef.h>
#include <stdint.h>

enum lz_unpack_error {
	LZ_UNPACK_OK = 0,
	LZ_UNPACK_TRUNCATED,    /* the input ends inside a sequence */
	LZ_UNPACK_OVERFLOW,     /* the output would pass the buffer's end */
	LZ_UNPACK_BAD_OFFSET,   /* a match offset of 0 or before the output's start */
};

/* Decodes the block src[0..src_len) into dst[0..dst_cap). On LZ_UNPACK_OK, *out_len is the number
 * of bytes written; on an error, *out_len is how far the output had got (for the message). */
enum lz_unpack_error lz_unpack(uint8_t *dst, size_t dst_cap, const uint8_t *src, size_t src_len,
			       size_t *out_len);

/* A short text for an error code ("truncated input", ...). */
const char *lz_unpack_error_name(enum lz_unpack_error err);

#endif
