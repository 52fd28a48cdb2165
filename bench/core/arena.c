/* Bump allocator (see arena.h). */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "bench/core/arena.h"

void arena_init(struct arena *a, void *base, size_t size)
{
	a->base = base;
	a->size = base ? size : 0;
	a->used = 0;
}

void *arena_alloc(struct arena *a, size_t size, size_t align)
{
	uintptr_t p = (uintptr_t)a->base + a->used;
	uintptr_t aligned = (p + align - 1) & ~(uintptr_t)(align - 1);
	size_t need = (size_t)(aligned - p) + size;

	if (!a->base || need > a->size - a->used)
		return 0;
	a->used += need;
	return (void *)aligned;
}

size_t arena_mark(const struct arena *a)
{
	return a->used;
}

void arena_release(struct arena *a, size_t mark)
{
	if (mark <= a->used)
		a->used = mark;
}
