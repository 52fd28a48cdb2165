/* Hardware interrupts on the bootstrap processor: IDT gates for vectors 32-255 (stubs in
 * arch/priv/x86_64/irq.S that read the TSC as their first work), a table of handlers by vector, the
 * end-of-interrupt callback, counters of taken, spurious and unexpected interrupts, and the
 * masking primitives. Interrupts stay masked (cli) except inside a probe's explicit window.
 *
 * The stub pushes RAX and RDX (rdtsc's outputs), reads the TSC, then saves the caller-saved
 * registers and calls the dispatcher with the vector and that entry TSC. After the handler and
 * the EOI it restores the registers, reads the TSC again into the "exit" stamp, and returns with
 * iretq: entry..exit is the handler's direct cost as the stub sees it. No vector state is touched
 * (the firmware is built -mgeneral-regs-only). The hosted build implements this interface with
 * signals (hosted/irq_signal.c); irq_maskable() is false there. */
#ifndef ARCH_X86_64_IRQ_H
#define ARCH_X86_64_IRQ_H

#include <stdbool.h>
#include <stdint.h>

#define IRQ_FIRST_VECTOR 32
#define IRQ_NUM_VECTORS 256
#define IRQ_VEC_SPURIOUS 0xFF /* the local APIC's spurious vector (no EOI) */

/* Vectors the probes use (priority class = vector >> 4; all above the firmware's 0x20). */
#define IRQ_VEC_MEASURE 0x40  /* the source under test */
#define IRQ_VEC_GUARD 0x50    /* the fallback wake-up that bounds a hlt wait */
#define IRQ_VEC_IPI 0x60      /* self-IPIs */
#define IRQ_VEC_PROF 0x70     /* the sampling profiler (timer or counter overflow) */

/* A handler runs with interrupts masked; the EOI follows it (irq_set_eoi). */
typedef void (*irq_handler_fn)(void *ctx, uint64_t entry_tsc);

struct irq_counts {
	uint64_t taken;      /* dispatched to a registered handler */
	uint64_t spurious;   /* IRQ_VEC_SPURIOUS */
	uint64_t unexpected; /* a vector without a handler (EOI'd and counted) */
	unsigned last_unexpected;
};

/* The interrupt machinery exists (bare metal, IDT installed). */
bool irq_available(void);
void irq_set_eoi(void (*eoi)(void *ctx), void *ctx);
void irq_register(unsigned vector, irq_handler_fn fn, void *ctx);
void irq_unregister(unsigned vector);
bool irq_registered(unsigned vector);
/* A handler that also gets the interrupted PC (where the iretq returns to) and may run on any
 * processor at once: its vector bypasses the shared counters (taken, per-vector counts), so the
 * dispatch writes nothing shared. The profiler's sampling vector; one such vector at a time (a
 * new registration replaces the old; a vector with an ordinary handler is refused). Unregister
 * with irq_unregister. */
typedef void (*irq_pc_handler_fn)(void *ctx, uint64_t entry_tsc, uint64_t pc);
void irq_register_pc(unsigned vector, irq_pc_handler_fn fn, void *ctx);
void irq_get_counts(struct irq_counts *out);
uint64_t irq_vector_count(unsigned vector);
/* TSC read by the stub right before the iretq of the last interrupt. */
uint64_t irq_last_exit_tsc(void);

/* Masking (RFLAGS.IF). irq_save_disable returns the previous state for irq_restore. In the hosted
 * build interrupts cannot be masked from user space: irq_maskable() is false and these do nothing. */
bool irq_maskable(void);
uint64_t irq_save_disable(void);
void irq_restore(uint64_t saved);
void irq_enable(void);
void irq_disable(void);
/* Enable and halt in one step (sti's one-instruction shadow: an interrupt pending at the sti
 * wakes the hlt instead of being taken before it), then mask again. Only with a wake-up armed. */
void irq_enable_halt_disable(void);

/* Exception hooks for the exception round-trip probe: a hook sees the #BP or #UD before the
 * fault reporting and may resume the code itself (IRQ_HOOK_SKIP_UD2 advances past the ud2). */
enum irq_exc_hook { IRQ_HOOK_NONE, IRQ_HOOK_RESUME, IRQ_HOOK_SKIP_UD2 };
/* The two exceptions by architecture-neutral names (the probes use these; AArch64: brk, udf). */
#define IRQ_EXC_BREAKPOINT 3 /* X86_VEC_BP */
#define IRQ_EXC_UNDEFINED 6  /* X86_VEC_UD */
#define IRQ_EXC_BREAKPOINT_NAME "int3"
#define IRQ_EXC_UNDEFINED_NAME "ud2"
void irq_set_exception_hook(unsigned vector, enum irq_exc_hook how);
/* The deliberate exceptions themselves. */
void irq_raise_int3(void);
void irq_raise_ud2(void);

#endif
