/* Whether the CPU models its caches, for code outside arch/ (the footprint probe's time method):
 * NULL where it may, else the reason a lap's timing shows no cache of the CPU described (an
 * emulator's host instead). Selects the architecture's test. */
#ifndef ARCH_CACHE_MODEL_H
#define ARCH_CACHE_MODEL_H

#include <stddef.h>

#include "arch/cpu_info.h"
#include "lib/fmt.h"

#if defined(__x86_64__)
/* QEMU's TCG names itself in CPUID 0x40000000. */
#define TCG_HV_SIG "TCGTCGTCGTCG"
static inline const char *arch_caches_unmodelled(const struct cpu_info *ci)
{
	return str_eq(ci->hv_sig, TCG_HV_SIG) ? "emulated CPU (TCG) models no caches: the per-line cost (cost_mcyc, "
						 "milli-cycles, cold minus warm re-touch) is the emulator's host"
					      : NULL;
}
#elif defined(__aarch64__)
#include "arch/aarch64/cpu.h"

/* MIDR_EL1.Implementer 0x00 is reserved for software use (the Arm ARM): no silicon has it, QEMU
 * TCG's `max` CPU does (there is no hypervisor signature to read on AArch64). */
#define A64_MIDR_IMPL_SHIFT 24
#define A64_MIDR_IMPL_MASK 0xFFu
#define A64_MIDR_IMPL_SOFTWARE 0x00u
static inline const char *arch_caches_unmodelled(const struct cpu_info *ci)
{
	(void)ci;
	return ((sysreg_read(midr_el1) >> A64_MIDR_IMPL_SHIFT) & A64_MIDR_IMPL_MASK) == A64_MIDR_IMPL_SOFTWARE
		       ? "emulated CPU (MIDR implementer 0x00, reserved for software: QEMU TCG's max CPU) models no "
			 "caches: the per-line cost (cost_mcyc, milli-cycles, cold minus warm re-touch) is the "
			 "emulator's host"
		       : NULL;
}
#else
#error "no cache-model test for this architecture yet"
#endif

#endif
