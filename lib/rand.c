/* xorshift64* (Vigna, 2014): see rand.h. */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "lib/rand.h"

#define XORSHIFT_MULT 0x2545F4914F6CDD1Dull
#define SEED_MIX 0x9E3779B97F4A7C15ull

void rand_seed(struct rand_state *r, uint64_t seed)
{
	r->s = seed ^ SEED_MIX;
	if (!r->s)
		r->s = SEED_MIX; /* the all-zero state is a fixed point */
}

uint64_t rand_next(struct rand_state *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * XORSHIFT_MULT;
}

uint64_t rand_below(struct rand_state *r, uint64_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, v;

	do
		v = rand_next(r);
	while (v >= limit);
	return v % n;
}
