/* The x86_64 part of arch/smp.h (included there, before struct smp_report): the fields of the
 * start-up report only this CPU's bring-up has (efi/x86_64/smp.c: INIT-SIPI-SIPI through the local
 * APIC, see efi/x86_64/smp.h; bench/facts/x86_64/smp.c emits them). */
#ifndef ARCH_X86_64_SMP_H
#define ARCH_X86_64_SMP_H

#include <stdbool.h>
#include <stdint.h>

/* struct smp_report's CPU tail (an anonymous member there: the fields read as the others do). */
#define SMP_REPORT_CPU_FIELDS \
	bool x2apic;                /* the APIC is in x2APIC mode (MSR access) */ \
	const char *lapic_mode_how; /* "firmware" or "switched" (option apic_mode, on the BSP) */ \
	unsigned aps_switched;      /* online APs that switched themselves to x2APIC mode */ \
	uint64_t lapic_base; \
	uint64_t lowpage; \
	bool pml4_copy;             /* the BSP's CR3 was above 4 GiB: the trampoline used a copy */

#endif
