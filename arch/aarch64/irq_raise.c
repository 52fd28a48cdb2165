/* The deliberate exceptions of the exception round-trip probe (irq.h: irq_raise_breakpoint,
 * irq_raise_undefined): plain instructions, the same in the firmware (its vectors resume past them)
 * and in the hosted build, where the kernel turns them into SIGTRAP and SIGILL (hosted/irq_signal.c). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "arch/irq.h"

void irq_raise_breakpoint(void)
{
	__asm__ volatile("brk #0" ::: "memory");
}

void irq_raise_undefined(void)
{
	__asm__ volatile("udf #0" ::: "memory");
}
