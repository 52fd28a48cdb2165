/* The conditions of a latency set on AArch64 (bench/probes/irq/context.h's interface; the AArch64 build
 * links this in place of bench/probes/irq/x86_64/context.c, which reads MSR_SMI_COUNT and APERF/MPERF through
 * the x86 counter plan). Neither exists here: the records say so instead of printing 0. Firmware
 * running in EL3 (the counterpart of SMIs) is invisible to EL1. */
/* OPT_FAST: -O2 (Makefile): interrupt path (delivery, handlers, EOI) timed by the irq probes and the profiler. */
#include "bench/probes/irq/context.h"

#include "lib/record.h"

#define NO_SMI "unavailable: no SMI count on AArch64 (EL3 firmware time is invisible to EL1)"
#define NO_FREQ "unavailable: AArch64 has no APERF/MPERF"

void irq_context_begin(struct probe_env *env, struct irq_context *c)
{
	(void)env;
	*c = (struct irq_context){ 0 };
	c->freq_why = NO_FREQ;
}

void irq_context_end(struct probe_env *env, struct irq_context *c)
{
	(void)env;
	(void)c;
}

void irq_context_fields(const struct probe_env *env, struct record *r, const struct irq_context *c)
{
	(void)env;
	rec_str(r, "smi", NO_SMI);
	rec_str(r, "eff_freq", c->freq_why ? c->freq_why : NO_FREQ);
}
