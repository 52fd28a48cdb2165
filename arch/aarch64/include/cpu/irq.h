/* The AArch64 part of arch/irq.h (included at its end): arch/irq.h's interface over the GIC's CPU
 * interface (GICv3's system registers, or what the platform installs: a64_irq_set_cpuif). The IRQ entries of the vector table
 * (arch/priv/aarch64/traps.S, current EL with SP0 and SPx) read CNTVCT_EL0 as their first work (the skeleton's cycle
 * clock; exception entry is context-synchronising, so no isb is needed before it), save the
 * caller-saved registers and ELR/SPSR, and call the dispatcher with that entry stamp and ELR_EL1
 * (the interrupted PC). The dispatcher acknowledges through ICC_IAR1_EL1 (or the installed
 * interface's ack: a GICv2's memory-mapped GICC_IAR), counts INTID 1023 as
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

/* INTIDs the dispatcher can route to a slot: SGIs and PPIs (SPIs are not used). */
#define A64_IRQ_ROUTABLE 32

/* A CPU interface other than GICv3's system registers (a GICv2's GICC_IAR / GICC_EOIR):
 * ack returns the raw acknowledge value, intid_mask selects its INTID, eoi is given the raw
 * value back (GICv2 wants an SGI's source CPU in it). The platform installs it once at init,
 * before interrupts are unmasked; NULL (the default) keeps the GICv3 path: the system registers
 * read and written inline, one predictable branch more. */
struct a64_irq_cpuif {
	uint32_t (*ack)(void);
	void (*eoi)(uint32_t iar);
	uint32_t intid_mask;
};
void a64_irq_set_cpuif(const struct a64_irq_cpuif *cpuif);
/* The raw acknowledge value of the interrupt being handled (for the EOI callback). */
uint32_t a64_irq_current_iar(void);

/* The platform's routing: INTID (< A64_IRQ_ROUTABLE) to a slot (0: none). */
void a64_irq_route(unsigned intid, unsigned vector);
/* The INTID being handled (for the EOI callback). */
unsigned a64_irq_current_intid(void);
/* Called after the acknowledge, before the handler (NULL: none): the platform silences a
 * level-triggered one-shot source there (a timer), so that the handler may re-arm it. */
void a64_irq_set_ack_hook(void (*fn)(void *ctx, unsigned intid), void *ctx);

/* Exception hooks (the round-trip probe): `brk` (EC 0x3C) resumes after the instruction
 * (IRQ_HOOK_RESUME), `udf` (EC 0, unknown) is skipped (IRQ_HOOK_SKIP_UNDEFINED); both are 4 bytes and
 * ELR points at them. The hook runs before any fault reporting. */
#define IRQ_EXC_BREAKPOINT 0x3C /* ESR EC of brk */
#define IRQ_EXC_UNDEFINED 0x00  /* ESR EC of udf */
#define IRQ_EXC_BREAKPOINT_NAME "brk"
#define IRQ_EXC_UNDEFINED_NAME "udf"
/* Called by the trap handler for a synchronous exception before any reporting: true when a hook
 * took it (*elr then says where to resume). */
bool a64_exception_hook(uint64_t esr, uint64_t *elr);
/* Called by traps_init once our EL1 vectors are in (VBAR_EL1): irq_available() is true from then
 * on (not at EL2, where no interrupt is routed to us). */
void a64_irq_vectors_installed(void);

#endif
