/* The AArch64 part of arch/smp.h (included there, before struct smp_report): the fields of the
 * start-up report only this CPU's bring-up has (efi/aarch64/smp.c: PSCI CPU_ON, see
 * efi/aarch64/smp.h; bench/facts/aarch64/smp.c emits them). The hardware id of arch/smp.h
 * (smp_cpu_hw_id) is here the MPIDR's affinity packed into 32 bits (Aff3 in 31:24, Aff2..Aff0 in
 * 23:0), so the probes (smp_hello) need no #ifdef. */
#ifndef ARCH_AARCH64_SMP_H
#define ARCH_AARCH64_SMP_H

#include <stdint.h>

/* struct smp_report's CPU tail (an anonymous member there: the fields read as the others do). */
#define SMP_REPORT_CPU_FIELDS \
	const char *conduit;   /* "hvc" or "smc" */ \
	uint32_t psci_version; /* PSCI_VERSION: major << 16 | minor */

#endif
