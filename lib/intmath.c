/* Integer arithmetic (see intmath.h). */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "lib/intmath.h"

uint64_t u64_isqrt(uint64_t x)
{
	uint64_t r = 0, bit = 1ull << 62; /* the highest power of four in 64 bits */

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}
