/* Integer arithmetic the firmware needs in place of floating point (it is built
 * -mgeneral-regs-only and links no libgcc): square roots for standard deviations and confidence
 * intervals. */
#ifndef LIB_INTMATH_H
#define LIB_INTMATH_H

#include <stdint.h>

/* floor(sqrt(x)), exact for every 64-bit x (digit-by-digit, no division). */
uint64_t u64_isqrt(uint64_t x);

#endif
