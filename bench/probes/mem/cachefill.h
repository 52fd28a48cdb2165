/* Cache fills (Schaelicke et al., section 2): a routine that fills one cache level exactly — a
 * random pointer chain of the level's size at line stride — and one that fills the instruction
 * cache with a chain of forward branches. Probe `cachefill` times each cold and warm; the
 * interrupt-footprint experiment reuses the fill routines. */
#ifndef BENCH_CACHEFILL_H
#define BENCH_CACHEFILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/icache.h"
#include "lib/rand.h"

struct cache_fill {
	void *head; /* data chain */
	size_t nodes;
	icache_chain_fn code; /* instruction chain */
};

/* Data fill of `size` bytes at `line` stride in buf. */
void cachefill_data_prepare(struct cache_fill *f, void *buf, uint64_t size, unsigned line,
			    struct rand_state *rng);
/* Touch every line of the fill once (one lap of the chain). */
void cachefill_data_touch(const struct cache_fill *f);
/* Instruction fill of `size` bytes in executable memory; false if it cannot be built. */
bool cachefill_inst_prepare(struct cache_fill *f, void *exec_buf, uint64_t size, unsigned line);
void cachefill_inst_run(const struct cache_fill *f);

#endif
