/* Intel CPUs whose TSC-deadline timer mode is broken below a microcode revision (errata the
 * microcode fixes), as Linux lists them (arch/x86/kernel/apic/apic.c, deadline_match, checked by
 * apic_validate_deadline_timer): family 6, a model, for some models only certain steppings, and the
 * first good revision. On such a CPU with older microcode CPUID still reports TSC-deadline, so
 * the bit alone is not enough to use the mode. Like Linux, a CPU under a hypervisor is not
 * refused (the hypervisor provides the timer) and a model or stepping not listed is accepted. */
#ifndef ARCH_X86_64_TSC_DEADLINE_ERRATA_H
#define ARCH_X86_64_TSC_DEADLINE_ERRATA_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/cpu_info.h"

struct tsc_deadline_erratum {
	const char *name;        /* the model's name in Linux's asm/intel-family.h */
	unsigned model;          /* family 6 display model */
	unsigned step_first, step_last; /* the steppings it applies to, inclusive */
	uint32_t min_ucode;      /* the first microcode revision with the fix */
};

/* The row that matches this CPU (vendor, family, model, stepping), whatever its microcode; NULL
 * when none does or the CPU runs under a hypervisor. */
const struct tsc_deadline_erratum *tsc_deadline_erratum_for(const struct cpu_info *ci);
/* True when TSC-deadline must not be used: a matching row and a microcode revision below its
 * bound, or one that could not be read. */
bool tsc_deadline_erratum_applies(const struct cpu_info *ci, const struct tsc_deadline_erratum *e);

#endif
