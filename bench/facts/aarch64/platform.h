/* The platform records of the AArch64 build, until bench/facts/x86_64/platform.c's (shaped by CPUID: x86
 * features, MSR-based PMU discovery, TSC calibration) gain an architecture-neutral form. */
#ifndef BENCH_PLATFORM_AARCH64_H
#define BENCH_PLATFORM_AARCH64_H

#include "arch/cpu_info.h"
#include "arch/pmu.h"

/* plat kind=cpu, kind=aarch64_id (the raw ID registers), kind=cache per cache, kind=pmu
 * (PMUv3 discovery: bench/facts/aarch64/pmu.c). */
void platform_aarch64_emit_cpu(const struct cpu_info *ci, struct pmu_info *pi);
/* plat kind=emulator (docs/protocol.md; the hosted build's record of the same name): whether
 * the CPU is QEMU TCG's, by bench/facts/aarch64/emulator.h's a64_emulator_reason over MIDR_EL1,
 * the board (qemu_board: QEMU's ACPI OEM ID or SMBIOS maker), the PMU discovery (pi, after
 * platform_aarch64_emit_cpu) and the caches. When TCG is known only from the board and the PMU (a
 * named core), ci->hv_sig becomes A64_HV_SIG_QEMU_TCG, which arch_caches_unmodelled reads: the
 * cache checks then skip with the reason instead of judging an emulator's timing. */
void platform_aarch64_emit_emulator(struct cpu_info *ci, const struct pmu_info *pi, bool qemu_board);
/* plat kind=tsc for the generic timer: the rate is CNTFRQ_EL0 as the firmware programmed it (not
 * measured against another clock: there is none in the skeleton). Returns it (0 = unprogrammed). */
uint64_t platform_aarch64_timer(void);
/* plat kind=mmu: the translation regime the firmware left, and what maps `addr` (the arena). */
void platform_aarch64_emit_mmu(const void *addr);

#endif
