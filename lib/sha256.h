/* SHA-256 (FIPS 180-4): the firmware sends a digest, never the value itself, where a value
 * identifies a machine or a person (the SMBIOS serial number). One-shot and incremental forms;
 * pure computation, no allocation. */
#ifndef LIB_SHA256_H
#define LIB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32
#define SHA256_BLOCK_LEN 64

struct sha256 {
	uint32_t h[8];
	uint64_t bytes;                /* message length so far */
	uint8_t block[SHA256_BLOCK_LEN];
	size_t fill;                   /* bytes waiting in block */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t out[SHA256_DIGEST_LEN]);
void sha256(const void *data, size_t len, uint8_t out[SHA256_DIGEST_LEN]);

#endif
