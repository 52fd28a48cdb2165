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

#endif
