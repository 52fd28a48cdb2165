/* The cache hierarchy as the kernel describes it (its cacheinfo, /sys/devices/system/cpu/cpuN/
 * cache/index*), as cpu_info's cache descriptions: for a CPU whose own cache registers user space
 * cannot read (AArch64: CLIDR_EL1 and CCSIDR_EL1 are EL1's). The raw files are also emitted as
 * plat kind=cache_sysfs by facts.c; this fills what the probes size their buffers from. */
#ifndef HOSTED_CACHE_SYSFS_H
#define HOSTED_CACHE_SYSFS_H

#include "arch/cpu_info.h"

/* Append the caches of CPU `cpu` to ci->caches (source "sysfs"); returns how many were added (0:
 * no cache description, e.g. a VM or an emulator whose kernel exposes none). */
unsigned hosted_caches_from_sysfs(int cpu, struct cpu_info *ci);
/* x86_64: CPUID stays the first source (the firmware's decoding, so a hosted run checks it); the
 * levels it lacks or refused as implausible (geometry_unknown: arch/x86_64/cache_judge.c) are
 * taken from the kernel's description where it has them (source "sysfs"). Where sysfs has no
 * cache directory (a hypervisor leaving 0x8000001D empty: the kernel's cacheinfo finds nothing
 * either) CPUID's description is all there is. Returns how many levels were taken. */
unsigned hosted_caches_fill_from_sysfs(int cpu, struct cpu_info *ci);

#endif
