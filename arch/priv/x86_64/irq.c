/* Interrupt dispatch, counters and masking (see irq.h; the entry stubs are in irq.S). traps.c
 * installs the stubs' IDT gates and calls in here (the gates are in, the exception hook); nothing
 * here calls traps.c back. */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "arch/irq.h"

#include "arch/irq_table.h"
#include "arch/x86_64/cpu.h"
#include "arch/traps.h"

#define UD2_LENGTH 2

extern volatile uint64_t x86_irq_exit_cycles;
void x86_irq_dispatch(uint64_t vector, uint64_t entry_cycles, const uint64_t *frame);

static struct {
	bool gates; /* traps_init loaded the IDT with our gates for vectors 32-255 */
	enum irq_exc_hook hooks[X86_NUM_EXCEPTIONS];
} irq;

void x86_irq_dispatch(uint64_t vector, uint64_t entry_cycles, const uint64_t *frame)
{
	unsigned v = (unsigned)vector & (IRQ_NUM_VECTORS - 1);

	if (v == IRQ_VEC_SPURIOUS) {
		irq_tab.spurious++; /* the APIC sets no in-service bit for it: no EOI */
		return;
	}
	irq_table_run(v, entry_cycles, frame[0], v);
	(void)irq_table_eoi();
}

/* Called by traps_init once the IDT with the interrupt gates is loaded. */
void x86_irq_gates_installed(void)
{
	irq.gates = true;
}

bool irq_available(void)
{
	return irq.gates;
}

uint64_t irq_last_exit_cycles(void)
{
	return x86_irq_exit_cycles;
}

bool irq_maskable(void)
{
	return true;
}

uint64_t irq_save_disable(void)
{
	uint64_t f = cpu_read_rflags();

	cpu_cli();
	return f;
}

void irq_restore(uint64_t saved)
{
	if (saved & X86_RFLAGS_IF)
		cpu_sti();
	else
		cpu_cli();
}

void irq_enable(void)
{
	cpu_sti();
}

void irq_disable(void)
{
	cpu_cli();
}

void irq_enable_halt_disable(void)
{
	cpu_sti_hlt();
	cpu_cli();
}

/* Called by the trap handler for #BP and #UD before any reporting. */
bool x86_exception_hook(struct trap_frame *f)
{
	unsigned v = (unsigned)f->vector;

	if (v >= X86_NUM_EXCEPTIONS)
		return false;
	switch (irq.hooks[v]) {
	case IRQ_HOOK_RESUME:
		return true;
	case IRQ_HOOK_SKIP_UNDEFINED:
		f->rip += UD2_LENGTH;
		return true;
	default:
		return false;
	}
}

void irq_set_exception_hook(unsigned vector, enum irq_exc_hook how)
{
	if (vector < X86_NUM_EXCEPTIONS)
		irq.hooks[vector] = how;
}
