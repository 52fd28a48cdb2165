/* The footprint probe's instruction-cache level: the code counterpart of the data chains
 * (footprint_calib.c). The level is filled with a chain of jumps, one per line, in a random order; the
 * same lines carry the reverse chain for the re-touch (arch/icache.h: icache_chain_build_pair);
 * the known handler runs a K-line jump chain of its own (entered K lines before its return);
 * the eviction runs a chain over twice the level. Random orders, like the data chains: a
 * sequential chain would be fetched ahead by the instruction prefetcher. */
#ifndef BENCH_FP_CODE_H
#define BENCH_FP_CODE_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/icache.h"
#include "bench/core/probe.h"
#include "lib/rand.h"

struct fp_code {
	icache_chain_fn fwd, rev;     /* the level's chain and its reverse */
	icache_chain_fn evict;        /* a chain over twice the level */
	uint8_t *kcode;               /* the handler's code: kmax lines */
	uint32_t *korder;             /* the order of its lines (the chain's entry for K: korder[kmax - K]) */
	uint64_t kmax, line;
};

/* Build the chains for `nodes` lines of `line` bytes and a handler of up to kmax lines in
 * env->exec_arena (random orders from rng; the order arrays in env->arena). False: no executable
 * memory, or it does not fit. */
bool fp_code_prepare(struct probe_env *env, struct fp_code *fc, uint64_t nodes, uint64_t line,
		     uint64_t kmax, struct rand_state *rng);
/* The handler: run exactly k lines of its code (k <= kmax; 0: nothing). */
void fp_code_touch(const struct fp_code *fc, uint64_t k);

#endif
