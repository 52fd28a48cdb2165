/* Whether the CPU models its caches, for code outside arch/ (the footprint probe's time method),
 * declared once:
 *   const char *arch_caches_unmodelled(const struct cpu_info *ci);
 * NULL where it may, else the reason a lap's timing shows no cache of the CPU described (an
 * emulator's host instead). Each CPU's part, arch/<cpu>/include/cpu/cache_model.h, defines it inline (it
 * reads an identification register or a captured CPUID string). */
#ifndef ARCH_CACHE_MODEL_H
#define ARCH_CACHE_MODEL_H

#include <stddef.h>

#include "arch/cpu_info.h"

/* The reason text's common tail: what the footprint probe's per-line cost is on an emulator. */
#define ARCH_CACHES_UNMODELLED_TAIL \
	"models no caches: the per-line cost (cost_mcyc, milli-cycles, cold minus warm re-touch) is " \
	"the emulator's host"

#include <cpu/cache_model.h>

#endif
