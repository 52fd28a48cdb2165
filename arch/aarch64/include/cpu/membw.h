/* The AArch64 part of arch/membw.h (included near its end): how caches are flushed and evicted, for
 * the records, and the kernels only this CPU has (load/store pair, DC ZVA, SVE, FEAT_MOPS:
 * arch/aarch64/membw.c). */
#ifndef ARCH_AARCH64_MEMBW_H
#define ARCH_AARCH64_MEMBW_H

#define ARCH_CACHE_FLUSH_NAME "setway"
/* Set/way operations reach this core's caches only, never a system cache, and a hypervisor
 * honours at most the first of a guest's (Linux KVM): never the cold start of record here. */
#define ARCH_CACHE_FLUSH_ALL_TRUSTED 0
#define ARCH_CACHE_EVICT_NAME "dc_civac"

#endif
