/* Privileged and serialising x86_64 instructions as inline functions: the single place that
 * spells them, so the rest of the code names what it does rather than how. */
#ifndef ARCH_X86_64_CPU_H
#define ARCH_X86_64_CPU_H

#include <stdint.h>

#define X86_RFLAGS_IF (1ull << 9)

static inline void cpu_cli(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void cpu_sti(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void cpu_hlt(void) { __asm__ volatile("hlt" ::: "memory"); }
/* sti's interrupt shadow covers the hlt: a pending interrupt wakes it rather than slipping in
 * between the two. */
static inline void cpu_sti_hlt(void) { __asm__ volatile("sti; hlt" ::: "memory"); }
/* Deliberate exceptions (the exception round-trip probe): exactly one instruction each. */
static inline void cpu_int3(void) { __asm__ volatile("int3" ::: "memory"); }
static inline void cpu_ud2(void) { __asm__ volatile("ud2" ::: "memory"); }
static inline void cpu_lfence(void) { __asm__ volatile("lfence" ::: "memory"); }
static inline void cpu_mfence(void) { __asm__ volatile("mfence" ::: "memory"); }
/* Write back and invalidate the line holding p in every cache level (SDM vol. 2A, CLFLUSH). */
static inline void cpu_clflush(const volatile void *p) { __asm__ volatile("clflush %0" : "+m"(*(volatile char *)p)::"memory"); }
/* Before a WRMSR to IA32_TSC_DEADLINE or an x2APIC register: those writes are not serialising
 * (SDM vol. 3A "x2APIC Register Address Space", "TSC-Deadline Mode"), and MFENCE orders only loads
 * and stores, not the WRMSR; the LFENCE keeps the WRMSR from starting before the MFENCE is done.
 * As Linux's weak_wrmsr_fence (arch/x86/include/asm/barrier.h, later processor.h). */
static inline void cpu_wrmsr_fence(void) { __asm__ volatile("mfence; lfence" ::: "memory"); }
static inline void compiler_barrier(void) { __asm__ volatile("" ::: "memory"); }
/* Spin-wait hint (pause): cheaper on the sibling thread and on power while polling. */
static inline void cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }

static inline uint64_t cpu_read_rflags(void)
{
	uint64_t f;

	__asm__ volatile("pushfq; popq %0" : "=r"(f));
	return f;
}

static inline uint64_t cpu_read_cr2(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint64_t cpu_read_cr0(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static inline uint64_t cpu_read_cr3(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

/* XCR `index` (0: XCR0, the enabled XSAVE features); only when CR4.OSXSAVE is set. */
static inline uint64_t cpu_xgetbv(uint32_t index)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(index));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t cpu_read_cr4(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline void cpu_cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b, uint32_t *c,
			     uint32_t *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

/* Read performance counter `index` (Intel: bit 30 selects the fixed counters). Not ordered with
 * the surrounding instructions by itself: callers fence it (pmu_hw.c). */
static inline uint64_t cpu_rdpmc(uint32_t index)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(index));
	return ((uint64_t)hi << 32) | lo;
}

/* Write back and invalidate every cache level (privileged): a cold start for cache probes. */
static inline void cpu_wbinvd(void) { __asm__ volatile("wbinvd" ::: "memory"); }

/* Stop this CPU for good: used after the final record when every way to power off failed. */
static inline __attribute__((noreturn)) void cpu_halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt" ::: "memory");
}

#endif
