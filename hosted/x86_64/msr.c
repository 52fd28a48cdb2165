/* The model-specific registers in the hosted build: user space cannot read or write them (rdmsr and
 * wrmsr are ring 0), so the safe accessors of arch/x86_64/msr.h refuse with MSR_NO_TRAPS and the
 * facts that need them (microcode, SMI count) read as unreadable. Replaces the firmware's
 * exception-table accessors of arch/priv/x86_64/traps.c. */
#include "arch/x86_64/msr.h"

int rdmsr_safe(uint32_t msr, uint64_t *value)
{
	(void)msr;
	(void)value;
	return MSR_NO_TRAPS;
}

int wrmsr_safe(uint32_t msr, uint64_t value)
{
	(void)msr;
	(void)value;
	return MSR_NO_TRAPS;
}
