/* The x86_64 part of arch/membw.h (included at its end): how caches are flushed and evicted, for
 * the records, and the kernels only this CPU has (none). */
#ifndef ARCH_X86_64_MEMBW_H
#define ARCH_X86_64_MEMBW_H

#define ARCH_CACHE_FLUSH_NAME "wbinvd"
/* WBINVD writes back and invalidates every level on bare metal; under a hypervisor it may be a
 * no-op (KVM without non-coherent DMA), so the caller asks for it only without one. */
#define ARCH_CACHE_FLUSH_ALL_TRUSTED 1
#define ARCH_CACHE_EVICT_NAME "clflush"

/* x86_64 has none beyond the shared table. */
static inline unsigned arch_membw_kernels(const struct membw_arch_kernel **k)
{
	*k = 0;
	return 0;
}

#endif
