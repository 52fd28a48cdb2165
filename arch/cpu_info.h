/* What the CPU says about itself, in an architecture-neutral shape: filled by the arch code
 * (CPUID on x86_64), emitted as plat records by bench/facts/<cpu>/platform.c, used by the runner and
 * probes. The CPU's part, arch/<cpu>/include/cpu/cpu_info.h, names the architecture. */
#ifndef ARCH_CPU_INFO_H
#define ARCH_CPU_INFO_H

#include <stdbool.h>
#include <stdint.h>

#define CPU_MAX_CACHES 8

/* The architecture's name in `begin arch=` (ARCH_NAME): the CPU's part. */
#include <cpu/cpu_info.h>

enum cache_type { CACHE_DATA = 1, CACHE_INST = 2, CACHE_UNIFIED = 3 };

struct cache_desc {
	unsigned level;
	enum cache_type type;
	uint64_t size; /* bytes */
	unsigned line, ways, sets, shared_by; /* shared_by 0: CPUID does not say */
	/* ways 0: fully associative (sets 1) or not known (sets 0); sets 0 also where line x ways does
	 * not divide the size (x86_64/cpu_info.c, the AMD legacy leaves) */
	const char *source;
	/* NULL, or why line x ways x sets cannot be this cache's size (a hypervisor's stand-in
	 * geometry, AArch64: arch/aarch64/cache_geom.h); size is then 0, never the product. */
	const char *geometry_unknown;
	/* with geometry_unknown on x86_64: the size CPUID gave, refused (arch/x86_64/cache_judge.h);
	 * 0 where none was given */
	uint64_t reported_size;
};

struct cpu_info {
	char vendor[16];
	char brand[52];
	char hv_sig[16];
	unsigned family, model, stepping;
	unsigned max_leaf, max_ext_leaf;
	unsigned logical_cpus;           /* per package, from CPUID (the MADT counts the machine's) */
	const char *logical_cpus_source; /* cpuid_0xb, cpuid_1_max_ids (an upper bound), cpuid_1_htt0 */
	bool is_intel, is_amd;
	/* features relevant to measurement */
	bool tsc, invariant_tsc, rdtscp, tsc_deadline, x2apic, apic, sse2, avx, avx2, avx512f;
	bool erms, fsrm, hypervisor, osxsave;
	/* time-stamp counter frequency as CPUID leaves 0x15/0x16 state it; 0 = not given */
	uint64_t tsc_hz_cpuid15, tsc_hz_cpuid16;
	/* microcode revision, when an MSR read is possible */
	bool ucode_valid;
	uint64_t ucode;
	/* performance monitoring */
	bool pmu_present;
	unsigned pmu_version; /* Intel architectural PMU version, AMD: 1 legacy, 2 core-ext, 3 PerfMonV2 */
	const char *pmu_reason;
	unsigned num_caches;
	struct cache_desc caches[CPU_MAX_CACHES];
};

/* Identification, features, caches and PMU presence (CPUID only: safe anywhere). */
void arch_cpu_identify(struct cpu_info *ci);
/* Facts that need privileged reads (microcode); call once traps are installed. */
void arch_cpu_identify_privileged(struct cpu_info *ci);
/* System-management interrupts since reset, where the CPU counts them readably (Intel's
 * MSR_SMI_COUNT); false elsewhere (other vendors, no ring 0, a faulting read). */
bool arch_smi_count(const struct cpu_info *ci, uint64_t *count);
/* SMIs between two arch_smi_count readings. The count is 32 bits wide (Intel SDM vol. 4,
 * MSR_SMI_COUNT 34H: bits 31:0, the rest reserved) and wraps: the difference is taken in 32 bits,
 * so a wrap between the readings gives the small true count, not 2^64 minus something. */
#define ARCH_SMI_COUNT_MASK 0xFFFFFFFFull
static inline uint64_t arch_smi_delta(uint64_t before, uint64_t after)
{
	return (after - before) & ARCH_SMI_COUNT_MASK;
}
/* The calling CPU's hardware id as the instruction set reports it without privileged access
 * (x86_64: CPUID's x2APIC id, else the initial APIC id): what the hosted build's threads report. */
uint32_t arch_cpu_hw_id(void);

#endif
