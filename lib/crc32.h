/* CRC-32 (IEEE 802.3, reflected, as zlib.crc32): the checksum on every record line. */
#ifndef LIB_CRC32_H
#define LIB_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continue a CRC: start with crc = 0, feed chunks, the result is the final CRC. */
uint32_t crc32_update(uint32_t crc, const void *data, size_t len);

#endif
