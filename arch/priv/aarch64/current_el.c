/* The exception level the firmware runs us at (arch/aarch64/cpu.h: cpu_current_el), from CurrentEL,
 * which EL1 and EL2 may read; the hosted build, at EL0, has its own (hosted/aarch64/current_el.c). */
#include "arch/aarch64/cpu.h"

#define CURRENTEL_SHIFT 2
#define CURRENTEL_MASK 3u

unsigned cpu_current_el(void)
{
	return (unsigned)(sysreg_read(CurrentEL) >> CURRENTEL_SHIFT) & CURRENTEL_MASK;
}
