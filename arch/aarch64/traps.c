/* The AArch64 trap interface without exception vectors yet (see traps.h): inert recovery points,
 * nothing installed. Left for the port: VBAR_EL1 vectors with ESR/FAR/ELR fault records. */
#include "arch/aarch64/traps.h"

void traps_init(trap_report_fn report, trap_fatal_fn fatal)
{
	(void)report;
	(void)fatal;
}

bool traps_installed(void)
{
	return false;
}

int fault_try(struct fault_jmp *j)
{
	(void)j;
	return 0;
}

void fault_arm(struct fault_jmp *j)
{
	(void)j;
}

void fault_disarm(void)
{
}

const char *trap_vector_name(unsigned vector)
{
	(void)vector;
	return "exception";
}
