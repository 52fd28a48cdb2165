/* Page-table walk and cache maintenance for the memory probes (bare metal, ring 0). The firmware
 * runs on OVMF's identity map, so table addresses are usable as pointers. */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "arch/membw.h"

#include <stdint.h>

#include "arch/x86_64/cpu.h"

#define PTE_PRESENT (1ull << 0)
#define PTE_PS (1ull << 7) /* large page at PDPT (1 GiB) or PD (2 MiB) level */
#define PTE_ADDR_MASK 0x000FFFFFFFFFF000ull
#define CR3_ADDR_MASK PTE_ADDR_MASK
#define CR4_LA57 (1ull << 12)
#define INDEX_BITS 9
#define INDEX_MASK 0x1FFull
#define SHIFT_PML4 39

static uint64_t read_cr3(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

const char *arch_page_size(const void *addr)
{
	static const char *const names[] = { 0, "1G", "2M", "4K" };
	uint64_t a = (uint64_t)(uintptr_t)addr;
	uint64_t table = read_cr3() & CR3_ADDR_MASK;
	int level;

	if (cpu_read_cr4() & CR4_LA57)
		return 0; /* 5-level paging: not walked */
	for (level = 0; level < 4; level++) {
		unsigned shift = SHIFT_PML4 - (unsigned)level * INDEX_BITS;
		uint64_t e = ((const volatile uint64_t *)(uintptr_t)table)[(a >> shift) & INDEX_MASK];

		if (!(e & PTE_PRESENT))
			return 0;
		if (level == 3 || ((level == 1 || level == 2) && (e & PTE_PS)))
			return names[level];
		table = e & PTE_ADDR_MASK;
	}
	return 0;
}

void arch_cache_flush_all(void)
{
	cpu_wbinvd();
}

/* CPUID.1:EBX[15:8] x 8 is 64 bytes on every x86-64 CPU so far; a smaller step than the real
 * line would only flush some lines twice. */
#define CLFLUSH_STEP 64

void arch_cache_evict_range(const void *p, size_t n, bool code)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)(CLFLUSH_STEP - 1), end = (uintptr_t)p + n;

	(void)code; /* CLFLUSH invalidates the instruction caches too (they are coherent on x86) */
	cpu_mfence(); /* CLFLUSH is ordered only by fences: earlier stores first */
	for (; a < end; a += CLFLUSH_STEP)
		cpu_clflush((const void *)a);
	cpu_mfence();
}
