/* The registry's probe names and default list (see registry_names.h), made from registry.def at
 * compile time without naming any probe's symbol: the option parser and its unit tests use them
 * without linking the probes. */
#include "bench/core/registry_names.h"

#define PROBE(id, list) #id,
const char *const probe_names[] = {
#include "bench/core/registry.def"
	0,
};
#undef PROBE

/* ",timer,spin,..." as one literal; the list starts after the first comma. */
#define DEFAULT_ITEM_DEFAULT(id) "," #id
#define DEFAULT_ITEM_ON_REQUEST(id)
#define PROBE(id, list) DEFAULT_ITEM_##list(id)
static const char default_items[] = ""
#include "bench/core/registry.def"
	;
#undef PROBE

_Static_assert(sizeof(default_items) > 1, "the registry's default list is empty");
const char *const probe_default_list = default_items + 1;
