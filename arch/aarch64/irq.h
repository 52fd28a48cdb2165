/* Hardware interrupts of the AArch64 build: arch/irq.h's interface (the one arch/x86_64/irq.h
 * defines for the probes) over the GICv3 CPU interface. The IRQ entries of the vector table
 * (arch/priv/aarch64/traps.S, current EL with SP0 and SPx) read CNTVCT_EL0 as their first work (the skeleton's cycle
 * clock; exception entry is context-synchronising, so no isb is needed before it), save the
 * caller-saved registers and ELR/SPSR, and call the dispatcher with that entry stamp and ELR_EL1
 * (the interrupted PC). The dispatcher acknowledges through ICC_IAR1_EL1, counts INTID 1023 as
 * spurious (no EOI), maps the INTID to a "vector" (a handler slot: the probes' IRQ_VEC_* names,
 * routed to an INTID by the platform with a64_irq_route), runs the handler with interrupts masked
 * and calls the EOI callback (the platform stops a one-shot timer there and writes ICC_EOIR1_EL1;
 * without a callback the dispatcher writes EOIR itself). After the eret-bound restore the stub
 * reads CNTVCT_EL0 again into the exit stamp.
 *
 * Masking is PSTATE.I (DAIF; FIQ stays masked: nothing here uses Group 0). The halt is `wfi`
 * with IRQs still masked — a pending interrupt wakes wfi whatever PSTATE.I says — then a short
 * unmasked window (msr daifclr; isb) takes it: no race between unmasking and sleeping. */
#ifndef ARCH_AARCH64_IRQ_H
#define ARCH_AARCH64_IRQ_H

#include <stdbool.h>
#include <stdint.h>

#define IRQ_FIRST_VECTOR 32
#define IRQ_NUM_VECTORS 256
#define IRQ_VEC_SPURIOUS 0xFF /* not a slot: INTID 1023 is counted as spurious */

/* Handler slots the probes use (the x86 vector numbers, kept so bench/ reads the same). */
#define IRQ_VEC_MEASURE 0x40
#define IRQ_VEC_GUARD 0x50
#define IRQ_VEC_IPI 0x60
#define IRQ_VEC_PROF 0x70

/* INTIDs the dispatcher can route to a slot: SGIs and PPIs (SPIs are not used). */
#define A64_IRQ_ROUTABLE 32

typedef void (*irq_handler_fn)(void *ctx, uint64_t entry_tsc);

struct irq_counts {
	uint64_t taken;
	uint64_t spurious;   /* INTID 1023 */
	uint64_t unexpected; /* an INTID routed to no slot, or a slot without a handler */
	unsigned last_unexpected; /* its INTID */
};

bool irq_available(void);
void irq_set_eoi(void (*eoi)(void *ctx), void *ctx);
void irq_register(unsigned vector, irq_handler_fn fn, void *ctx);
void irq_unregister(unsigned vector);
bool irq_registered(unsigned vector);
typedef void (*irq_pc_handler_fn)(void *ctx, uint64_t entry_tsc, uint64_t pc);
void irq_register_pc(unsigned vector, irq_pc_handler_fn fn, void *ctx);
void irq_get_counts(struct irq_counts *out);
uint64_t irq_vector_count(unsigned vector);
uint64_t irq_last_exit_tsc(void);

/* The platform's routing: INTID (< A64_IRQ_ROUTABLE) to a slot (0: none). */
void a64_irq_route(unsigned intid, unsigned vector);
/* The INTID being handled (for the EOI callback). */
unsigned a64_irq_current_intid(void);
/* Called after the acknowledge, before the handler (NULL: none): the platform silences a
 * level-triggered one-shot source there (a timer), so that the handler may re-arm it. */
void a64_irq_set_ack_hook(void (*fn)(void *ctx, unsigned intid), void *ctx);

bool irq_maskable(void);
uint64_t irq_save_disable(void);
void irq_restore(uint64_t saved);
void irq_enable(void);
void irq_disable(void);
void irq_enable_halt_disable(void);

/* Exception hooks (the round-trip probe): `brk` (EC 0x3C) resumes after the instruction
 * (IRQ_HOOK_RESUME), `udf` (EC 0, unknown) is skipped (IRQ_HOOK_SKIP_UD2); both are 4 bytes and
 * ELR points at them. The hook runs before any fault reporting. */
enum irq_exc_hook { IRQ_HOOK_NONE, IRQ_HOOK_RESUME, IRQ_HOOK_SKIP_UD2 };
#define IRQ_EXC_BREAKPOINT 0x3C /* ESR EC of brk */
#define IRQ_EXC_UNDEFINED 0x00  /* ESR EC of udf */
#define IRQ_EXC_BREAKPOINT_NAME "brk"
#define IRQ_EXC_UNDEFINED_NAME "udf"
void irq_set_exception_hook(unsigned vector, enum irq_exc_hook how);
void irq_raise_int3(void); /* brk #0 */
void irq_raise_ud2(void);  /* udf #0 */
/* Called by the trap handler for a synchronous exception before any reporting: true when a hook
 * took it (*elr then says where to resume). */
bool a64_exception_hook(uint64_t esr, uint64_t *elr);
/* Called by traps_init once our EL1 vectors are in (VBAR_EL1): irq_available() is true from then
 * on (not at EL2, where no interrupt is routed to us). */
void a64_irq_vectors_installed(void);

#endif
