/* A bump allocator over memory reserved before the machine was taken over (UEFI) or obtained from
 * the OS (hosted). Probes allocate from it and the suite resets it after each probe, so nothing is
 * allocated while measuring and nothing leaks between probes. */
#ifndef BENCH_ARENA_H
#define BENCH_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct arena {
	uint8_t *base;
	size_t size;
	size_t used;
};

void arena_init(struct arena *a, void *base, size_t size);
/* NULL when it does not fit; align must be a power of two. */
void *arena_alloc(struct arena *a, size_t size, size_t align);
size_t arena_mark(const struct arena *a);
void arena_release(struct arena *a, size_t mark);

#endif
