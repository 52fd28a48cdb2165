/* Interrupt dispatch, counters, masking and exception hooks of the AArch64 build (see irq.h; the
 * entry stubs are in the vector table, traps.S). traps.c installs the vectors and calls in here
 * (the vectors are in, the exception hook); nothing here calls traps.c back. */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "arch/irq.h"

#include "arch/irq_table.h"
#include "arch/aarch64/cpu.h"
#include "arch/aarch64/gic_cpuif.h"
#include "arch/traps.h"

#define INSN_BYTES 4 /* brk and udf: resume after the instruction */
#define ESR_EC_SHIFT 26
#define ESR_EC_MASK 0x3Fu
#define GIC_SPURIOUS 1023u
#define GIC_SPECIAL_FIRST 1020u
#define GIC_INTID_FIELD 0xFFFFFFu

/* The stub's exit stamp (traps.S writes it; hidden so the stub may address it PC-relative). */
__attribute__((visibility("hidden"))) volatile uint64_t a64_irq_exit_cycles;
void a64_irq_dispatch(uint64_t entry_cycles, uint64_t pc);

static struct {
	uint8_t route[A64_IRQ_ROUTABLE];
	void (*ack)(void *ctx, unsigned intid);
	void *ack_ctx;
	const struct a64_irq_cpuif *cpuif; /* NULL: GICv3 system registers */
	volatile unsigned current;
	volatile uint32_t current_iar;
	enum irq_exc_hook hooks[A64_EC_COUNT];
	bool vectors; /* traps_init installed our EL1 vectors (the IRQ entries are ours) */
} irq;

static void end_of_interrupt(const struct a64_irq_cpuif *c, unsigned intid, uint32_t iar)
{
	if (irq_table_eoi())
		return;
	if (__builtin_expect(!c, 1))
		icc_eoir1_el1_write(intid);
	else
		c->eoi(iar);
}

/* Vector 0 stands for an INTID no driver routed: irq_table_run counts it unexpected. */
void a64_irq_dispatch(uint64_t entry_cycles, uint64_t pc)
{
	const struct a64_irq_cpuif *c = irq.cpuif;
	uint32_t iar;
	unsigned intid;

	/* GICv3 (no interface installed) laid out as the straight path, as before the GICv2 */
	if (__builtin_expect(!c, 1)) {
		iar = (uint32_t)icc_iar1_el1_read();
		intid = iar & GIC_INTID_FIELD;
	} else {
		iar = c->ack();
		intid = iar & c->intid_mask;
	}

	if (intid >= GIC_SPECIAL_FIRST) {
		if (intid == GIC_SPURIOUS)
			irq_tab.spurious++; /* nothing was acknowledged: no EOI */
		return;
	}
	irq.current = intid;
	irq.current_iar = iar;
	if (irq.ack)
		irq.ack(irq.ack_ctx, intid);
	irq_table_run(intid < A64_IRQ_ROUTABLE ? irq.route[intid] : 0, entry_cycles, pc, intid);
	end_of_interrupt(c, intid, iar);
}

void a64_irq_set_cpuif(const struct a64_irq_cpuif *cpuif)
{
	irq.cpuif = cpuif;
}

uint32_t a64_irq_current_iar(void)
{
	return irq.current_iar;
}

void a64_irq_vectors_installed(void)
{
	irq.vectors = true;
}

bool irq_available(void)
{
	return irq.vectors;
}

void a64_irq_set_ack_hook(void (*fn)(void *ctx, unsigned intid), void *ctx)
{
	irq.ack_ctx = ctx;
	compiler_barrier();
	irq.ack = fn;
}

void a64_irq_route(unsigned intid, unsigned vector)
{
	if (intid < A64_IRQ_ROUTABLE && vector < IRQ_NUM_VECTORS)
		irq.route[intid] = (uint8_t)vector;
}

unsigned a64_irq_current_intid(void)
{
	return irq.current;
}

uint64_t irq_last_exit_cycles(void)
{
	return a64_irq_exit_cycles;
}

bool irq_maskable(void)
{
	return true;
}

uint64_t irq_save_disable(void)
{
	uint64_t daif;

	__asm__ volatile("mrs %0, daif; msr daifset, #3" : "=r"(daif) : : "memory");
	return daif;
}

void irq_restore(uint64_t saved)
{
	__asm__ volatile("msr daif, %0; isb" : : "r"(saved) : "memory");
}

/* The isb makes the unmask take effect before what follows (a pending IRQ is taken there). */
void irq_enable(void)
{
	__asm__ volatile("msr daifclr, #2; isb" ::: "memory");
}

void irq_disable(void)
{
	__asm__ volatile("msr daifset, #2" ::: "memory");
}

void irq_enable_halt_disable(void)
{
	__asm__ volatile("dsb sy; wfi; msr daifclr, #2; isb; msr daifset, #2" ::: "memory");
}

bool a64_exception_hook(uint64_t esr, uint64_t *elr)
{
	unsigned ec = (unsigned)(esr >> ESR_EC_SHIFT) & ESR_EC_MASK;

	switch (irq.hooks[ec]) {
	case IRQ_HOOK_RESUME:
	case IRQ_HOOK_SKIP_UNDEFINED:
		*elr += INSN_BYTES; /* ELR points at the brk / udf itself */
		return true;
	default:
		return false;
	}
}

void irq_set_exception_hook(unsigned vector, enum irq_exc_hook how)
{
	if (vector < A64_EC_COUNT)
		irq.hooks[vector] = how;
}
