/* The MMU state the firmware left at EL1: system registers and the walk for one address. */
#ifndef ARCH_AARCH64_PAGING_H
#define ARCH_AARCH64_PAGING_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/aarch64/walk.h"

struct aarch64_mmu {
	unsigned el;
	uint64_t sctlr, tcr, mair, ttbr0;
	bool walked;      /* the walk ran (EL1, TTBR0 walks enabled, address in range) */
	struct a64_walk w;
	unsigned attr;    /* the MAIR_EL1 attribute byte of the mapping (0xFF: normal WB RW-allocate) */
};

/* false at EL2 or when the walk could not be made (m->el says which). */
bool aarch64_mmu_state(const void *addr, struct aarch64_mmu *m);

#endif
