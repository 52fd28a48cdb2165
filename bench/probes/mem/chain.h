/* Pointer chains for latency and cache-fill probes: `nodes` nodes of `line` bytes in a buffer, each
 * holding a pointer to the next. The random chain is one cycle through every node in a uniformly
 * random order, so a walk touches each line exactly once per lap in an order no prefetcher can
 * follow, within and across pages; the stride chain visits them in address order. */
#ifndef BENCH_CHAIN_H
#define BENCH_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/rand.h"

/* Builds the chain in buf (nodes * line bytes; line >= 8 and a multiple of 8); returns the head.
 * Where a node has a second word (line >= 16) the random order is kept there (CHAIN_ORDER_OFFSET)
 * until something else writes it (chain_link_reverse does). */
#define CHAIN_ORDER_OFFSET 8
void *chain_build_random(void *buf, size_t nodes, size_t line, struct rand_state *rng);
/* The random chain with its self-check: 0 when it is not one cycle through every node. A walk
 * would be one dependent miss a node (1.7 s for 632 MiB on a guest, more than the build and the
 * measurement); with a second word the check follows the kept order instead, in accesses that do
 * not wait for each other (chain_check_order: 0.3 s there). One-word nodes are walked. */
void *chain_build_random_checked(void *buf, size_t nodes, size_t line, struct rand_state *rng);
/* Right after chain_build_random with line >= 16: true when the kept order names every node once
 * and each node links to the next in it (the last to the first). Leaves the links as they were. */
bool chain_check_order(void *buf, size_t nodes, size_t line);
void *chain_build_stride(void *buf, size_t nodes, size_t line);

/* Give every node of the chain at head a second pointer at offset CHAIN_REV_OFFSET to the
 * previous node's second pointer, so arch_chase started from such a slot walks the same lines in
 * the reverse order (line >= 16). Returns the reverse walk's start for a forward walk that stopped
 * before `head`: chain_reverse_start(head), whose first load touches the last line touched. */
#define CHAIN_REV_OFFSET 8
void chain_link_reverse(void *head, size_t nodes);
void *chain_reverse_start(const void *next);

/* Walk: number of distinct nodes reached from head before returning to it, or 0 if the walk leaves
 * the buffer or does not come back within `nodes` steps (for tests and self-checks). */
size_t chain_cycle_length(void *head, void *buf, size_t nodes, size_t line);

#endif
