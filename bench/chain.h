/* Pointer chains for latency and cache-fill probes: `nodes` nodes of `line` bytes in a buffer, each
 * holding a pointer to the next. The random chain is one cycle through every node (Sattolo's
 * algorithm), so a walk touches each line exactly once per lap in an order no prefetcher can
 * follow, within and across pages; the stride chain visits them in address order. */
#ifndef BENCH_CHAIN_H
#define BENCH_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "lib/rand.h"

/* Builds the chain in buf (nodes * line bytes; line >= 8 and a multiple of 8); returns the head. */
void *chain_build_random(void *buf, size_t nodes, size_t line, struct rand_state *rng);
void *chain_build_stride(void *buf, size_t nodes, size_t line);

/* Walk: number of distinct nodes reached from head before returning to it, or 0 if the walk leaves
 * the buffer or does not come back within `nodes` steps (for tests and self-checks). */
size_t chain_cycle_length(void *head, void *buf, size_t nodes, size_t line);

#endif
