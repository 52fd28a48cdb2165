/* memset/memcpy/memmove/memcmp for the freestanding firmware build: GCC may emit calls to these
 * even with -ffreestanding; the hosted build uses libc. memset and memcpy move a word at a time
 * where the addresses allow (probe membw times them as the firmware's library, and under QEMU's
 * TCG every byte is an emulated store: the byte loops they were were 42% of a default x86_64
 * membw's time there). -fno-tree-loop-distribute-patterns (mk/<cpu>.mk) keeps GCC from turning
 * these loops into calls of themselves. */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include <stddef.h>
#include <stdint.h>

typedef uint64_t __attribute__((may_alias)) word_t;
#define WORD sizeof(word_t)
#define WORD_MASK ((uintptr_t)WORD - 1)
#define BYTE_REPEAT 0x0101010101010101ull /* a byte times this: the byte in every lane */

void *memset(void *d, int c, size_t n)
{
	unsigned char *p = d, b = (unsigned char)c;
	word_t w = (word_t)b * BYTE_REPEAT;

	for (; n && ((uintptr_t)p & WORD_MASK); n--)
		*p++ = b;
	for (; n >= WORD; n -= WORD, p += WORD)
		*(word_t *)p = w;
	while (n--)
		*p++ = b;
	return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	/* words where both ends can be aligned together (AArch64 is built -mstrict-align) */
	if (!(((uintptr_t)dp ^ (uintptr_t)sp) & WORD_MASK)) {
		for (; n && ((uintptr_t)dp & WORD_MASK); n--)
			*dp++ = *sp++;
		for (; n >= WORD; n -= WORD, dp += WORD, sp += WORD)
			*(word_t *)dp = *(const word_t *)sp;
	}
	while (n--)
		*dp++ = *sp++;
	return d;
}

void *memmove(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	if (dp < sp) {
		while (n--)
			*dp++ = *sp++;
	} else {
		while (n--)
			dp[n] = sp[n];
	}
	return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}
