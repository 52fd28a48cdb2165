/* The exception level of the hosted build (arch/aarch64/cpu.h: cpu_current_el): a Linux process
 * runs at EL0, where CurrentEL itself is UNDEFINED, so this is a fact of the environment, not a
 * read. arch/aarch64 asks it before any EL1 register (CLIDR/CCSIDR, CPACR, the PMU, SCTLR...), and
 * refuses those with a reason here. */
#include "arch/aarch64/cpu.h"

unsigned cpu_current_el(void)
{
	return A64_EL0;
}
