/* CCSIDR geometries vetted (see cache_geom.h). */
#include "arch/aarch64/cache_geom.h"

#define ONE_BY_ONE_REASON \
	"CCSIDR_EL1 gives 1 set x 1 way, a hypervisor's stand-in (Linux KVM gives every cache so), not a cache's geometry"
#define NOT_LARGER_REASON \
	"CCSIDR_EL1 gives this level no more bytes than the level below it: not a cache hierarchy"

static unsigned add(struct a64_cache *out, unsigned n, unsigned cap, unsigned level, unsigned ctype, bool ccidx,
		    a64_ccsidr_read_fn read, void *ctx)
{
	struct a64_cache *c = &out[n];

	if (n >= cap)
		return n;
	c->level = level;
	c->ctype = ctype;
	c->g = a64_ccsidr_decode(read(ctx, level, ctype == A64_CTYPE_INST), ccidx);
	c->size = (uint64_t)c->g.line * c->g.ways * c->g.sets;
	c->unknown = 0;
	return n + 1;
}

unsigned a64_caches_identify(struct a64_cache *out, unsigned cap, uint64_t clidr, bool ccidx, a64_ccsidr_read_fn read,
			     void *ctx)
{
	unsigned n = 0;

	for (unsigned i = 0; i < A64_CLIDR_LEVELS; i++) {
		unsigned ctype = a64_clidr_ctype(clidr, i);

		if (ctype == A64_CTYPE_NONE)
			break; /* no caches at further-out levels (CLIDR_EL1.Ctype<n>) */
		if (ctype == A64_CTYPE_INST || ctype == A64_CTYPE_SEPARATE)
			n = add(out, n, cap, i + 1, A64_CTYPE_INST, ccidx, read, ctx);
		if (ctype == A64_CTYPE_DATA || ctype == A64_CTYPE_SEPARATE)
			n = add(out, n, cap, i + 1, A64_CTYPE_DATA, ccidx, read, ctx);
		if (ctype == A64_CTYPE_UNIFIED)
			n = add(out, n, cap, i + 1, A64_CTYPE_UNIFIED, ccidx, read, ctx);
	}
	/* A guest's CCSIDR may be the hypervisor's stand-in: such levels get no size. */
	a64_caches_vet(out, n);
	return n;
}

/* Data and unified caches hold data; instruction and unified caches hold instructions. */
static bool same_side(unsigned a, unsigned b)
{
	return a == b || a == A64_CTYPE_UNIFIED || b == A64_CTYPE_UNIFIED;
}

/* The largest believed cache of c's side one level below it, or 0. */
static uint64_t below(const struct a64_cache *caches, unsigned n, const struct a64_cache *c)
{
	uint64_t size = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct a64_cache *b = &caches[i];

		if (b->level + 1 == c->level && same_side(b->ctype, c->ctype) && !b->unknown && b->size > size)
			size = b->size;
	}
	return size;
}

void a64_caches_vet(struct a64_cache *caches, unsigned n)
{
	/* First the geometries that are no cache in themselves, so a stand-in below is never the
	 * yardstick of the level above it. */
	for (unsigned i = 0; i < n; i++)
		if (caches[i].g.sets == 1 && caches[i].g.ways == 1)
			caches[i].unknown = ONE_BY_ONE_REASON;
	/* Lowest level first: an upper level is judged against a lower one already vetted. */
	for (unsigned level = 2; level <= A64_CLIDR_LEVELS; level++)
		for (unsigned i = 0; i < n; i++) {
			struct a64_cache *c = &caches[i];
			uint64_t b;

			if (c->level != level || c->unknown)
				continue;
			b = below(caches, n, c);
			if (b && c->size <= b)
				c->unknown = NOT_LARGER_REASON;
		}
	for (unsigned i = 0; i < n; i++)
		if (caches[i].unknown)
			caches[i].size = 0;
}
