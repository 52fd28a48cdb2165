/* The translation state the firmware left (see paging.h): arch_page_size() of arch/membw.h for the
 * memory probes' `page` field, and the MMU facts of `plat kind=mmu`. Reads TTBR0_EL1, TCR_EL1,
 * MAIR_EL1, SCTLR_EL1 and the tables themselves through the firmware's identity map; at EL2 the
 * firmware's tables are TTBR0_EL2's, not walked (unknown). */
/* OPT_FAST: -O2 (Makefile): timed window or what runs inside one. */
#include "arch/aarch64/paging.h"

#include "arch/aarch64/cpu.h"
#include "arch/membw.h"

#define EL1 1
#define MAIR_ATTR_BITS 8
#define MAIR_ATTR_MASK 0xFFu

bool aarch64_mmu_state(const void *addr, struct aarch64_mmu *m)
{
	*m = (struct aarch64_mmu){ .el = cpu_current_el() };
	if (m->el != EL1)
		return false;
	m->sctlr = sysreg_read(sctlr_el1);
	m->tcr = sysreg_read(tcr_el1);
	m->mair = sysreg_read(mair_el1);
	m->ttbr0 = sysreg_read(ttbr0_el1);
	m->walked = a64_walk(m->ttbr0, m->tcr, (uint64_t)(uintptr_t)addr, a64_desc_read_identity, 0, &m->w);
	if (m->walked && m->w.mapped)
		m->attr = (unsigned)(m->mair >> (MAIR_ATTR_BITS * m->w.attr_index)) & MAIR_ATTR_MASK;
	return m->walked;
}

const char *arch_page_size(const void *addr)
{
	struct aarch64_mmu m;

	if (!aarch64_mmu_state(addr, &m) || !m.w.mapped)
		return 0;
	return a64_size_name(m.w.map_bytes);
}
