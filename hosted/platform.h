/* The CPU's side of the hosted entry (hosted/main.c): what the process learns about the processor
 * from its own instructions and records, and how the cycle counter's rate is found. Implemented
 * once per architecture in hosted/<arch>/platform.c, so main.c is the same for every CPU: x86_64
 * identifies through CPUID and calibrates the TSC against CLOCK_MONOTONIC_RAW; AArch64 reads the ID
 * registers Linux exposes at EL0 and takes the generic timer's rate from CNTFRQ_EL0. */
#ifndef HOSTED_PLATFORM_H
#define HOSTED_PLATFORM_H

#include <stdint.h>

#include "arch/cpu_info.h"
#include "arch/pmu.h"
#include "bench/core/options.h"

/* The label of the summary's timer-overhead line (the counter's own unit). */
extern const char hosted_overhead_label[];

/* Identify the CPU into *cpu and emit its plat records (cpu, simd or aarch64_id, pmu, ...) into
 * *pmu: before the OS facts. */
void hosted_platform_cpu(struct cpu_info *cpu, struct pmu_info *pmu);

/* After the arena is mapped: the cycle counter ready to read and its rate in Hz (0: unknown),
 * with its plat records and summary lines. */
uint64_t hosted_platform_clock(const struct cpu_info *cpu, const struct config *cfg);

#endif
