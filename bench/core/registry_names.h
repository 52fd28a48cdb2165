/* The probe registry's names and default list alone (bench/core/registry.def): what option
 * parsing needs of the registry, without the probes' descriptors (bench/core/registry.h). */
#ifndef BENCH_REGISTRY_NAMES_H
#define BENCH_REGISTRY_NAMES_H

/* Every probe's name in run order, NULL-terminated. */
extern const char *const probe_names[];
/* The default probes= list, "timer,spin,...": the registry's DEFAULT lines in order. */
extern const char *const probe_default_list;

#endif
