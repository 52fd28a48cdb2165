/* Little-endian fields of firmware tables (ACPI, SMBIOS), read a byte at a time: the tables give
 * no alignment, and some CPUs (AArch64 device memory, -mstrict-align) fault on unaligned loads. */
#ifndef LIB_LE_H
#define LIB_LE_H

#include <stdint.h>

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16;
}

static inline uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* A field of n bytes (at most 8), where the width is the table's (ACPI address-space descriptors). */
static inline uint64_t rd_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = n; i--;)
		v = v << 8 | p[i];
	return v;
}

#endif
