/* The MSR accessors for the CPUID host tools: a recorded machine has no MSRs to reach (what the
 * dump recorded of IA32_BIOS_SIGN_ID is fed in by cpuid_replay.c), so every access faults, as
 * cpu_info.c's privileged half expects where an MSR does not exist. */
#include "arch/x86_64/msr.h"

int rdmsr_safe(uint32_t msr, uint64_t *value)
{
	(void)msr;
	*value = 0;
	return MSR_FAULT;
}

int wrmsr_safe(uint32_t msr, uint64_t value)
{
	(void)msr, (void)value;
	return MSR_FAULT;
}
