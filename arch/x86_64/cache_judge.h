/* Whether a cache CPUID describes can be taken as what one core's accesses fill (see
 * cache_judge.c for the rules and their sources). A hypervisor may hand its guest the host's
 * values or stand-ins: a cache judged here gets cache_desc.geometry_unknown (its reason) and size
 * 0, as on AArch64, and every probe's skip path for an unknown level applies. */
#ifndef ARCH_X86_64_CACHE_JUDGE_H
#define ARCH_X86_64_CACHE_JUDGE_H

#include <stdbool.h>

#include "arch/cpu_info.h"

/* The CPU the description comes from: its family (with the extended family added) and vendor. */
struct cache_judge_cpu {
	unsigned family;
	bool amd; /* AMD or Hygon: the L3 is one core complex's (CCX) */
};

/* NULL when c is plausible, else why its size is not this cache's (a constant string). */
const char *x86_cache_implausible(const struct cache_desc *c, const struct cache_judge_cpu *cpu);

/* Every cache of ci judged: an implausible one gets geometry_unknown, its reported size kept in
 * reported_size and size set to 0. */
void x86_caches_judge(struct cpu_info *ci);

#endif
