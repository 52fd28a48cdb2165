/* The AArch64 part of arch/traps.h in the hosted build (hosted/traps.c is the CPU-neutral part): a
 * Linux process owns no vectors (VBAR_EL1 is the kernel's), so no fault is caught at our level —
 * the guarded system-register accesses (arch/aarch64/sysreg_safe.c) then touch only what EL0 may
 * read (sysreg_table.h: A64_SRF_EL0) — and there are no other cores of ours to hand exceptions to
 * (the workers are threads: hosted/smp.c). */
#include "arch/traps.h"

bool traps_catch_faults(void)
{
	return false;
}

unsigned traps_el(void)
{
	return 0;
}

void traps_set_ap_handler(trap_ap_fn fn)
{
	(void)fn;
}
