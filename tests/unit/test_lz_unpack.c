/* LZ4 block decoding (lib/lz_unpack.c) against blocks written by hand from the LZ4 Block Format
 * (lz4/doc/lz4_Block_format.md): literals, overlapping and long matches, lengths with extension
 * bytes, and damaged blocks, which must be refused without a byte written past the output buffer.
 * (scripts/lz_pack.py's encoder is checked against liblz4 in tests/python/test_lz_pack.py; every
 * x86_64 boot decodes the real image and checks its CRC-32.) */
#include <string.h>

#include "lib/lz_unpack.h"
#include "tests/unit/test.h"

#define OUT_CAP 512
#define GUARD 0xA5

static uint8_t out[OUT_CAP + 16];

/* Decodes block into `out` with room for cap bytes; the bytes past cap must stay GUARD. */
static enum lz_unpack_error decode(const uint8_t *block, size_t len, size_t cap, size_t *got)
{
	enum lz_unpack_error err;

	memset(out, GUARD, sizeof(out));
	err = lz_unpack(out, cap, block, len, got);
	for (size_t i = cap; i < sizeof(out); i++)
		if (out[i] != GUARD) {
			test_fail(__FILE__, __LINE__, "byte %zu past the %zu-byte buffer written", i, cap);
			break;
		}
	return err;
}

static void literals_only(void)
{
	static const uint8_t block[] = { 0x30, 'a', 'b', 'c' };
	size_t got;

	CHECK_EQ_U64(decode(block, sizeof(block), OUT_CAP, &got), LZ_UNPACK_OK);
	CHECK_EQ_U64(got, 3);
	CHECK(!memcmp(out, "abc", 3));
	CHECK_EQ_U64(decode(block, 0, OUT_CAP, &got), LZ_UNPACK_OK); /* the empty block */
	CHECK_EQ_U64(got, 0);
}

static void overlapping_match(void)
{
	/* 'a', then 9 bytes from offset 1 (match nibble 5 = 9 - 4), then "bcdef" */
	static const uint8_t block[] = { 0x15, 'a', 0x01, 0x00, 0x50, 'b', 'c', 'd', 'e', 'f' };
	size_t got;

	CHECK_EQ_U64(decode(block, sizeof(block), OUT_CAP, &got), LZ_UNPACK_OK);
	CHECK_EQ_U64(got, 15);
	CHECK(!memcmp(out, "aaaaaaaaaabcdef", 15));
}

static void distant_match(void)
{
	static const uint8_t block[] = { 0x84, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 0x08, 0x00, 0x00 };
	size_t got;

	CHECK_EQ_U64(decode(block, sizeof(block), OUT_CAP, &got), LZ_UNPACK_OK);
	CHECK_EQ_U64(got, 16);
	CHECK(!memcmp(out, "abcdefghabcdefgh", 16));
}

static void extended_lengths(void)
{
	/* 20 literals: nibble 15 + extension 5 */
	uint8_t lit[2 + 20];
	/* 1 literal, then a match of 4 + 15 + 255 + 1 = 275 bytes: extensions 255, 1 */
	static const uint8_t long_match[] = { 0x1F, 'x', 0x01, 0x00, 0xFF, 0x01, 0x00 };
	size_t got;

	lit[0] = 0xF0;
	lit[1] = 5;
	for (int i = 0; i < 20; i++)
		lit[2 + i] = (uint8_t)('A' + i);
	CHECK_EQ_U64(decode(lit, sizeof(lit), OUT_CAP, &got), LZ_UNPACK_OK);
	CHECK_EQ_U64(got, 20);
	CHECK(out[0] == 'A' && out[19] == 'T');

	CHECK_EQ_U64(decode(long_match, sizeof(long_match), OUT_CAP, &got), LZ_UNPACK_OK);
	CHECK_EQ_U64(got, 276);
	CHECK(out[0] == 'x' && out[275] == 'x');
}

static void damaged_blocks(void)
{
	static const uint8_t offset_zero[] = { 0x10, 'a', 0x00, 0x00 };
	static const uint8_t offset_far[] = { 0x10, 'a', 0x02, 0x00 };
	static const uint8_t short_literals[] = { 0x50, 'a', 'b' };
	static const uint8_t short_offset[] = { 0x14, 'a', 0x01 };
	static const uint8_t no_extension[] = { 0xF0 };
	static const uint8_t match_extension_cut[] = { 0x1F, 'a', 0x01, 0x00, 0xFF };
	size_t got;

	CHECK_EQ_U64(decode(offset_zero, sizeof(offset_zero), OUT_CAP, &got), LZ_UNPACK_BAD_OFFSET);
	CHECK_EQ_U64(decode(offset_far, sizeof(offset_far), OUT_CAP, &got), LZ_UNPACK_BAD_OFFSET);
	CHECK_EQ_U64(got, 1); /* how far it had got */
	CHECK_EQ_U64(decode(short_literals, sizeof(short_literals), OUT_CAP, &got), LZ_UNPACK_TRUNCATED);
	CHECK_EQ_U64(decode(short_offset, sizeof(short_offset), OUT_CAP, &got), LZ_UNPACK_TRUNCATED);
	CHECK_EQ_U64(decode(no_extension, sizeof(no_extension), OUT_CAP, &got), LZ_UNPACK_TRUNCATED);
	CHECK_EQ_U64(decode(match_extension_cut, sizeof(match_extension_cut), OUT_CAP, &got), LZ_UNPACK_TRUNCATED);
	CHECK(strcmp(lz_unpack_error_name(LZ_UNPACK_BAD_OFFSET), "ok") != 0);
}

static void output_bounded(void)
{
	static const uint8_t lits[] = { 0x30, 'a', 'b', 'c' };
	static const uint8_t run[] = { 0x15, 'a', 0x01, 0x00, 0x50, 'b', 'c', 'd', 'e', 'f' };
	size_t got;

	CHECK_EQ_U64(decode(lits, sizeof(lits), 2, &got), LZ_UNPACK_OVERFLOW);
	CHECK_EQ_U64(decode(run, sizeof(run), 8, &got), LZ_UNPACK_OVERFLOW); /* the match: 10 > 8 */
	CHECK_EQ_U64(got, 1);
	CHECK_EQ_U64(decode(run, sizeof(run), 14, &got), LZ_UNPACK_OVERFLOW); /* the last literals */
	CHECK_EQ_U64(decode(run, sizeof(run), 15, &got), LZ_UNPACK_OK); /* exactly enough */
}

TEST_SUITE(lz_unpack) = {
	{ "literals_only", literals_only },
	{ "overlapping_match", overlapping_match },
	{ "distant_match", distant_match },
	{ "extended_lengths", extended_lengths },
	{ "damaged_blocks", damaged_blocks },
	{ "output_bounded", output_bounded },
	{ 0, 0 },
};
