/* The AArch64 memory-system facts (caches and kernels): `plat kind=cache_ctl` (CTR_EL0,
 * DCZID_EL0 decoded) and `plat kind=simd` (FP/SIMD and SVE after the firmware enabled SVE). */
#ifndef BENCH_PLATFORM_A64_MEM_H
#define BENCH_PLATFORM_A64_MEM_H

/* Enables SVE (where the CPU has it, at EL1) and emits the two records. */
void platform_a64_mem_emit(void);

#endif
