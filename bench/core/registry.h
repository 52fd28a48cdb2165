/* The probe registry (bench/core/registry.def): which probes exist, in which order, and which of
 * them the default probe list holds. A probe is declared once, in its own file (struct
 * probe_desc); adding one is that file plus one line of registry.def. */
#ifndef BENCH_REGISTRY_H
#define BENCH_REGISTRY_H

#include <stdbool.h>

#include "bench/core/probe.h"
#include "bench/core/registry_names.h"

struct probe_entry {
	const struct probe_desc *desc;
	bool in_default; /* in the default probes= list */
};

/* Every probe in run order, ended by an entry with desc == NULL. */
extern const struct probe_entry probe_registry[];
const struct probe_desc *probe_find(const char *name);

#endif
