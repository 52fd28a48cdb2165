/* The uniprocessor answer of arch/aarch64/smp.h: the firmware leaves the secondary cores off and
 * this build does not start them yet. */
#include "arch/aarch64/smp.h"

unsigned smp_cpus_online(void)
{
	return 1;
}

void smp_set_all_hooks(void (*begin)(unsigned cpu), void (*end)(unsigned cpu))
{
	(void)begin;
	(void)end;
}
