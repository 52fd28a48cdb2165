/* Interrupt dispatch, counters and masking (see irq.h). */
#include "arch/x86_64/irq.h"

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/traps.h"

#define UD2_LENGTH 2

extern volatile uint64_t x86_irq_exit_tsc;
void x86_irq_dispatch(uint64_t vector, uint64_t entry_tsc, const uint64_t *frame);

static struct {
	irq_handler_fn fn[IRQ_NUM_VECTORS];
	void *ctx[IRQ_NUM_VECTORS];
	uint64_t count[IRQ_NUM_VECTORS];
	void (*eoi)(void *ctx);
	void *eoi_ctx;
	volatile uint64_t taken, spurious, unexpected;
	volatile unsigned last_unexpected;
	enum irq_exc_hook hooks[X86_NUM_EXCEPTIONS];
	/* One PC handler at a time (the profiler's): a slot, not a table per vector. */
	unsigned pc_vector;
	irq_pc_handler_fn pc_fn;
	void *pc_ctx;
} irq;

void x86_irq_dispatch(uint64_t vector, uint64_t entry_tsc, const uint64_t *frame)
{
	unsigned v = (unsigned)vector & (IRQ_NUM_VECTORS - 1);
	irq_pc_handler_fn pc_fn = irq.pc_fn;

	if (pc_fn && v == irq.pc_vector) { /* any CPU: nothing shared is written */
		pc_fn(irq.pc_ctx, entry_tsc, frame[0]);
		if (irq.eoi)
			irq.eoi(irq.eoi_ctx);
		return;
	}
	if (v == IRQ_VEC_SPURIOUS) {
		irq.spurious++; /* the APIC sets no in-service bit for it: no EOI */
		return;
	}
	irq.count[v]++;
	if (irq.fn[v]) {
		irq.taken++;
		irq.fn[v](irq.ctx[v], entry_tsc);
	} else {
		irq.unexpected++;
		irq.last_unexpected = v;
	}
	if (irq.eoi)
		irq.eoi(irq.eoi_ctx);
}

bool irq_available(void)
{
	return traps_installed();
}

void irq_set_eoi(void (*eoi)(void *ctx), void *ctx)
{
	irq.eoi = eoi;
	irq.eoi_ctx = ctx;
}

void irq_register(unsigned vector, irq_handler_fn fn, void *ctx)
{
	if (vector < IRQ_FIRST_VECTOR || vector >= IRQ_NUM_VECTORS)
		return;
	irq.ctx[vector] = ctx;
	compiler_barrier();
	irq.fn[vector] = fn;
}

void irq_register_pc(unsigned vector, irq_pc_handler_fn fn, void *ctx)
{
	if (vector < IRQ_FIRST_VECTOR || vector >= IRQ_NUM_VECTORS || irq.fn[vector])
		return;
	irq.pc_fn = 0;
	compiler_barrier();
	irq.pc_vector = vector;
	irq.pc_ctx = ctx;
	compiler_barrier();
	irq.pc_fn = fn;
}

void irq_unregister(unsigned vector)
{
	if (vector < IRQ_NUM_VECTORS) {
		irq.fn[vector] = 0;
		if (irq.pc_vector == vector)
			irq.pc_fn = 0;
	}
}

bool irq_registered(unsigned vector)
{
	return vector < IRQ_NUM_VECTORS && (irq.fn[vector] || (irq.pc_fn && irq.pc_vector == vector));
}

void irq_get_counts(struct irq_counts *out)
{
	out->taken = irq.taken;
	out->spurious = irq.spurious;
	out->unexpected = irq.unexpected;
	out->last_unexpected = irq.last_unexpected;
}

uint64_t irq_vector_count(unsigned vector)
{
	return vector < IRQ_NUM_VECTORS ? irq.count[vector] : 0;
}

uint64_t irq_last_exit_tsc(void)
{
	return x86_irq_exit_tsc;
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
	case IRQ_HOOK_SKIP_UD2:
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
