/* AArch64 cache maintenance and the cache-control facts (CTR_EL0, DCZID_EL0): making generated
 * code visible to the instruction fetch, the cold start of the cache fill (arch_cache_flush_all of
 * arch/membw.h: clean and invalidate by set/way, then invalidate the I-cache), and whether DC ZVA
 * may be used and on which block. */
#ifndef ARCH_AARCH64_CACHE_OPS_H
#define ARCH_AARCH64_CACHE_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "arch/aarch64/id_decode.h"

struct aarch64_cache_ctl {
	uint64_t ctr, dczid;
	bool ccidx; /* CCSIDR_EL1 in the FEAT_CCIDX 64-bit layout (how plat kind=cache was decoded) */
	struct a64_ctr c;
	struct a64_dczid z;
};

void aarch64_cache_ctl(struct aarch64_cache_ctl *out);

/* After writing instructions to [code, code + size): DC CVAU per DminLine unless CTR_EL0.IDC, then
 * IC IVAU per IminLine unless CTR_EL0.DIC, with the DSB/ISB between (Arm ARM B2.4.4). */
void aarch64_sync_icache(const void *code, size_t size);

/* DMA without coherent caches: write [p, p + n) back to the point of coherency before a device
 * reads it (DC CVAC), or write back and drop it before the CPU reads what a device wrote (DC
 * CIVAC: an invalidate alone could drop a neighbour's dirty bytes on a shared line). */
void aarch64_dcache_clean_range(const void *p, size_t n);
void aarch64_dcache_clean_invalidate_range(const void *p, size_t n);

#endif
