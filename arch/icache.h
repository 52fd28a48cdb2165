/* Code that fills the instruction cache: a chain of forward jumps, one at the start of every
 * cache line of a buffer, ending in a return (Schaelicke et al.: the I-cache counterpart of the
 * data pointer chain). Generated at run time into executable memory. */
#ifndef ARCH_ICACHE_H
#define ARCH_ICACHE_H

#include <stddef.h>

typedef void (*icache_chain_fn)(void);

/* Writes the chain into code[0..size) (size a multiple of line, line >= 16); returns its entry,
 * or NULL when the geometry does not allow it. Calling the entry executes one jump per line. */
icache_chain_fn icache_chain_build(void *code, size_t size, size_t line);

#endif
