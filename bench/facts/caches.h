/* The `plat kind=cache` records, one per cache level and type the CPU describes (x86_64: CPUID
 * leaf 4 / 0x8000001D; AArch64: CLIDR/CCSIDR), the same for every build. A geometry that cannot be
 * a cache (cache_desc.geometry_unknown) has no `size` but `geometry=unknown` and the `reason`. */
#ifndef BENCH_PLATFORM_CACHES_H
#define BENCH_PLATFORM_CACHES_H

#include "arch/cpu_info.h"

void platform_emit_caches(const struct cpu_info *ci);

#endif
