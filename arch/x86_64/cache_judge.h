/* Whether a cache CPUID describes can be taken as what one core's accesses fill (see
 * cache_judge.c for the rules and their sources). A hypervisor may hand its guest the host's
 * values or stand-ins: a cache refused here gets cache_desc.geometry_unknown (its reason) and size
 * 0 (arch/x86_64/cpu_info.c), as on AArch64, and every probe's skip path for an unknown level
 * applies. */
#ifndef ARCH_X86_64_CACHE_JUDGE_H
#define ARCH_X86_64_CACHE_JUDGE_H

#include <stdbool.h>
#include <stdint.h>

/* The CPU the description comes from: its family (with the extended family added) and vendor. */
struct cache_judge_cpu {
	unsigned family;
	bool amd; /* AMD or Hygon: the L3 is one core complex's (CCX) */
};

/* One cache as CPUID described it (the fields of struct cache_desc the rules read; ways 0: fully
 * associative or not given; source: the leaf, "cpuid4", "cpuid80000006", ...). */
struct cache_judge_desc {
	unsigned level;
	uint64_t size;
	unsigned line, ways;
	const char *source;
};

/* NULL when c is plausible, else why its size is not this cache's (a constant string, starting
 * "cache geometry refused: ", the words scripts/record_shape.py knows a machine's skip by).
 * arch/x86_64/cpu_info.c (cpu_info_judge_caches) applies it to every cache arch_cpu_identify decodes. */
const char *x86_cache_implausible(const struct cache_judge_desc *c, const struct cache_judge_cpu *cpu);

#endif
