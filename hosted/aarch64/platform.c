/* hosted/platform.h on AArch64 Linux: the CPU and its ID registers as Linux shows them at EL0 (the
 * kernel emulates MRS of MIDR_EL1 and the ID_AA64* registers for user space), the caches from the
 * kernel's cacheinfo in sysfs, whether an emulator runs us (hosted/aarch64/emulator.c), and the
 * generic timer's rate from CNTFRQ_EL0, which EL0 may read (CNTVCT_EL0 is the cycle counter). */
#define _GNU_SOURCE
#include "hosted/platform.h"

#include <sched.h>

#include "bench/facts/aarch64/mem.h"
#include "bench/facts/aarch64/platform.h"
#include "hosted/cache_sysfs.h"
#include "hosted/emulator.h"

const char hosted_overhead_label[] = "timer overhead (ticks)";

void hosted_platform_cpu(struct cpu_info *cpu, struct pmu_info *pmu)
{
	(void)hosted_emulator_emit(); /* first: whatever follows is timed by it when emulated */
	arch_cpu_identify(cpu);
	/* CLIDR_EL1/CCSIDR_EL1 are EL1's (arch_cpu_identify read none at EL0): the kernel's cacheinfo
	 * for the CPU we are pinned to, where it has one (not in every VM, nor under qemu-aarch64 on
	 * a host without it). */
	if (!cpu->num_caches)
		(void)hosted_caches_from_sysfs(sched_getcpu(), cpu);
	platform_aarch64_emit_cpu(cpu, pmu);
	platform_a64_mem_emit();
}

uint64_t hosted_platform_clock(const struct cpu_info *cpu, const struct config *cfg)
{
	(void)cpu;
	(void)cfg; /* nothing to calibrate: the counter's rate is architectural (CNTFRQ_EL0) */
	return platform_aarch64_timer();
}
