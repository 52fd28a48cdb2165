/* Where CPUID answers come from: the instruction on the running CPU (every firmware and hosted
 * build) or, in host tools, a recorded machine (tests/cpuid/cpuid_replay.c replays public
 * CPUID dumps through the same decoder). The decoder reads every leaf through the source it is
 * given, so a recording exercises exactly the code the firmware runs. */
#ifndef ARCH_X86_64_CPUID_SOURCE_H
#define ARCH_X86_64_CPUID_SOURCE_H

#include <stdint.h>

struct cpu_info; /* arch/cpu_info.h (the decoder, cpu_info.c, includes this file) */

struct cpuid_source {
	/* out = EAX, EBX, ECX, EDX of leaf `leaf`, subleaf `sub` (the same shape as pmu_ops.cpuid) */
	void (*read)(void *ctx, uint32_t leaf, uint32_t sub, uint32_t out[4]);
	void *ctx;
};

/* arch_cpu_identify with the CPUID answers of `src` (arch_cpu_identify: the instruction). */
void cpu_info_decode(struct cpu_info *ci, const struct cpuid_source *src);
/* What arch_cpu_identify adds to the decoding: every cache judged for plausibility
 * (arch/x86_64/cache_judge.h); a refused one gets geometry_unknown, reported_size, size 0. */
void cpu_info_judge_caches(struct cpu_info *ci);
/* arch_cpu_hw_id with the CPUID answers of `src`. */
uint32_t cpu_hw_id_decode(const struct cpuid_source *src);

#endif
