/* The interrupt interface of arch/x86_64/irq.h in the hosted (Linux user-space) build. This first
 * version has no handlers and no masking (user space cannot execute cli): irq_available() is
 * false, so the interrupt probes skip; the noise probe runs and says in its record that
 * interrupts were not masked. (Signal-based handlers replace it.) */
#include "arch/x86_64/irq.h"

bool irq_available(void) { return false; }
void irq_set_eoi(void (*eoi)(void *ctx), void *ctx) { (void)eoi; (void)ctx; }
void irq_register(unsigned vector, irq_handler_fn fn, void *ctx) { (void)vector; (void)fn; (void)ctx; }
void irq_unregister(unsigned vector) { (void)vector; }
bool irq_registered(unsigned vector) { (void)vector; return false; }

void irq_get_counts(struct irq_counts *out)
{
	*out = (struct irq_counts){ 0 };
}

uint64_t irq_vector_count(unsigned vector) { (void)vector; return 0; }
uint64_t irq_last_exit_tsc(void) { return 0; }
bool irq_maskable(void) { return false; }
uint64_t irq_save_disable(void) { return 0; }
void irq_restore(uint64_t saved) { (void)saved; }
void irq_enable(void) { }
void irq_disable(void) { }
void irq_enable_halt_disable(void) { }
void irq_set_exception_hook(unsigned vector, enum irq_exc_hook how) { (void)vector; (void)how; }
void irq_raise_int3(void) { }
void irq_raise_ud2(void) { }
