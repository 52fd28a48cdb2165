/* Platform facts that every build can gather (CPU identity, features, caches, PMU presence) and
 * the TSC calibration, emitted as `plat` records (docs/protocol.md). Firmware-only facts (memory
 * map, ACPI, SMBIOS) are emitted by efi/. */
#ifndef BENCH_PLATFORM_H
#define BENCH_PLATFORM_H

#include "arch/cpu_info.h"
#include "arch/pmu.h"
#include "bench/facts/x86_64/tsc_cal.h"

void platform_emit_cpu(const struct cpu_info *ci);
/* Discover the PMU (needs traps for the MSR reads on bare metal) and emit `plat kind=pmu`. */
void platform_pmu(const struct cpu_info *ci, struct pmu_info *pi);
/* Which vector widths the memory kernels can use now (after the OS or the firmware enabled them). */
void platform_emit_simd(void);

/* Calibrate over `windows` windows of window_ms against refs; emit a tsc_cal record per window
 * and reference and the tsc summary; returns the chosen frequency (0 if nothing could measure). */
uint64_t platform_calibrate_tsc(const struct cpu_info *ci, const struct ref_clock *refs,
				unsigned nrefs, unsigned windows, uint64_t window_ms);

#endif
