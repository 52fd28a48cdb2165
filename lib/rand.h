/* A small seeded PRNG (xorshift64*) for shuffling pointer chains: reproducible from the seed that
 * the records state, identical in firmware and hosted builds. Not for anything cryptographic. */
#ifndef LIB_RAND_H
#define LIB_RAND_H

#include <stdint.h>

struct rand_state {
	uint64_t s;
};

void rand_seed(struct rand_state *r, uint64_t seed);
uint64_t rand_next(struct rand_state *r);
/* Uniform in [0, n) without modulo bias; n > 0. */
uint64_t rand_below(struct rand_state *r, uint64_t n);

#endif
