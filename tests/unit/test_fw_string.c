/* The firmware's own memset/memcpy/memmove/memcmp (efi/string.c), compiled here under other names
 * beside libc's: every head, word and tail split of lengths 0..40 at every alignment of both ends,
 * against a byte-by-byte reference, and nothing written outside [d, d + n). */
#include <stdint.h>
#include <string.h>

#include "tests/unit/test.h"

#define memset fw_memset
#define memcpy fw_memcpy
#define memmove fw_memmove
#define memcmp fw_memcmp
void *fw_memset(void *d, int c, size_t n);
void *fw_memcpy(void *d, const void *s, size_t n);
void *fw_memmove(void *d, const void *s, size_t n);
int fw_memcmp(const void *a, const void *b, size_t n);
#include "efi/string.c"
#undef memset
#undef memcpy
#undef memmove
#undef memcmp

#define SPAN 64
#define MAX_N 40
#define GUARD 0xEE

static void fill_pattern(uint8_t *b, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(seed + i * 7);
}

static void memset_every_split(void)
{
	uint8_t buf[SPAN] __attribute__((aligned(8)));
	int bad = 0;

	for (size_t off = 0; off < 8; off++)
		for (size_t n = 0; n <= MAX_N; n++) {
			for (size_t i = 0; i < SPAN; i++)
				buf[i] = GUARD;
			CHECK(fw_memset(buf + off, 0x1A5, n) == buf + off); /* only the low byte counts */
			for (size_t i = 0; i < SPAN; i++)
				bad += buf[i] != (i >= off && i < off + n ? 0xA5 : GUARD);
		}
	CHECK_EQ_U64(bad, 0);
}

static void memcpy_every_split(void)
{
	uint8_t src[SPAN] __attribute__((aligned(8))), dst[SPAN] __attribute__((aligned(8)));
	int bad = 0;

	fill_pattern(src, SPAN, 3);
	for (size_t so = 0; so < 8; so++)     /* same and different alignments of the two ends */
		for (size_t doff = 0; doff < 8; doff++)
			for (size_t n = 0; n <= MAX_N; n++) {
				for (size_t i = 0; i < SPAN; i++)
					dst[i] = GUARD;
				CHECK(fw_memcpy(dst + doff, src + so, n) == dst + doff);
				for (size_t i = 0; i < SPAN; i++)
					bad += dst[i] != (i >= doff && i < doff + n ? src[so + i - doff] : GUARD);
			}
	CHECK_EQ_U64(bad, 0);
}

static void memmove_overlaps_and_memcmp(void)
{
	uint8_t a[SPAN], ref[SPAN];

	fill_pattern(a, SPAN, 9);
	memcpy(ref, a, SPAN);
	fw_memmove(a + 3, a, 30);     /* forward overlap */
	memmove(ref + 3, ref, 30);
	CHECK(memcmp(a, ref, SPAN) == 0);
	fw_memmove(a, a + 5, 30);     /* backward overlap */
	memmove(ref, ref + 5, 30);
	CHECK(memcmp(a, ref, SPAN) == 0);
	CHECK(fw_memcmp(a, ref, SPAN) == 0);
	ref[17]++;
	CHECK(fw_memcmp(a, ref, SPAN) < 0 && fw_memcmp(ref, a, SPAN) > 0);
	CHECK(fw_memcmp(a, ref, 17) == 0);
}

TEST_SUITE(fw_string) = {
	{ "memset_every_split", memset_every_split },
	{ "memcpy_every_split", memcpy_every_split },
	{ "memmove_overlaps_and_memcmp", memmove_overlaps_and_memcmp },
	{ 0, 0 },
};
