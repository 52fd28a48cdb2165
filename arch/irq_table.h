/* The handler table and counters behind arch/irq.h on bare metal, shared by the ports'
 * dispatchers (arch/priv/x86_64/irq.c, arch/priv/aarch64/irq.c): handlers by vector, the one PC handler
 * slot (the profiler's), per-vector and total counts. The ports keep what differs: how a vector
 * is acknowledged, how it ends (EOI), masking and exception hooks. The hosted build has its own
 * table over signals (hosted/irq_signal.c). */
#ifndef ARCH_IRQ_TABLE_H
#define ARCH_IRQ_TABLE_H

#include <stdint.h>

#include "arch/irq.h"

struct irq_table {
	irq_handler_fn fn[IRQ_NUM_VECTORS];
	void *ctx[IRQ_NUM_VECTORS];
	uint64_t count[IRQ_NUM_VECTORS];
	void (*eoi)(void *ctx);
	void *eoi_ctx;
	volatile uint64_t taken, spurious, unexpected;
	volatile unsigned last_unexpected;
	/* One PC handler at a time (the profiler's): a slot, not a table per vector. */
	unsigned pc_vector;
	irq_pc_handler_fn pc_fn;
	void *pc_ctx;
};

extern struct irq_table irq_tab;

/* Run what vector v asks for, after the port acknowledged it and before its EOI: the PC handler
 * when v is its vector (any CPU at once: nothing shared is written), else count v and call its
 * handler, or count it unexpected under the name `source` (the vector, or the GIC's INTID).
 * Inline: it is on every interrupt's path. */
static inline void irq_table_run(unsigned v, uint64_t entry_cycles, uint64_t pc, unsigned source)
{
	irq_pc_handler_fn pc_fn = irq_tab.pc_fn;

	if (pc_fn && v == irq_tab.pc_vector) {
		pc_fn(irq_tab.pc_ctx, entry_cycles, pc);
		return;
	}
	irq_tab.count[v]++;
	if (irq_tab.fn[v]) {
		irq_tab.taken++;
		irq_tab.fn[v](irq_tab.ctx[v], entry_cycles);
	} else {
		irq_tab.unexpected++;
		irq_tab.last_unexpected = source;
	}
}

/* The port's end of an interrupt when a driver set one (irq_set_eoi); false: it set none. */
static inline int irq_table_eoi(void)
{
	if (!irq_tab.eoi)
		return 0;
	irq_tab.eoi(irq_tab.eoi_ctx);
	return 1;
}

#endif
