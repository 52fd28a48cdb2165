/* The probe table (see registry.h), one entry per line of registry.def. */
#include "bench/core/registry.h"

#include "lib/fmt.h"

#define IN_DEFAULT_DEFAULT true
#define IN_DEFAULT_ON_REQUEST false

#define PROBE(id, list) extern const struct probe_desc probe_##id;
#include "bench/core/registry.def"
#undef PROBE

#define PROBE(id, list) { .desc = &probe_##id, .in_default = IN_DEFAULT_##list },
const struct probe_entry probe_registry[] = {
#include "bench/core/registry.def"
	{ .desc = 0 },
};
#undef PROBE

const struct probe_desc *probe_find(const char *name)
{
	for (const struct probe_entry *e = probe_registry; e->desc; e++)
		if (str_eq(e->desc->name, name))
			return e->desc;
	return 0;
}
