/* memmove/memcmp for the freestanding firmware build: GCC may emit calls to these even with
 * -ffreestanding. GNU-EFI's libefi already provides memset and memcpy; the hosted build uses libc. */
#include <stddef.h>

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
