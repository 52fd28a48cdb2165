/* The x86_64 part of arch/cycles.h (included there, before the shared declarations): the
 * time-stamp counter, the cycle clock every probe is timed with.
 *
 * cycles_begin()/cycles_end() bracket a measured region the way Intel's white paper on code execution
 * timing recommends: the fences keep earlier work from leaking past the start and the timed work
 * from finishing after the end read. The four read methods of the timer probe are also here, each
 * with a loop that collects back-to-back differences (samples first, emitted later). */
#ifndef ARCH_X86_64_CYCLES_H
#define ARCH_X86_64_CYCLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/cpu.h" /* cpu_relax, for loops that wait on the TSC */

static inline uint64_t cycles_read(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t tsc_lfence_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t tsc_rdtscp(void)
{
	uint32_t lo, hi, aux;

	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t tsc_cpuid_rdtsc(void)
{
	uint32_t lo, hi;

	/* cpuid is fully serialising; it clobbers rbx and rcx as well. */
	__asm__ volatile("xor %%eax, %%eax; cpuid; rdtsc"
			 : "=a"(lo), "=d"(hi)
			 :
			 : "rbx", "rcx", "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t cycles_begin(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* Needs rdtscp; tsc_init() falls back to lfence;rdtsc where the CPU lacks it. */
uint64_t cycles_end(void);

/* The timer probe's read methods, the members of arch/cycles.h's enum cycles_method (in this
 * order, CYCLES_BEGIN_END among them). */
#define CYCLES_CPU_METHODS \
	CYCLES_RDTSC, \
	CYCLES_LFENCE_RDTSC, \
	CYCLES_RDTSCP, \
	CYCLES_CPUID_RDTSC, \
	CYCLES_BEGIN_END, /* the runner's own cycles_begin() .. cycles_end() pair: the overhead it subtracts */

/* Choose cycles_end's instruction: rdtscp where the CPU has it, else lfence;rdtsc. */
void tsc_init(bool have_rdtscp);


#endif
