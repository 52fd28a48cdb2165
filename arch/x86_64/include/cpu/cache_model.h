/* The x86_64 part of arch/cache_model.h (included there): QEMU's TCG names itself in CPUID
 * 0x40000000, captured in cpu_info's hv_sig. */
#ifndef ARCH_X86_64_CACHE_MODEL_H
#define ARCH_X86_64_CACHE_MODEL_H

#include "lib/fmt.h"

#define TCG_HV_SIG "TCGTCGTCGTCG"

static inline const char *arch_caches_unmodelled(const struct cpu_info *ci)
{
	return str_eq(ci->hv_sig, TCG_HV_SIG) ? "emulated CPU (TCG) " ARCH_CACHES_UNMODELLED_TAIL : NULL;
}

#endif
