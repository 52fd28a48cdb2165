/* AArch64 I-cache chains (arch/icache.h): the instruction words of icache_gen.c written into
 * executable memory, then made visible to the instruction fetch (cache_ops.c: DC CVAU / IC IVAU
 * as CTR_EL0's IDC / DIC require, DSB, ISB). Unlike x86, the indirect call alone is not enough. */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "arch/icache.h"

#include "arch/aarch64/cache_ops.h"
#include "arch/aarch64/icache_gen.h"

icache_chain_fn icache_chain_build(void *code, size_t size, size_t line)
{
	if (!a64_chain_write(code, size, line))
		return 0;
	aarch64_sync_icache(code, size);
	return (icache_chain_fn)(uintptr_t)code;
}

bool icache_chain_build_pair(void *code, size_t size, size_t line, const uint32_t *order,
			     icache_chain_fn *fwd, icache_chain_fn *rev)
{
	size_t f, r;

	if (!a64_chain_write_pair(code, size, line, ICACHE_REV_OFFSET, order, &f, &r))
		return false;
	aarch64_sync_icache(code, size);
	*fwd = (icache_chain_fn)((uintptr_t)code + f);
	*rev = (icache_chain_fn)((uintptr_t)code + r);
	return true;
}
