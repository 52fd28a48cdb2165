/* The AArch64 part of arch/cache_model.h (included there): MIDR_EL1.Implementer 0x00 is reserved
 * for software use (the Arm ARM): no silicon has it, QEMU TCG's `max` CPU does. A named core under
 * TCG (-cpu cortex-a53 ...) has the real core's MIDR: there is no hypervisor signature to read on
 * AArch64, so the firmware's platform facts decide (QEMU's board with QEMU's PMU,
 * bench/facts/aarch64/platform.c) and leave A64_HV_SIG_QEMU_TCG in cpu_info's hv_sig. */
#ifndef ARCH_AARCH64_CACHE_MODEL_H
#define ARCH_AARCH64_CACHE_MODEL_H

#include "arch/aarch64/cpu.h"
#include "lib/fmt.h"

#define A64_MIDR_IMPL_SHIFT 24
#define A64_MIDR_IMPL_MASK 0xFFu
#define A64_MIDR_IMPL_SOFTWARE 0x00u
#define A64_HV_SIG_QEMU_TCG "QEMU TCG" /* cpu_info.hv_sig of a named core under TCG */

static inline const char *arch_caches_unmodelled(const struct cpu_info *ci)
{
	if (((sysreg_read(midr_el1) >> A64_MIDR_IMPL_SHIFT) & A64_MIDR_IMPL_MASK) == A64_MIDR_IMPL_SOFTWARE)
		return "emulated CPU (MIDR implementer 0x00, reserved for software: QEMU TCG's max CPU) "
		       ARCH_CACHES_UNMODELLED_TAIL;
	return str_eq(ci->hv_sig, A64_HV_SIG_QEMU_TCG)
		       ? "emulated CPU (QEMU TCG: a named core's ID registers on QEMU's board, whose PMU lacks the "
			 "L1D_CACHE and L1D_CACHE_REFILL events every such core has; plat kind=emulator) "
			 ARCH_CACHES_UNMODELLED_TAIL
		       : NULL;
}

#endif
