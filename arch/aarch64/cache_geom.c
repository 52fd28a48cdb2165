/* CCSIDR geometries vetted (see cache_geom.h). */
#include "arch/aarch64/cache_geom.h"

#define ONE_BY_ONE_REASON \
	"CCSIDR_EL1 gives 1 set x 1 way, a hypervisor's stand-in (Linux KVM gives every cache so), not a cache's geometry"
#define NOT_LARGER_REASON \
	"CCSIDR_EL1 gives this level no more bytes than the level below it: not a cache hierarchy"

void a64_cache_desc_fill(struct cache_desc *c, unsigned level, enum cache_type type, struct a64_cache_geom g)
{
	*c = (struct cache_desc){ 0 };
	c->level = level;
	c->type = type;
	c->line = g.line;
	c->ways = g.ways;
	c->sets = g.sets;
	c->size = (uint64_t)g.line * g.ways * g.sets;
	c->shared_by = 0; /* CCSIDR does not say */
	c->source = "ccsidr";
}

/* Data and unified caches hold data; instruction and unified caches hold instructions. */
static bool same_side(enum cache_type a, enum cache_type b)
{
	return a == b || a == CACHE_UNIFIED || b == CACHE_UNIFIED;
}

/* The largest believed cache of c's side one level below it, or 0. */
static uint64_t below(const struct cache_desc *caches, unsigned n, const struct cache_desc *c)
{
	uint64_t size = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct cache_desc *b = &caches[i];

		if (b->level + 1 == c->level && same_side(b->type, c->type) && !b->geometry_unknown && b->size > size)
			size = b->size;
	}
	return size;
}

static void add(struct cpu_info *ci, unsigned level, enum cache_type type, bool ccidx, a64_ccsidr_read_fn read,
		void *ctx)
{
	if (ci->num_caches >= CPU_MAX_CACHES)
		return;
	a64_cache_desc_fill(&ci->caches[ci->num_caches++], level, type,
			    a64_ccsidr_decode(read(ctx, level, type == CACHE_INST), ccidx));
}

void a64_caches_identify(struct cpu_info *ci, uint64_t clidr, bool ccidx, a64_ccsidr_read_fn read, void *ctx)
{
	for (unsigned n = 0; n < A64_CLIDR_LEVELS; n++) {
		unsigned ctype = a64_clidr_ctype(clidr, n);

		if (ctype == A64_CTYPE_NONE)
			break; /* no caches at further-out levels (CLIDR_EL1.Ctype<n>) */
		if (ctype == A64_CTYPE_INST || ctype == A64_CTYPE_SEPARATE)
			add(ci, n + 1, CACHE_INST, ccidx, read, ctx);
		if (ctype == A64_CTYPE_DATA || ctype == A64_CTYPE_SEPARATE)
			add(ci, n + 1, CACHE_DATA, ccidx, read, ctx);
		if (ctype == A64_CTYPE_UNIFIED)
			add(ci, n + 1, CACHE_UNIFIED, ccidx, read, ctx);
	}
	/* A guest's CCSIDR may be the hypervisor's stand-in: such levels get no size. */
	a64_caches_vet(ci->caches, ci->num_caches);
}

void a64_caches_vet(struct cache_desc *caches, unsigned n)
{
	/* First the geometries that are no cache in themselves, so a stand-in below is never the
	 * yardstick of the level above it. */
	for (unsigned i = 0; i < n; i++)
		if (caches[i].sets == 1 && caches[i].ways == 1)
			caches[i].geometry_unknown = ONE_BY_ONE_REASON;
	/* Lowest level first: an upper level is judged against a lower one already vetted. */
	for (unsigned level = 2; level <= A64_CLIDR_LEVELS; level++)
		for (unsigned i = 0; i < n; i++) {
			struct cache_desc *c = &caches[i];
			uint64_t b;

			if (c->level != level || c->geometry_unknown)
				continue;
			b = below(caches, n, c);
			if (b && c->size <= b)
				c->geometry_unknown = NOT_LARGER_REASON;
		}
	for (unsigned i = 0; i < n; i++)
		if (caches[i].geometry_unknown)
			caches[i].size = 0;
}
