/* The AArch64 part of arch/cache_model.h (included there): MIDR_EL1.Implementer 0x00 is reserved
 * for software use (the Arm ARM): no silicon has it, QEMU TCG's `max` CPU does (there is no
 * hypervisor signature to read on AArch64). */
#ifndef ARCH_AARCH64_CACHE_MODEL_H
#define ARCH_AARCH64_CACHE_MODEL_H

#include "arch/aarch64/cpu.h"

#define A64_MIDR_IMPL_SHIFT 24
#define A64_MIDR_IMPL_MASK 0xFFu
#define A64_MIDR_IMPL_SOFTWARE 0x00u

static inline const char *arch_caches_unmodelled(const struct cpu_info *ci)
{
	(void)ci;
	return ((sysreg_read(midr_el1) >> A64_MIDR_IMPL_SHIFT) & A64_MIDR_IMPL_MASK) == A64_MIDR_IMPL_SOFTWARE
		       ? "emulated CPU (MIDR implementer 0x00, reserved for software: QEMU TCG's max CPU) "
			 ARCH_CACHES_UNMODELLED_TAIL
		       : NULL;
}

#endif
