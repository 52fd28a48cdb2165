/* The deliberate exceptions of the exception round-trip probe (irq.h: irq_raise_breakpoint, irq_raise_undefined):
 * plain instructions, the same in the firmware and in the hosted build, where the kernel turns them
 * into SIGTRAP and SIGILL (hosted/irq_signal.c). */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "arch/x86_64/cpu.h"
#include "arch/irq.h"

void irq_raise_breakpoint(void)
{
	cpu_int3();
}

void irq_raise_undefined(void)
{
	cpu_ud2();
}
