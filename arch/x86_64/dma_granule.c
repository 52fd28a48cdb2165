/* The CPU's cache-writeback granule on x86_64 (arch/dma_granule.h): the CLFLUSH line size. */
#include "arch/dma_granule.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/dma_granule.h"

#define CPUID_LEAF_FEATURES 1
#define CPUID1_EDX_CLFSH (1u << 19)
#define CPUID1_EBX_CLFLUSH_SHIFT 8
#define CPUID1_EBX_CLFLUSH_MASK 0xffu
#define CLFLUSH_UNIT 8u    /* the field counts 8-byte quadwords */
#define GRANULE_FALLBACK 64u

unsigned x86_dma_granule(uint32_t cpuid1_ebx, uint32_t cpuid1_edx)
{
	unsigned line = ((cpuid1_ebx >> CPUID1_EBX_CLFLUSH_SHIFT) & CPUID1_EBX_CLFLUSH_MASK) * CLFLUSH_UNIT;

	if (!(cpuid1_edx & CPUID1_EDX_CLFSH) || !line || (line & (line - 1)))
		return GRANULE_FALLBACK;
	return line;
}

unsigned arch_dma_granule(void)
{
	uint32_t a, b, c, d;

	cpu_cpuid(CPUID_LEAF_FEATURES, 0, &a, &b, &c, &d);
	return x86_dma_granule(b, d);
}
