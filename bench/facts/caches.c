/* plat kind=cache (see bench/facts/caches.h). */
#include "bench/facts/caches.h"

#include "lib/emit.h"

static const char *cache_type_name(enum cache_type t)
{
	return t == CACHE_DATA ? "data" : t == CACHE_INST ? "inst" : "unified";
}

void platform_emit_caches(const struct cpu_info *ci)
{
	for (unsigned i = 0; i < ci->num_caches; i++) {
		const struct cache_desc *c = &ci->caches[i];
		struct record *r = emit_start("plat");

		rec_str(r, "kind", "cache");
		rec_u64(r, "level", c->level);
		rec_str(r, "type", cache_type_name(c->type));
		if (!c->geometry_unknown) /* absent, not 0: no size is known */
			rec_u64(r, "size", c->size);
		rec_u64(r, "line", c->line);
		rec_u64(r, "ways", c->ways);
		rec_u64(r, "sets", c->sets);
		if (c->shared_by) /* omitted where the CPU does not say */
			rec_u64(r, "shared_by", c->shared_by);
		rec_str(r, "source", c->source);
		if (c->geometry_unknown) {
			rec_str(r, "geometry", "unknown");
			rec_str(r, "reason", c->geometry_unknown);
			if (c->reported_size) /* x86_64: the size CPUID gave, refused */
				rec_u64(r, "reported_size", c->reported_size);
		}
		emit_finish();
	}
}
