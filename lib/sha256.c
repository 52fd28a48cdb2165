/* SHA-256 (see sha256.h), as FIPS 180-4 sections 4.1.2, 4.2.2, 5.1.1, 5.3.3 and 6.2 define it. */
#include "lib/sha256.h"

#define WORDS_PER_SCHEDULE 64
#define LENGTH_FIELD_LEN 8  /* the message length in bits, big-endian, ends the last block */
#define PAD_FIRST_BYTE 0x80 /* the "1" bit after the message */

/* The first 32 bits of the fractional parts of the cube roots of the first 64 primes (4.2.2). */
static const uint32_t k[WORDS_PER_SCHEDULE] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* The initial hash value: the first 32 bits of the fractional parts of the square roots of the
 * first 8 primes (5.3.3). */
static const uint32_t h0[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static uint32_t load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void compress(uint32_t h[8], const uint8_t block[SHA256_BLOCK_LEN])
{
	uint32_t w[WORDS_PER_SCHEDULE], v[8];

	for (unsigned t = 0; t < 16; t++)
		w[t] = load_be32(block + 4 * t);
	for (unsigned t = 16; t < WORDS_PER_SCHEDULE; t++) {
		uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);

		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	for (unsigned i = 0; i < 8; i++)
		v[i] = h[i];
	for (unsigned t = 0; t < WORDS_PER_SCHEDULE; t++) {
		uint32_t e = v[4], a = v[0];
		uint32_t t1 = v[7] + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & v[5]) ^ (~e & v[6])) + k[t] + w[t];
		uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]));

		v[7] = v[6];
		v[6] = v[5];
		v[5] = v[4];
		v[4] = v[3] + t1;
		v[3] = v[2];
		v[2] = v[1];
		v[1] = v[0];
		v[0] = t1 + t2;
	}
	for (unsigned i = 0; i < 8; i++)
		h[i] += v[i];
}

void sha256_init(struct sha256 *s)
{
	for (unsigned i = 0; i < 8; i++)
		s->h[i] = h0[i];
	s->bytes = 0;
	s->fill = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	s->bytes += len;
	while (len--) {
		s->block[s->fill++] = *p++;
		if (s->fill == SHA256_BLOCK_LEN) {
			compress(s->h, s->block);
			s->fill = 0;
		}
	}
}

void sha256_final(struct sha256 *s, uint8_t out[SHA256_DIGEST_LEN])
{
	uint64_t bits = s->bytes * 8;

	/* Padding (5.1.1): a 1 bit, zeros to 8 bytes short of a block end, the length. */
	s->block[s->fill++] = PAD_FIRST_BYTE;
	if (s->fill > SHA256_BLOCK_LEN - LENGTH_FIELD_LEN) {
		while (s->fill < SHA256_BLOCK_LEN)
			s->block[s->fill++] = 0;
		compress(s->h, s->block);
		s->fill = 0;
	}
	while (s->fill < SHA256_BLOCK_LEN - LENGTH_FIELD_LEN)
		s->block[s->fill++] = 0;
	for (unsigned i = 0; i < LENGTH_FIELD_LEN; i++)
		s->block[s->fill++] = (uint8_t)(bits >> (56 - 8 * i));
	compress(s->h, s->block);
	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = 0; j < 4; j++)
			out[4 * i + j] = (uint8_t)(s->h[i] >> (24 - 8 * j));
}

void sha256(const void *data, size_t len, uint8_t out[SHA256_DIGEST_LEN])
{
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, data, len);
	sha256_final(&s, out);
}
