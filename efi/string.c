/* memset/memcpy/memmove/memcmp for the freestanding firmware build: GCC may emit calls to these
 * even with -ffreestanding. memset and memcpy are the byte loops libefi's init.o had (that object is
 * no longer linked: efi_util_init replaces InitializeLib); the hosted build uses libc. */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include <stddef.h>

void *memset(void *d, int c, size_t n)
{
	unsigned char *p = d;

	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

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
