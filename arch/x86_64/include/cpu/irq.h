/* The x86_64 part of arch/irq.h (included at its end). Hardware interrupts on the bootstrap
 * processor: IDT gates for vectors 32-255 (stubs in
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

/* The exception round-trip probe's two exceptions, #BP and #UD (int3, ud2: IRQ_HOOK_SKIP_UNDEFINED
 * advances past the ud2). */
#define IRQ_EXC_BREAKPOINT 3 /* X86_VEC_BP */
#define IRQ_EXC_UNDEFINED 6  /* X86_VEC_UD */
#define IRQ_EXC_BREAKPOINT_NAME "int3"
#define IRQ_EXC_UNDEFINED_NAME "ud2"

/* The trap handler's side (arch/priv/x86_64/traps.c calls these; irq.c never calls traps.c back). */
struct trap_frame;
/* Called for #BP and #UD before any reporting: true when the round-trip probe's hook took it. */
bool x86_exception_hook(struct trap_frame *f);
/* Called by traps_init once the IDT's interrupt gates are in: irq_available() is true from then on. */
void x86_irq_gates_installed(void);

#endif
