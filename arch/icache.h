/* Code that fills the instruction cache: a chain of forward jumps, one at the start of every
 * cache line of a buffer, ending in a return (Schaelicke et al.: the I-cache counterpart of the
 * data pointer chain). Generated at run time into executable memory. The footprint probe also
 * needs the same lines in the reverse order (its re-touch): a pair of chains, each line holding
 * a jump of each. */
#ifndef ARCH_ICACHE_H
#define ARCH_ICACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*icache_chain_fn)(void);

/* Writes the chain into code[0..size) (size a multiple of line, line >= 16); returns its entry,
 * or NULL when the geometry does not allow it. Calling the entry executes one jump per line. */
icache_chain_fn icache_chain_build(void *code, size_t size, size_t line);

/* Offset in every line of the reverse chain's jump (the forward one is at 0). */
#define ICACHE_REV_OFFSET 8
/* Writes two chains over the same size / line lines of code[0..size): *fwd visits the lines in
 * the order order[0], order[1], ... (line indices, a permutation; NULL: address order), *rev in
 * exactly the reverse order; each ends in a return. False when the geometry does not allow it
 * (line >= 16, size a multiple of line, lines < 2^31). */
bool icache_chain_build_pair(void *code, size_t size, size_t line, const uint32_t *order,
			     icache_chain_fn *fwd, icache_chain_fn *rev);

#endif
