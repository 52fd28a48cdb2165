/* What PMU discovery found (arch/pmu.h's struct pmu_info), declared once for every CPU: the fields
 * code outside arch/ reads, then the CPU's own, PMU_INFO_CPU_FIELDS. The CPU's part
 * (arch/<cpu>/include/cpu/pmu.h) defines them and then includes this header, so that the part is
 * complete on its own: the host's unit tests build AArch64 units on x86_64, which include their
 * part by path (a <cpu/...> include would be x86_64's there). Code outside arch/ includes
 * arch/pmu.h. */
#ifndef ARCH_PMU_INFO_H
#define ARCH_PMU_INFO_H

#include <stdbool.h>

#ifndef PMU_INFO_CPU_FIELDS
#error "include arch/pmu.h: the CPU's part gives struct pmu_info its tail"
#endif

struct pmu_info {
	bool present;
	const char *reason; /* why not present (x86_64), or what was found (AArch64) */
	/* The SMM freeze of the counters as discovery left it ("set", "already", "not_offered",
	 * "refused", "unknown": x86_64, pmu_quirks.c); NULL where the CPU has no such control
	 * (AArch64: EL3's time is not counted by default, MDCR_EL3.SPME = 0; pmu_check then omits
	 * the field). */
	const char *freeze_while_smm;
	/* The CPU's tail: its own fields. */
	struct {
		PMU_INFO_CPU_FIELDS
	};
};

#endif
