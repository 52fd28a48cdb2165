/* Registration and counters of the bare-metal interrupt table (arch/irq_table.h), the same for
 * every port. */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "arch/irq_table.h"

#include "arch/cycles.h" /* compiler_barrier */

struct irq_table irq_tab;

void irq_set_eoi(void (*eoi)(void *ctx), void *ctx)
{
	irq_tab.eoi = 0;
	compiler_barrier();
	irq_tab.eoi_ctx = ctx;
	compiler_barrier();
	irq_tab.eoi = eoi;
}

void irq_register(unsigned vector, irq_handler_fn fn, void *ctx)
{
	if (vector < IRQ_FIRST_VECTOR || vector >= IRQ_NUM_VECTORS)
		return;
	irq_tab.ctx[vector] = ctx;
	compiler_barrier();
	irq_tab.fn[vector] = fn;
}

void irq_register_pc(unsigned vector, irq_pc_handler_fn fn, void *ctx)
{
	if (vector < IRQ_FIRST_VECTOR || vector >= IRQ_NUM_VECTORS || irq_tab.fn[vector])
		return;
	irq_tab.pc_fn = 0;
	compiler_barrier();
	irq_tab.pc_vector = vector;
	irq_tab.pc_ctx = ctx;
	compiler_barrier();
	irq_tab.pc_fn = fn;
}

void irq_unregister(unsigned vector)
{
	if (vector < IRQ_NUM_VECTORS) {
		irq_tab.fn[vector] = 0;
		if (irq_tab.pc_vector == vector)
			irq_tab.pc_fn = 0;
	}
}

bool irq_registered(unsigned vector)
{
	return vector < IRQ_NUM_VECTORS &&
	       (irq_tab.fn[vector] || (irq_tab.pc_fn && irq_tab.pc_vector == vector));
}

void irq_get_counts(struct irq_counts *out)
{
	out->taken = irq_tab.taken;
	out->spurious = irq_tab.spurious;
	out->unexpected = irq_tab.unexpected;
	out->last_unexpected = irq_tab.last_unexpected;
}

uint64_t irq_vector_count(unsigned vector)
{
	return vector < IRQ_NUM_VECTORS ? irq_tab.count[vector] : 0;
}
