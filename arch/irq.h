/* Hardware interrupts, for code outside arch/: handlers by vector, the end-of-interrupt callback,
 * counters, masking and the exception hooks of the round-trip probe, declared here once and
 * implemented per CPU (x86_64: IDT gates, arch/priv/x86_64/irq.c; AArch64: the GICv3 CPU
 * interface, arch/priv/aarch64/irq.c; hosted: signals, hosted/irq_signal.c, where irq_maskable()
 * is false). Interrupts stay masked except inside a probe's explicit window. The entry stub reads
 * the cycle counter as its first work (entry_cycles) and again right before it returns (the exit
 * stamp): entry..exit is the handler's direct cost as the stub sees it. The CPU's part,
 * arch/<cpu>/include/cpu/irq.h, included at the end, gives the exception numbers (IRQ_EXC_*) and its private
 * extras (AArch64: INTID routing). */
#ifndef ARCH_IRQ_H
#define ARCH_IRQ_H

#include <stdbool.h>
#include <stdint.h>

#define IRQ_FIRST_VECTOR 32
#define IRQ_NUM_VECTORS 256
/* x86_64: the local APIC's spurious vector (no EOI); AArch64: not a slot, INTID 1023 is counted
 * as spurious. */
#define IRQ_VEC_SPURIOUS 0xFF

/* Vectors (AArch64: handler slots, routed to an INTID by the platform) the probes use (x86
 * priority class = vector >> 4; all above the firmware's 0x20). */
#define IRQ_VEC_MEASURE 0x40  /* the source under test */
#define IRQ_VEC_GUARD 0x50    /* the fallback wake-up that bounds a halt */
#define IRQ_VEC_IPI 0x60      /* self-IPIs */
#define IRQ_VEC_PROF 0x70     /* the sampling profiler (timer or counter overflow) */

/* A handler runs with interrupts masked; the EOI follows it (irq_set_eoi). */
typedef void (*irq_handler_fn)(void *ctx, uint64_t entry_cycles);

struct irq_counts {
	uint64_t taken;      /* dispatched to a registered handler */
	uint64_t spurious;   /* IRQ_VEC_SPURIOUS (AArch64: INTID 1023) */
	uint64_t unexpected; /* a vector (INTID) without a handler, counted */
	unsigned last_unexpected; /* its vector (AArch64: its INTID) */
};

/* The interrupt machinery exists (bare metal, our entry installed). */
bool irq_available(void);
void irq_set_eoi(void (*eoi)(void *ctx), void *ctx);
void irq_register(unsigned vector, irq_handler_fn fn, void *ctx);
void irq_unregister(unsigned vector);
bool irq_registered(unsigned vector);
/* A handler that also gets the interrupted PC (where the interrupt returns to) and may run on any
 * processor at once: its vector bypasses the shared counters (taken, per-vector counts), so the
 * dispatch writes nothing shared. The profiler's sampling vector; one such vector at a time (a
 * new registration replaces the old; a vector with an ordinary handler is refused). Unregister
 * with irq_unregister. */
typedef void (*irq_pc_handler_fn)(void *ctx, uint64_t entry_cycles, uint64_t pc);
void irq_register_pc(unsigned vector, irq_pc_handler_fn fn, void *ctx);
void irq_get_counts(struct irq_counts *out);
uint64_t irq_vector_count(unsigned vector);
/* The cycle counter read by the stub right before the return of the last interrupt. */
uint64_t irq_last_exit_cycles(void);

/* Masking (x86_64 RFLAGS.IF, AArch64 PSTATE.I). irq_save_disable returns the previous state for
 * irq_restore. In the hosted build interrupts cannot be masked from user space: irq_maskable()
 * is false and these do nothing. */
bool irq_maskable(void);
uint64_t irq_save_disable(void);
void irq_restore(uint64_t saved);
void irq_enable(void);
void irq_disable(void);
/* Enable and halt with no race between the two (x86_64: sti's one-instruction shadow before hlt;
 * AArch64: wfi with IRQs masked, then a short unmasked window), then mask again. Only with a
 * wake-up armed. */
void irq_enable_halt_disable(void);

/* Exception hooks for the exception round-trip probe: a hook sees the breakpoint or undefined
 * instruction (IRQ_EXC_BREAKPOINT, IRQ_EXC_UNDEFINED) before any fault reporting and resumes the
 * code itself: after the breakpoint (IRQ_HOOK_RESUME), past the undefined instruction
 * (IRQ_HOOK_SKIP_UNDEFINED). */
enum irq_exc_hook { IRQ_HOOK_NONE, IRQ_HOOK_RESUME, IRQ_HOOK_SKIP_UNDEFINED };
void irq_set_exception_hook(unsigned vector, enum irq_exc_hook how);
/* The deliberate exceptions themselves (x86_64 int3, ud2; AArch64 brk #0, udf #0). */
void irq_raise_breakpoint(void);
void irq_raise_undefined(void);

#include <cpu/irq.h>

#endif
