/* The x86_64 part of arch/membw.h (included near its end): how caches are flushed and evicted, for
 * the records (its own kernels, the multi-stream loops, are arch/x86_64/membw.c). */
#ifndef ARCH_X86_64_MEMBW_H
#define ARCH_X86_64_MEMBW_H

#define ARCH_CACHE_FLUSH_NAME "wbinvd"
/* WBINVD writes back and invalidates every level on bare metal; under a hypervisor it may be a
 * no-op (KVM without non-coherent DMA), so the caller asks for it only without one. */
#define ARCH_CACHE_FLUSH_ALL_TRUSTED 1
#define ARCH_CACHE_EVICT_NAME "clflush"

#endif
